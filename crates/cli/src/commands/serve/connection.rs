//! HTTP/1.1 over TLS for `spreadlab serve`: one request per connection read within its limits
//! (head size, body size, whole-request deadline), the answer written, the socket lingered; and
//! the overflow answer (503) past `--max-connections`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::{ServerConfig, ServerConnection, StreamOwned};
use serde_json::json;

use super::*;

/// What bounds one connection.
pub(super) struct Limits {
    pub(super) max_body: usize,
    pub(super) read_timeout: Duration,
    /// For the TLS handshake and the request head (slow clients lose their slot past it).
    pub(super) header_timeout: Duration,
    pub(super) request_timeout: Duration,
}

/// A TLS stream whose reads stop at a deadline: each read waits at most the time left (and at
/// most the per-read timeout), so a client trickling bytes cannot hold the connection past it.
struct Deadlined<'s> {
    stream: &'s mut StreamOwned<ServerConnection, TcpStream>,
    deadline: Instant,
    read_timeout: Duration,
}

impl Read for Deadlined<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let left = self
            .deadline
            .checked_duration_since(Instant::now())
            .filter(|left| !left.is_zero())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::TimedOut))?;
        self.stream
            .sock
            .set_read_timeout(Some(left.min(self.read_timeout)))?;
        self.stream.read(buffer)
    }
}

/// Writes one answer (JSON; a bare string is Prometheus' text format, `/metrics`) and closes
/// the TLS session.
fn write_answer(stream: &mut StreamOwned<ServerConnection, TcpStream>, (status, body): Answer) {
    let (body, content_type) = match body {
        serde_json::Value::String(text) => (text.into_bytes(), super::metrics::CONTENT_TYPE),
        json => (
            serde_json::to_vec(&json).unwrap_or_default(),
            "application/json",
        ),
    };
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reason(status),
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
    stream.conn.send_close_notify();
    let _ = stream.conn.complete_io(&mut stream.sock);
    linger(&mut stream.sock);
}

/// Closes the write side and reads what the client still sends for a moment (at most
/// `LINGER` and 64 KiB): closing a socket with unread input resets the connection, and the
/// client may then lose the answer (a 503, 408 or 413 sent before its request was read).
fn linger(socket: &mut TcpStream) {
    let _ = socket.shutdown(std::net::Shutdown::Write);
    let deadline = Instant::now() + LINGER;
    let mut buffer = [0u8; 4096];
    let mut drained = 0;
    while drained < 64 * 1024 {
        let Some(left) = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
        else {
            break;
        };
        if socket.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match socket.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

/// The overflow thread's answer: 503 after the handshake, without reading the request.
pub(super) fn answer_busy(stream: TcpStream, tls: Arc<ServerConfig>) {
    let Ok(connection) = ServerConnection::new(tls) else {
        return;
    };
    let mut stream = StreamOwned::new(connection, stream);
    let deadline = Instant::now() + OVERFLOW_DEADLINE;
    while stream.conn.is_handshaking() {
        if Instant::now() >= deadline || stream.conn.complete_io(&mut stream.sock).is_err() {
            return;
        }
    }
    write_answer(
        &mut stream,
        (503, json!({"error": "too many connections; retry"})),
    );
}

/// One request on one TLS connection (`Connection: close`).
pub(super) fn serve_connection(
    stream: TcpStream,
    tls: Arc<ServerConfig>,
    service: &Arc<Service>,
    limits: &Limits,
) {
    let Ok(connection) = ServerConnection::new(tls) else {
        return;
    };
    let mut stream = StreamOwned::new(connection, stream);
    let start = Instant::now();
    let deadline = start + limits.request_timeout;
    // The handshake and the head within the header deadline, the body within the request's.
    let read = read_request_with(
        &mut Deadlined {
            stream: &mut stream,
            deadline: deadline.min(start + limits.header_timeout),
            read_timeout: limits.read_timeout,
        },
        limits.max_body,
        |reader| reader.deadline = deadline,
    );
    let answer = match read {
        Ok((method, path, body)) => service.handle_within(&method, &path, body),
        Err(Some(answer)) => answer,
        Err(None) => return,
    };
    write_answer(&mut stream, answer);
}

/// Reads the request head and body. `Err(None)`: the connection failed (nothing to answer).
#[cfg(test)]
pub(super) fn read_request(
    stream: &mut impl Read,
    max_body: usize,
) -> Result<(String, String, Vec<u8>), Option<Answer>> {
    read_request_with(stream, max_body, |_| {})
}

/// [`read_request`], calling `head_read` once the head is complete (before the body is read).
pub(super) fn read_request_with<R: Read>(
    stream: &mut R,
    max_body: usize,
    head_read: impl FnOnce(&mut R),
) -> Result<(String, String, Vec<u8>), Option<Answer>> {
    let mut head_read = Some(head_read);
    let mut buffer = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&buffer) {
            Ok(httparse::Status::Complete(head_len)) => {
                let method = request.method.unwrap_or("").to_owned();
                let path = request.path.unwrap_or("").to_owned();
                let length = body_length(request.headers)?;
                if length > max_body {
                    return Err(Some((
                        413,
                        json!({"error": format!("body of {length} bytes is over the limit of {max_body}")}),
                    )));
                }
                let mut body = buffer[head_len..].to_vec();
                if let Some(head_read) = head_read.take() {
                    head_read(stream);
                }
                while body.len() < length {
                    let n = stream.read(&mut chunk).map_err(read_failure)?;
                    if n == 0 {
                        return Err(None);
                    }
                    body.extend_from_slice(&chunk[..n]);
                }
                body.truncate(length);
                return Ok((method, path, body));
            }
            Ok(httparse::Status::Partial) => {}
            Err(e) => return Err(Some((400, json!({"error": format!("bad request: {e}")})))),
        }
        if buffer.len() > MAX_HEAD {
            return Err(Some((431, json!({"error": "request head over 16 KiB"}))));
        }
        let n = stream.read(&mut chunk).map_err(read_failure)?;
        if n == 0 {
            return Err(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

/// The body's length from the head, refusing ambiguous framing as RFC 9112 §6.3 requires of a
/// server (a proxy in front could otherwise read the message differently): `Transfer-Encoding`
/// with `Content-Length` (400), more than one `Content-Length` (400, even with equal values),
/// a value that is not only digits (`+2`, `-1`, `2 2`, `0x10`: 400), and `Transfer-Encoding`
/// alone (411: chunked bodies are not read). No `Content-Length`: an empty body.
pub(super) fn body_length(headers: &[httparse::Header<'_>]) -> Result<usize, Option<Answer>> {
    let lengths: Vec<&[u8]> = headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case("content-length"))
        .map(|h| h.value)
        .collect();
    let chunked = headers
        .iter()
        .any(|h| h.name.eq_ignore_ascii_case("transfer-encoding"));
    let refuse = |status: u16, error: &str| Err(Some((status, json!({ "error": error }))));
    match (lengths.as_slice(), chunked) {
        ([_, ..], true) => refuse(400, "Content-Length and Transfer-Encoding together"),
        ([], true) => refuse(411, "send a Content-Length (chunked bodies are not read)"),
        ([], false) => Ok(0),
        ([_, _, ..], false) => refuse(400, "more than one Content-Length"),
        ([value], false) => {
            let value = value.trim_ascii();
            if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
                return refuse(400, "Content-Length is not a number");
            }
            std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .map_or_else(|| refuse(413, "Content-Length is too large"), Ok)
        }
    }
}

/// A failed read: a timeout is answered 408 (the client is still there), anything else closes.
pub(super) fn read_failure(error: std::io::Error) -> Option<Answer> {
    matches!(
        error.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
    .then(|| (408, json!({"error": "the request did not arrive in time"})))
}

pub(super) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}
