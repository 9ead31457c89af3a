//! HTTP/1.1 over TLS for `spreadlab serve`, on hyper and tokio-rustls: one request per connection
//! read within its limits (head size, body size, the header and whole-request deadlines, the
//! per-read and per-write timeout), the answer written, the socket lingered; and the overflow
//! answer (503) past `--max-connections`.

use std::convert::Infallible;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_io_timeout::TimeoutStream;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use super::*;

/// What bounds one connection.
pub(super) struct Limits {
    pub(super) max_body: usize,
    /// Each socket read and write (`--timeout`).
    pub(super) read_timeout: Duration,
    /// For the TLS handshake and the request head (slow clients lose their slot past it).
    pub(super) header_timeout: Duration,
    pub(super) request_timeout: Duration,
}

/// The socket under TLS, each write bounded by a timeout (reads are bounded by the deadlines:
/// the handshake and head by the header deadline, the body's reads in [`read_body`], which
/// answers 408 where a failed socket read would leave nothing to answer on).
type Socket = Pin<Box<TimeoutStream<TcpStream>>>;

fn socket(tcp: TcpStream, timeout: Duration) -> Socket {
    // Small answers leave at once (no Nagle delay waiting for the client's ACK).
    let _ = tcp.set_nodelay(true);
    let mut socket = TimeoutStream::new(tcp);
    socket.set_write_timeout(Some(timeout));
    Box::pin(socket)
}

/// One request on one TLS connection (`Connection: close`): the TLS handshake and the request
/// head within the header deadline, the body within the request's (408 past either), then the
/// answer.
pub(super) async fn serve_connection(
    tcp: TcpStream,
    tls: TlsAcceptor,
    service: Arc<Service>,
    limits: Arc<Limits>,
) {
    let start = Instant::now();
    let deadline = start + limits.request_timeout;
    let head_deadline = deadline.min(start + limits.header_timeout);
    let accepted =
        tokio::time::timeout_at(head_deadline, tls.accept(socket(tcp, limits.read_timeout))).await;
    let Ok(Ok(mut stream)) = accepted else {
        return;
    };
    let head_read = Arc::new(AtomicBool::new(false));
    let answered = {
        let respond = {
            let head_read = Arc::clone(&head_read);
            hyper::service::service_fn(move |request| {
                head_read.store(true, Ordering::SeqCst);
                respond(request, Arc::clone(&service), Arc::clone(&limits), deadline)
            })
        };
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .keep_alive(false)
            .max_buf_size(MAX_HEAD)
            // The head's deadline is kept below, where a late head is answered 408.
            .header_read_timeout(None);
        let mut connection = pin!(http.serve_connection(TokioIo::new(&mut stream), respond));
        let finished = tokio::select! {
            _ = connection.as_mut() => true,
            () = tokio::time::sleep_until(head_deadline) => false,
        };
        let answered = finished || head_read.load(Ordering::SeqCst);
        if !finished && answered {
            // Past the head, the body's deadline and the decision's bound the rest.
            let _ = connection.await;
        }
        answered
    };
    if answered {
        linger(stream.get_mut().0).await;
    } else {
        write_raw(&mut stream, too_late()).await;
    }
}

/// The answer to one request whose head hyper read: the body within the request's deadline
/// and `max_body`, then the service's answer.
async fn respond(
    request: Request<Incoming>,
    service: Arc<Service>,
    limits: Arc<Limits>,
    deadline: Instant,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (head, body) = request.into_parts();
    let path = head
        .uri
        .path_and_query()
        .map_or("/", |path| path.as_str())
        .to_owned();
    let answer = match read_body(body, &limits, deadline).await {
        Ok(body) => {
            service
                .handle_within(head.method.as_str(), &path, body)
                .await
        }
        Err(answer) => answer,
    };
    Ok(response(answer))
}

/// The whole body, at most `max_body` bytes (413 past it, before reading when its length says
/// so), by `deadline` and with no wait longer than `read_timeout` for its next bytes (408).
async fn read_body(body: Incoming, limits: &Limits, deadline: Instant) -> Result<Bytes, Answer> {
    let max_body = limits.max_body;
    let declared = body.size_hint().lower();
    if declared > max_body as u64 {
        return Err((
            413,
            json!({"error": format!("body of {declared} bytes is over the limit of {max_body} (--max-body)")}),
        ));
    }
    let mut body = Limited::new(body, max_body);
    let mut read = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    loop {
        let wait = deadline.min(Instant::now() + limits.read_timeout);
        let frame = match tokio::time::timeout_at(wait, body.frame()).await {
            Err(_) => return Err(too_late()),
            Ok(None) => return Ok(Bytes::from(read)),
            Ok(Some(frame)) => frame,
        };
        match frame {
            Ok(frame) => {
                if let Some(data) = frame.data_ref() {
                    read.extend_from_slice(data);
                }
            }
            Err(error) if error.is::<LengthLimitError>() => {
                return Err((
                    413,
                    json!({"error": format!("body over the limit of {max_body} bytes (--max-body)")}),
                ));
            }
            Err(error) => return Err((400, json!({"error": format!("bad request: {error}")}))),
        }
    }
}

/// The answer to a request that did not arrive by its deadline.
fn too_late() -> Answer {
    (408, json!({"error": "the request did not arrive in time"}))
}

/// An answer as hyper writes it (JSON; a bare string is Prometheus' text format, `/metrics`).
fn response((status, body): Answer) -> Response<Full<Bytes>> {
    let (body, content_type) = encode(body);
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// An answer's body and content type.
fn encode(body: serde_json::Value) -> (Vec<u8>, &'static str) {
    match body {
        serde_json::Value::String(text) => (text.into_bytes(), super::metrics::CONTENT_TYPE),
        json => (
            serde_json::to_vec(&json).unwrap_or_default(),
            "application/json",
        ),
    }
}

/// Writes an answer on a connection whose request hyper did not finish reading (or did not
/// start to: the overflow's 503), then closes it.
async fn write_raw(stream: &mut TlsStream<Socket>, (status, body): Answer) {
    let (body, content_type) = encode(body);
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("Error"),
        body.len()
    );
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(&body).await;
    // TLS close_notify, then the write side of the socket.
    let _ = stream.shutdown().await;
    linger(stream.get_mut().0).await;
}

/// Reads what the client still sends for a moment (at most `LINGER` and 64 KiB) after the
/// answer and the close: closing a socket with unread input resets the connection, and the
/// client may then lose the answer (a 503, 408 or 413 sent before its request was read).
async fn linger(socket: &mut Socket) {
    let drain = async {
        let mut buffer = [0u8; 4096];
        let mut drained = 0;
        while drained < 64 * 1024 {
            match socket.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => drained += n,
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, drain).await;
}

/// The overflow's answer: 503 after the handshake, without reading the request, all within
/// `OVERFLOW_DEADLINE` (and the linger).
pub(super) async fn answer_busy(tcp: TcpStream, tls: TlsAcceptor) {
    let answer = async {
        if let Ok(mut stream) = tls.accept(socket(tcp, OVERFLOW_DEADLINE)).await {
            write_raw(
                &mut stream,
                (503, json!({"error": "too many connections; retry"})),
            )
            .await;
        }
    };
    let _ = tokio::time::timeout(OVERFLOW_DEADLINE + LINGER, answer).await;
}
