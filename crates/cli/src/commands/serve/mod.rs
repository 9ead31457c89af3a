//! `spreadlab serve`: the what-if service for admission controllers that cannot run wasm
//! (Gatekeeper's external data, Kyverno's `apiCall`). An HTTPS server (TLS 1.3 only, certificate
//! and key from PEM files) that answers from a cluster snapshot file, reloaded when it changes,
//! with exactly the decision of the Kubewarden policy (`spreadlab_policy::decide`, same settings).
//!
//! Endpoints (every answer is JSON):
//! - `POST /gatekeeper`: Gatekeeper's `ProviderRequest` (each key is the admitted object as a
//!   JSON string, or a whole AdmissionRequest) to a `ProviderResponse` whose item values are
//!   `{"allowed", "message", "warnings"}`;
//! - `POST /validate`: an `AdmissionReview` (answered with an `AdmissionReview`), or
//!   `{"object", "oldObject", "operation", "namespace"}` (what `policies/kyverno/whatif.yaml`
//!   posts; operation CREATE when absent) answered with `{"allowed", "message", "warnings"}`;
//! - `GET /healthz`: the snapshot's file and object counts, reload generation, age, whether a
//!   change is settling, and how many reloads were rejected; for a watched cluster, whether every
//!   kind is listed, objects, events, relists, watch errors and the time since the last event;
//! - `GET /metrics`: decisions by endpoint and verdict, the decision latency histogram, watch
//!   events, relists and errors, objects, whether synced, the cluster's age (Prometheus' text
//!   format);
//! - `GET /readyz`: 200 once there is a cluster to answer from (a watched cluster: every kind
//!   listed once), 503 before; decisions answer 503 until then too, so the webhook's
//!   `failurePolicy` decides.
//!
//! With `--kubeconfig`, `--context` or `--in-cluster` instead of `--snapshot`, the cluster is kept
//! in memory by watches (`spreadlab_cluster::Watched`: list and watch per kind the policy reads,
//! relist on `410 Gone`, backoff on errors), as kube-scheduler's own cache is.
//!
//! The snapshot is replaced only by a complete, valid version of its files that stayed unchanged
//! for `--reload-settle` ([`snapshot`]); until then, and after a rejected reload, the last good
//! one answers.
//!
//! Bounds: request headers 16 KiB, bodies `--max-body` bytes (413 past it), `--timeout` per
//! socket read and write, `--request-timeout` for the whole request (TLS handshake, head and
//! body: a client trickling bytes gets 408 and loses its slot), `--eval-timeout` per decision
//! (an error answer past it: 503 on `/validate`, a `systemError` on `/gatekeeper`),
//! `--max-connections` handled at once and `--max-connections-per-client` from one address, the
//! TLS handshake and request head within `--header-timeout` (a slow client loses its slot
//! quickly and a few of them cannot take every slot), and `--max-decisions` decisions running
//! at once (the machine's CPUs by default; more wait for a slot within `--eval-timeout`, 503
//! when none frees; those past their deadline count until they end). Past the connection
//! limits a connection is answered 503 by one overflow thread (a short handshake deadline) or,
//! when that thread is busy too, closed.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use rustls::ServerConfig;

/// Largest request head (request line and headers).
const MAX_HEAD: usize = 16 * 1024;
/// Gatekeeper's external-data API version.
const PROVIDER_API_VERSION: &str = "externaldata.gatekeeper.sh/v1beta1";

/// How the service runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// PEM certificate chain (server certificate first).
    pub cert: PathBuf,
    /// PEM private key.
    pub key: PathBuf,
    /// Snapshot files (`kubectl get nodes,pods,namespaces,priorityclasses,services,poddisruptionbudgets
    /// -A -o yaml`), re-read when one changes.
    pub snapshot: Vec<PathBuf>,
    /// The policy's settings (JSON or YAML), as for the Kubewarden policy; defaults when absent.
    pub settings: Option<PathBuf>,
    /// Largest request body in bytes.
    pub max_body: usize,
    /// Socket read and write timeout.
    pub timeout: Duration,
    /// Deadline for receiving a whole request (handshake, head, body).
    pub request_timeout: Duration,
    /// Longest decision.
    pub eval_timeout: Duration,
    /// Connections handled at once.
    pub max_connections: usize,
    /// Connections handled at once from one client address.
    pub max_connections_per_client: usize,
    /// Decisions running at once.
    pub max_decisions: usize,
    /// Deadline for the TLS handshake and the request head.
    pub header_timeout: Duration,
    /// How long changed snapshot files must stay unchanged before they are read.
    pub reload_settle: Duration,
    /// After SIGTERM or SIGINT: how long to keep answering while not ready.
    pub shutdown_delay: Duration,
}

/// Handshake and write deadline of the overflow thread's 503 answers.
const OVERFLOW_DEADLINE: Duration = Duration::from_secs(1);
/// How long a closed connection's late input is read and dropped ([`linger`]).
const LINGER: Duration = Duration::from_millis(500);
/// Over-limit connections queued for the overflow thread; more are closed unanswered.
const OVERFLOW_QUEUE: usize = 16;
/// Stack of a connection thread: it reads and writes only (every answer is computed on a
/// decision thread, with the default stack), so hundreds of waiting connections stay cheap.
const CONNECTION_STACK: usize = 512 * 1024;

/// Connections per client address, so that a few clients cannot take every slot.
#[derive(Default)]
struct Clients(std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>);

impl Clients {
    /// Counts a connection from `client`; `false` (not counted) when it has `max` already.
    fn enter(&self, client: std::net::IpAddr, max: usize) -> bool {
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(client).or_insert(0);
        if *count >= max {
            return false;
        }
        *count += 1;
        true
    }

    /// A connection from `client` ended.
    fn leave(&self, client: std::net::IpAddr) {
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = counts.get_mut(&client) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&client);
            }
        }
    }
}

/// A line on the server's log (standard error). A closed or full log never stops the server
/// (`eprintln!` would panic).
pub(super) fn log(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "spreadlab serve: {line}");
}

/// The TLS 1.3-only server configuration for the PEM certificate chain and key, read again when
/// the files change ([`certificate::Reloading`]).
pub fn tls_config(
    cert: &std::path::Path,
    key: &std::path::Path,
) -> Result<Arc<ServerConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let resolver = certificate::Reloading::new(cert, key, Arc::clone(&provider))?;
    let config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    Ok(Arc::new(config))
}

/// How often the decisions' model is checked against the cluster's state (and built again in
/// the background when the cluster moved on).
const MODEL_REFRESH: Duration = Duration::from_millis(100);

/// Serves until the process ends.
pub fn run(config: &Config) -> Result<(), String> {
    let tls = tls_config(&config.cert, &config.key)?;
    let service = match crate::input::cluster() {
        Some(target) => {
            let watched = spreadlab_cluster::Watched::start(target, service::watched_kinds())
                .map_err(|e| e.to_string())?;
            log(&format!(
                "watching {} (context \"{}\"); /readyz answers 200 once every kind is listed",
                watched.server, watched.context
            ));
            Service::live(watched, config.settings.as_ref())?
        }
        None => Service::new(
            config.snapshot.clone(),
            config.settings.as_ref(),
            config.reload_settle,
        )?,
    };
    let service = Arc::new(service.with_bounds(config.eval_timeout, config.max_decisions));
    let listener =
        TcpListener::bind(config.listen).map_err(|e| format!("{}: {e}", config.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    log(&format!("listening on https://{address} (TLS 1.3)"));
    {
        // Keeps the decisions' model following the cluster between requests.
        let service = Arc::clone(&service);
        std::thread::Builder::new()
            .name(String::from("spreadlab-model"))
            .spawn(move || {
                loop {
                    service.refresh_model();
                    std::thread::sleep(MODEL_REFRESH);
                }
            })
            .map_err(|e| format!("cannot start the model thread: {e}"))?;
    }
    let active = Arc::new(AtomicUsize::new(0));
    // One thread answers 503 to connections past the limit; a full queue closes them.
    let (overflow, overflowed) = mpsc::sync_channel::<TcpStream>(OVERFLOW_QUEUE);
    {
        let tls = Arc::clone(&tls);
        std::thread::Builder::new()
            .name(String::from("spreadlab-overflow"))
            .spawn(move || {
                for stream in overflowed {
                    let _ = stream.set_read_timeout(Some(OVERFLOW_DEADLINE));
                    let _ = stream.set_write_timeout(Some(OVERFLOW_DEADLINE));
                    answer_busy(stream, Arc::clone(&tls));
                }
            })
            .map_err(|e| format!("cannot start the overflow thread: {e}"))?;
    }
    let clients = Arc::new(Clients::default());
    let draining = Arc::new(AtomicBool::new(false));
    shut_down_on_signal(
        Arc::clone(&service),
        Arc::clone(&active),
        Arc::clone(&draining),
        config,
    )?;
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let Ok(peer) = stream.peer_addr() else {
            continue;
        };
        if draining.load(Ordering::SeqCst) {
            // Shutting down: answered 503 as a connection past the limits is.
            let _ = overflow.try_send(stream);
            continue;
        }
        let admitted = active.fetch_add(1, Ordering::SeqCst) < config.max_connections
            && clients.enter(peer.ip(), config.max_connections_per_client);
        if !admitted {
            active.fetch_sub(1, Ordering::SeqCst);
            // Dropped (closed) when the overflow thread is behind.
            let _ = overflow.try_send(stream);
            continue;
        }
        let _ = stream.set_write_timeout(Some(config.timeout));
        let (tls, service, done) = (Arc::clone(&tls), Arc::clone(&service), Arc::clone(&active));
        let left = Arc::clone(&clients);
        let limits = Limits {
            max_body: config.max_body,
            read_timeout: config.timeout,
            header_timeout: config.header_timeout,
            request_timeout: config.request_timeout,
        };
        let spawned = std::thread::Builder::new()
            .name(String::from("spreadlab-connection"))
            .stack_size(CONNECTION_STACK)
            .spawn(move || {
                serve_connection(stream, tls, &service, &limits);
                left.leave(peer.ip());
                done.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            clients.leave(peer.ip());
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
    Ok(())
}

/// On SIGTERM or SIGINT: not ready at once, still answering for `shutdown_delay` (the API
/// server and kube-proxy learn that the endpoint is going), then no new connection is taken
/// and the process waits for the running ones (at most `request_timeout` plus `eval_timeout`)
/// and exits 0.
fn shut_down_on_signal(
    service: Arc<Service>,
    active: Arc<AtomicUsize>,
    draining: Arc<AtomicBool>,
    config: &Config,
) -> Result<(), String> {
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
    ])
    .map_err(|e| format!("cannot handle signals: {e}"))?;
    let delay = config.shutdown_delay;
    let drain = config.request_timeout + config.eval_timeout;
    std::thread::Builder::new()
        .name(String::from("spreadlab-signals"))
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                log(&format!(
                    "signal {signal}: not ready; answering for {} s more, then draining",
                    delay.as_secs_f64()
                ));
                service.begin_shutdown();
                std::thread::sleep(delay);
                // Connections accepted from now on are answered 503.
                draining.store(true, Ordering::SeqCst);
                let deadline = std::time::Instant::now() + drain;
                while active.load(Ordering::SeqCst) > 0 && std::time::Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(20));
                }
                log("shut down");
                std::process::exit(0);
            }
        })
        .map_err(|e| format!("cannot start the signal thread: {e}"))?;
    Ok(())
}

mod certificate;
mod connection;
mod metrics;
mod model;
mod origin;
mod review;
mod service;
mod snapshot;

use connection::{Limits, answer_busy, serve_connection};
use service::Answer;
pub use service::Service;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Clients;
    use super::connection::*;
    use super::service::*;

    /// One address gets at most `max` connections; others are not affected, and a slot comes
    /// back when a connection ends.
    #[test]
    fn connections_are_counted_per_client() {
        let clients = Clients::default();
        let (one, two): (std::net::IpAddr, std::net::IpAddr) =
            ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        assert!((0..3).all(|_| clients.enter(one, 3)));
        assert!(!clients.enter(one, 3));
        assert!(clients.enter(two, 3));
        clients.leave(one);
        assert!(clients.enter(one, 3));
        assert!(!clients.enter(one, 3));
    }

    #[test]
    fn admission_request_takes_group_and_version_from_api_version() {
        let request = admission_request(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "n"}}),
            None,
            "CREATE",
        );
        assert_eq!(
            request["kind"],
            json!({"group": "apps", "version": "v1", "kind": "Deployment"})
        );
        assert_eq!(request["namespace"], "n");
        let pod = admission_request(json!({"apiVersion": "v1", "kind": "Pod"}), None, "CREATE");
        assert_eq!(pod["kind"]["group"], "");
        assert_eq!(pod["kind"]["version"], "v1");
    }

    #[test]
    fn head_and_body_limits() {
        let too_big = b"POST /validate HTTP/1.1\r\nContent-Length: 99\r\n\r\n".to_vec();
        let answer = read_request(&mut &too_big[..], 10).unwrap_err().unwrap();
        assert_eq!(answer.0, 413);
        let mut long = b"GET /healthz HTTP/1.1\r\nX-A: ".to_vec();
        long.extend(std::iter::repeat_n(b'a', 20_000));
        let answer = read_request(&mut &long[..], 10).unwrap_err().unwrap();
        assert_eq!(answer.0, 431);
        // Ambiguous framing is refused (RFC 9112 §6.3): two lengths, equal or not, a sign, a
        // length beside Transfer-Encoding; Transfer-Encoding alone asks for a length.
        for (head, status) in [
            (
                &b"POST /v HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"[..],
                400,
            ),
            (
                b"POST /v HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
                400,
            ),
            (b"POST /v HTTP/1.1\r\nContent-Length: +2\r\n\r\n{}", 400),
            (b"POST /v HTTP/1.1\r\nContent-Length: -1\r\n\r\n{}", 400),
            (b"POST /v HTTP/1.1\r\nContent-Length: 2 2\r\n\r\n{}", 400),
            (b"POST /v HTTP/1.1\r\nContent-Length:\r\n\r\n{}", 400),
            (
                b"POST /v HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}",
                400,
            ),
            (
                b"POST /v HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                411,
            ),
            (
                b"POST /v HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n{}",
                413,
            ),
        ] {
            let answer = read_request(&mut &head[..], 10).unwrap_err().unwrap();
            assert_eq!(answer.0, status, "{}", String::from_utf8_lossy(head));
        }
        let ok = b"POST /validate HTTP/1.1\r\nContent-Length:  2 \r\n\r\n{}".to_vec();
        let (method, path, body) = read_request(&mut &ok[..], 10).unwrap();
        assert_eq!(
            (method.as_str(), path.as_str(), &body[..]),
            ("POST", "/validate", &b"{}"[..])
        );
    }
}
