//! `spreadlab serve` started on a free port of 127.0.0.1 with a throwaway CA (its certificate
//! names `localhost` and `127.0.0.1`), and HTTPS requests to it over TLS 1.3.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use rcgen::{BasicConstraints, Certificate, CertificateParams, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use serde_json::{Value, json};

/// A running `spreadlab serve`, killed when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub ca: CertificateDer<'static>,
    /// The CA in PEM (a webhook configuration's `caBundle`).
    pub ca_pem: String,
    pub dir: PathBuf,
    /// What the server logged after its address (drained so that it never blocks on a full pipe).
    pub log: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A fresh directory for one test's server.
pub fn server_dir(kind: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spreadlab-{kind}-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts `spreadlab serve <args> --cert … --key … --listen 127.0.0.1:0` with a fresh CA in
/// `dir`, and waits for its address.
pub fn serve(dir: PathBuf, args: &[&str]) -> Server {
    let (ca_cert, server_cert, server_key) = certificate_authority(&["localhost", "127.0.0.1"]);
    std::fs::write(dir.join("tls.crt"), server_cert.pem()).unwrap();
    std::fs::write(dir.join("tls.key"), server_key.serialize_pem()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_spreadlab"))
        .arg("serve")
        .args(args)
        .arg("--cert")
        .arg(dir.join("tls.crt"))
        .arg("--key")
        .arg(dir.join("tls.key"))
        .args(["--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("start spreadlab serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap());
    let mut before = String::new();
    let port = loop {
        let mut line = String::new();
        if lines.read_line(&mut line).unwrap() == 0 {
            panic!("spreadlab serve ended before listening:\n{before}");
        }
        if let Some(port) = line
            .split("listening on https://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|p| p.parse().ok())
        {
            break port;
        }
        before.push_str(&line);
    };
    let log = Arc::new(Mutex::new(before));
    let sink = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in lines.lines().map_while(Result::ok) {
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    Server {
        child,
        port,
        ca: ca_cert.der().clone(),
        ca_pem: ca_cert.pem(),
        dir,
        log,
    }
}

/// A fresh CA and a server certificate it signs for `names`: the CA's certificate, the server's
/// certificate and its key.
pub fn certificate_authority(names: &[&str]) -> (Certificate, Certificate, KeyPair) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let server_key = KeyPair::generate().unwrap();
    let names = names
        .iter()
        .map(|name| (*name).to_owned())
        .collect::<Vec<_>>();
    let server_cert = CertificateParams::new(names)
        .unwrap()
        .signed_by(&server_key, &issuer)
        .unwrap();
    (ca_cert, server_cert, server_key)
}

/// A client of `server` trusting its CA only, speaking `versions`.
pub fn client(
    server: &Server,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> ClientConfig {
    client_trusting(server.ca.clone(), versions)
}

/// A client trusting the CA certificate `ca` only, speaking `versions`.
pub fn client_trusting(
    ca: CertificateDer<'static>,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> ClientConfig {
    let mut roots = RootCertStore::empty();
    roots.add(ca).unwrap();
    ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_protocol_versions(versions)
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth()
}

/// One HTTPS request; the status and the JSON body.
pub fn request(server: &Server, method: &str, path: &str, body: &[u8]) -> (u16, Value) {
    let (status, text) = exchange(server, method, path, body);
    (status, serde_json::from_str(&text).expect("a JSON body"))
}

/// One HTTPS GET; the status and the body as text.
pub fn request_text(server: &Server, path: &str) -> (u16, String) {
    exchange(server, "GET", path, b"")
}

fn exchange(server: &Server, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let config = Arc::new(client(server, &[&rustls::version::TLS13]));
    let connection =
        ClientConnection::new(config, ServerName::try_from("localhost").unwrap()).unwrap();
    let socket = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    // As the API server's client (Go's net/http) does: the head and body records leave at once
    // instead of waiting for the first one's (delayed) acknowledgement.
    socket.set_nodelay(true).unwrap();
    let mut stream = StreamOwned::new(connection, socket);
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    stream.flush().unwrap();
    assert_eq!(
        stream.conn.protocol_version(),
        Some(rustls::ProtocolVersion::TLSv1_3)
    );
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("not an HTTP response: {text:?}"));
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, body.to_owned())
}

/// An AdmissionReview v1 for the CREATE of the Deployment `object` in `default`, with every
/// field the API server sends.
pub fn deployment_review(uid: &str, object: Value) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "userInfo": {"username": "kubernetes-admin"},
            "operation": "CREATE",
            "namespace": "default",
            "object": object,
        },
    })
}
