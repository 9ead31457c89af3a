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
//! HTTP/1.1 is hyper's (on tokio, with tokio-rustls): one request per connection, each
//! connection a task. Bounds: request heads 16 KiB (431 past it, hyper), bodies `--max-body`
//! bytes (413 past it), `--timeout` per socket write and per wait for the body's next bytes,
//! `--request-timeout` for the whole request (TLS handshake, head and body: a client trickling
//! bytes gets 408 and loses its slot), `--eval-timeout` per decision (an error answer past it:
//! 503 on `/validate`, a `systemError` on `/gatekeeper`), `--max-connections` handled at once and
//! `--max-connections-per-client` from one address, the TLS handshake and request head within
//! `--header-timeout` (408: a slow client loses its slot quickly and a few of them cannot take
//! every slot), and `--max-decisions` decisions running at once (the machine's CPUs by default;
//! more wait for a slot within `--eval-timeout`, 503 when none frees; those past their deadline
//! count until they end). Past the connection limits a connection is answered 503 after a short
//! handshake deadline (at most 16 at once) or, past those, closed.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

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
    /// Socket write timeout, and the longest wait for the body's next bytes.
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

/// Handshake and write deadline of the overflow's 503 answers.
const OVERFLOW_DEADLINE: Duration = Duration::from_secs(1);
/// How long a closed connection's late input is read and dropped ([`connection`]'s linger).
const LINGER: Duration = Duration::from_millis(500);
/// Over-limit connections answered 503 at once; more are closed unanswered.
const OVERFLOW_AT_ONCE: usize = 16;
/// Blocking threads beside `--max-decisions` (the answers that are not decisions: health,
/// readiness, metrics, a snapshot's re-read).
const OTHER_ANSWERS: usize = 16;

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

/// How often, at least, the decisions' model is checked against the cluster's state (and built
/// again in the background when the cluster moved on); a watched cluster's events wake the check
/// sooner ([`Service::wait_for_change`]).
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
    {
        // Keeps the decisions' model following the cluster between requests.
        let service = Arc::clone(&service);
        std::thread::Builder::new()
            .name(String::from("spreadlab-model"))
            .spawn(move || {
                loop {
                    let seen = service.events();
                    service.refresh_model();
                    service.wait_for_change(seen, MODEL_REFRESH);
                }
            })
            .map_err(|e| format!("cannot start the model thread: {e}"))?;
    }
    // Connections are tasks on a few threads; decisions run on the blocking pool (at most
    // `--max-decisions` of them hold a slot, `Service::handle_within`).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .thread_name("spreadlab-serve")
        .max_blocking_threads(config.max_decisions.max(1) + OTHER_ANSWERS)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(serve(config, TlsAcceptor::from(tls), service))
}

/// Accepts connections until the process ends: each one within the connection limits is a task
/// ([`serve_connection`]); past them, or once draining, a few at once are answered 503
/// ([`answer_busy`]) and the rest closed.
async fn serve(config: &Config, tls: TlsAcceptor, service: Arc<Service>) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("{}: {e}", config.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    log(&format!("listening on https://{address} (TLS 1.3)"));
    let active = Arc::new(AtomicUsize::new(0));
    let overflowing = Arc::new(AtomicUsize::new(0));
    let clients = Arc::new(Clients::default());
    let draining = Arc::new(AtomicBool::new(false));
    shut_down_on_signal(
        Arc::clone(&service),
        Arc::clone(&active),
        Arc::clone(&draining),
        config,
    )?;
    let limits = Arc::new(Limits {
        max_body: config.max_body,
        read_timeout: config.timeout,
        header_timeout: config.header_timeout,
        request_timeout: config.request_timeout,
    });
    loop {
        let (tcp, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors, most likely: wait for connections to end.
                log(&format!("accept: {error}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let counted = if draining.load(Ordering::SeqCst) {
            None
        } else {
            admit(&active, &clients, peer.ip(), config)
        };
        let Some(counted) = counted else {
            // Dropped (closed) when as many are being answered already.
            if Counted::enter(&overflowing, OVERFLOW_AT_ONCE) {
                let (tls, overflowing) = (tls.clone(), Arc::clone(&overflowing));
                tokio::spawn(async move {
                    let _counted = Counted(overflowing, None);
                    answer_busy(tcp, tls).await;
                });
            }
            continue;
        };
        let (tls, service, limits) = (tls.clone(), Arc::clone(&service), Arc::clone(&limits));
        tokio::spawn(async move {
            // Counted out however the connection ends.
            let _counted = counted;
            serve_connection(tcp, tls, service, limits).await;
        });
    }
}

/// Counts a connection from `client` in, in all and among its client's: `None` (counted in
/// neither) past `--max-connections` or `--max-connections-per-client`.
fn admit(
    active: &Arc<AtomicUsize>,
    clients: &Arc<Clients>,
    client: std::net::IpAddr,
    config: &Config,
) -> Option<Counted> {
    if !Counted::enter(active, config.max_connections) {
        return None;
    }
    // Dropped, and so counted out again, when the client has its share already.
    let mut counted = Counted(Arc::clone(active), None);
    if !clients.enter(client, config.max_connections_per_client) {
        return None;
    }
    counted.1 = Some((Arc::clone(clients), client));
    Some(counted)
}

/// A connection counted in (and its client's, when `Some`); counted out when dropped.
struct Counted(Arc<AtomicUsize>, Option<(Arc<Clients>, std::net::IpAddr)>);

impl Counted {
    /// Counts one in when fewer than `max` are; `false` (not counted) otherwise.
    fn enter(count: &AtomicUsize, max: usize) -> bool {
        count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .is_ok()
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Some((clients, client)) = &self.1 {
            clients.leave(*client);
        }
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// On SIGTERM or SIGINT: not ready at once, still answering for `shutdown_delay` (the API
/// server and kube-proxy learn that the endpoint is going), then new connections are answered
/// 503 and the process waits for the running ones (at most `request_timeout` plus
/// `eval_timeout`) and exits 0.
fn shut_down_on_signal(
    service: Arc<Service>,
    active: Arc<AtomicUsize>,
    draining: Arc<AtomicBool>,
    config: &Config,
) -> Result<(), String> {
    use tokio::signal::unix::{SignalKind, signal};
    let cannot = |e: std::io::Error| format!("cannot handle signals: {e}");
    let mut terminate = signal(SignalKind::terminate()).map_err(cannot)?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(cannot)?;
    let delay = config.shutdown_delay;
    let drain = config.request_timeout + config.eval_timeout;
    tokio::spawn(async move {
        let signal = tokio::select! {
            _ = terminate.recv() => "SIGTERM",
            _ = interrupt.recv() => "SIGINT",
        };
        log(&format!(
            "{signal}: not ready; answering for {} s more, then draining",
            delay.as_secs_f64()
        ));
        service.begin_shutdown();
        tokio::time::sleep(delay).await;
        draining.store(true, Ordering::SeqCst);
        let deadline = tokio::time::Instant::now() + drain;
        while active.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        log("shut down");
        std::process::exit(0);
    });
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
}
