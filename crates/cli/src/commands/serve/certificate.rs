//! The server's certificate, read again when its files change (cert-manager renews it in place;
//! a Kubernetes secret volume swaps its files atomically). Each TLS handshake asks
//! [`Reloading::resolve`], which looks at the files' modification times at most once a second
//! and swaps in the new certificate only once the chain and the key both read and match; a failed
//! read keeps the current one and says why in the log (once per change).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

/// How often the files' modification times are looked at.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// The certificate and key files and what was last read from them.
pub struct Reloading {
    cert: PathBuf,
    key: PathBuf,
    provider: Arc<CryptoProvider>,
    state: Mutex<State>,
}

struct State {
    current: Arc<CertifiedKey>,
    /// Modification times of the certificate and key files as last read (or last rejected).
    stamps: (Option<SystemTime>, Option<SystemTime>),
    checked: Instant,
}

impl std::fmt::Debug for Reloading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reloading")
            .field("cert", &self.cert)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The PEM chain and key of `cert` and `key`, checked to match.
pub fn load(cert: &Path, key: &Path, provider: &CryptoProvider) -> Result<CertifiedKey, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("{}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{}: no PEM certificate", cert.display()));
    }
    let private =
        PrivateKeyDer::from_pem_file(key).map_err(|e| format!("{}: {e}", key.display()))?;
    CertifiedKey::from_der(chain, private, provider)
        .map_err(|e| format!("{} and {}: {e}", cert.display(), key.display()))
}

impl Reloading {
    /// Reads the files once; they must read now.
    pub fn new(
        cert: &Path,
        key: &Path,
        provider: Arc<CryptoProvider>,
    ) -> Result<Reloading, String> {
        let stamps = (modified(cert), modified(key));
        let current = Arc::new(load(cert, key, &provider)?);
        Ok(Reloading {
            cert: cert.to_owned(),
            key: key.to_owned(),
            provider,
            state: Mutex::new(State {
                current,
                stamps,
                checked: Instant::now(),
            }),
        })
    }

    /// The certificate to present now, read again first when the files changed.
    fn current(&self) -> Arc<CertifiedKey> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.checked.elapsed() >= CHECK_EVERY {
            state.checked = Instant::now();
            let stamps = (modified(&self.cert), modified(&self.key));
            if stamps != state.stamps {
                state.stamps = stamps;
                match load(&self.cert, &self.key, &self.provider) {
                    Ok(renewed) => {
                        state.current = Arc::new(renewed);
                        super::log(&format!("certificate {} read again", self.cert.display()));
                    }
                    Err(error) => super::log(&format!(
                        "certificate not replaced, the current one stays: {error}"
                    )),
                }
            }
        }
        Arc::clone(&state.current)
    }
}

impl ResolvesServerCert for Reloading {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}
