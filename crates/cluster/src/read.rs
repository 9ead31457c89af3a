//! Connecting to an API server (a kubeconfig and its context, or the pod's in-cluster
//! configuration) and listing every kind of [`KINDS`] in pages, as `kubectl get` and client-go's
//! pager do: `limit` and `continue`, a whole relist when the continue token has expired
//! (`410 Gone`), a few retries on `429` and `5xx`.

use std::path::PathBuf;
use std::time::Duration;

use kube::api::ListParams;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde::Deserialize;
use serde_json::Value;

use crate::error::ReadError;
use crate::kinds::{KINDS, Kind};
use crate::slim::slim;

/// Objects asked for per page (kubectl's `--chunk-size` default).
pub const PAGE_SIZE: u32 = 500;
/// Attempts per page when the server answers `429` or `5xx`.
const ATTEMPTS: u32 = 4;

/// Which cluster to read: kubectl's flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// A kubeconfig file; `None`: `$KUBECONFIG` (its files merged) or `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// A context of the kubeconfig; `None`: its `current-context`.
    pub context: Option<String>,
    /// The pod's own service account and the `KUBERNETES_SERVICE_*` environment instead of a
    /// kubeconfig.
    pub in_cluster: bool,
    /// Objects per list request (kubectl's `--chunk-size`; 0: each kind in one request).
    pub chunk_size: u32,
}

impl Default for Target {
    fn default() -> Self {
        Target {
            kubeconfig: None,
            context: None,
            in_cluster: false,
            chunk_size: PAGE_SIZE,
        }
    }
}

/// A connection to one API server.
pub struct Cluster {
    client: Client,
    chunk_size: u32,
    runtime: tokio::runtime::Runtime,
    /// The server's URL.
    pub server: String,
    /// The context used (`in-cluster` for the in-cluster configuration).
    pub context: String,
}

/// How far a read has come, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// The kind being listed.
    pub kind: &'static Kind,
    /// Its objects read so far.
    pub items: usize,
    /// Kinds finished before it.
    pub kinds_done: usize,
    /// Kinds in all.
    pub kinds: usize,
}

/// One page of one kind, slimmed ([`crate::slim()`]).
#[derive(Clone, Debug)]
pub struct Page {
    /// The kind listed.
    pub kind: &'static Kind,
    /// 1-based page number.
    pub number: usize,
    /// The objects, each with its `kind` and `apiVersion`.
    pub items: Vec<Value>,
}

/// Everything read from one cluster.
#[derive(Clone, Debug)]
pub struct ClusterRead {
    /// The server's URL.
    pub server: String,
    /// The context used.
    pub context: String,
    /// Every page of every kind, in [`KINDS`] order.
    pub pages: Vec<Page>,
    /// Kinds this server does not serve (skipped), one message each.
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct ListPage {
    #[serde(default)]
    metadata: ListMeta,
    /// `null` is an empty list, as Go encodes one; absent is an error (not a list answer).
    items: Option<Vec<Value>>,
}

#[derive(Default, Deserialize)]
struct ListMeta {
    #[serde(default, rename = "continue")]
    continue_token: Option<String>,
}

impl Cluster {
    /// Connects to the cluster `target` names (nothing is sent until [`Cluster::read`]).
    pub fn connect(target: &Target) -> Result<Cluster, ReadError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ReadError::Config(format!("cannot start the client's runtime: {e}")))?;
        // Made inside the runtime: the client's service spawns its worker there.
        let (client, server, context) =
            runtime.block_on(client_for(target, Some(Duration::from_secs(120))))?;
        Ok(Cluster {
            client,
            chunk_size: target.chunk_size,
            runtime,
            server,
            context,
        })
    }

    /// Lists every kind of [`KINDS`], calling `progress` after each page.
    pub fn read(&self, progress: &mut dyn FnMut(Progress)) -> Result<ClusterRead, ReadError> {
        let mut read = ClusterRead {
            server: self.server.clone(),
            context: self.context.clone(),
            pages: Vec::new(),
            warnings: Vec::new(),
        };
        for (done, kind) in KINDS.iter().enumerate() {
            let mut report = |items| {
                progress(Progress {
                    kind,
                    items,
                    kinds_done: done,
                    kinds: KINDS.len(),
                })
            };
            match self.runtime.block_on(self.list(kind, &mut report))? {
                Some(pages) => read.pages.extend(pages),
                None => read.warnings.push(format!(
                    "{} ({}): the API server does not serve {} (`{}`); none read",
                    self.server,
                    self.context,
                    kind.plural,
                    kind.path()
                )),
            }
        }
        Ok(read)
    }

    /// Every page of `kind`; `None` when the server does not serve an optional kind.
    async fn list(
        &self,
        kind: &'static Kind,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Option<Vec<Page>>, ReadError> {
        let mut pages = Vec::new();
        let mut token: Option<String> = None;
        let mut limit = (self.chunk_size > 0).then_some(self.chunk_size);
        let mut items = 0;
        loop {
            let text = match self.page(kind, limit, token.as_deref()).await {
                Ok(text) => text,
                // The continue token expired (etcd compacted past it): list again in one piece,
                // as client-go's pager falls back to.
                Err(kube::Error::Api(status))
                    if status.code == 410 && token.is_some() && limit.is_some() =>
                {
                    pages.clear();
                    token = None;
                    limit = None;
                    items = 0;
                    continue;
                }
                Err(kube::Error::Api(status)) if status.code == 404 && !kind.required => {
                    return Ok(None);
                }
                Err(error) => return Err(ReadError::from_kube(kind, self, error)),
            };
            let page: ListPage = serde_json::from_str(&text).map_err(|e| ReadError::Invalid {
                what: format!("{} {} (page {})", self.server, kind.path(), pages.len() + 1),
                message: e.to_string(),
            })?;
            let Some(page_items) = page.items else {
                return Err(ReadError::Invalid {
                    what: format!("{} {} (page {})", self.server, kind.path(), pages.len() + 1),
                    message: "the answer has no `items`: not a list".into(),
                });
            };
            items += page_items.len();
            pages.push(Page {
                kind,
                number: pages.len() + 1,
                items: page_items
                    .into_iter()
                    .map(|item| slim(kind, item))
                    .collect(),
            });
            progress(items);
            match page.metadata.continue_token {
                Some(next) if !next.is_empty() && limit.is_some() => token = Some(next),
                _ => return Ok(Some(pages)),
            }
        }
    }

    /// One list request, retried with backoff on `429` and `5xx`.
    async fn page(
        &self,
        kind: &Kind,
        limit: Option<u32>,
        token: Option<&str>,
    ) -> Result<String, kube::Error> {
        let mut params = ListParams::default();
        if let Some(limit) = limit {
            params = params.limit(limit);
        }
        if let Some(token) = token {
            params = params.continue_token(token);
        }
        let mut delay = Duration::from_millis(200);
        for attempt in 1.. {
            let request = kube::core::Request::new(kind.path())
                .list(&params)
                .map_err(kube::Error::BuildRequest)?;
            match self.client.request_text(request).await {
                Err(kube::Error::Api(status))
                    if attempt < ATTEMPTS && (status.code == 429 || status.code >= 500) =>
                {
                    tokio::time::sleep(delay).await;
                    delay *= 4;
                }
                answer => return answer,
            }
        }
        unreachable!("the loop returns")
    }
}

/// A client for the cluster `target` names, with the server's URL and the context's name: 10 s
/// to connect, and `read_timeout` per read (`None`: kube-rs's, which outlasts a watch's own
/// server-side timeout). Called inside a Tokio runtime.
pub(crate) async fn client_for(
    target: &Target,
    read_timeout: Option<Duration>,
) -> Result<(Client, String, String), ReadError> {
    let (mut config, context) = config_for(target).await?;
    config.connect_timeout = Some(Duration::from_secs(10));
    if read_timeout.is_some() {
        config.read_timeout = read_timeout;
    }
    let server = config.cluster_url.to_string();
    let server = server.strip_suffix('/').unwrap_or(&server).to_owned();
    let client = Client::try_from(config).map_err(|e| {
        ReadError::Config(format!(
            "context \"{context}\" ({server}): {}",
            crate::error::chain(&e)
        ))
    })?;
    Ok((client, server, context))
}

/// The client configuration and the context's name.
async fn config_for(target: &Target) -> Result<(Config, String), ReadError> {
    if target.in_cluster {
        let config = Config::incluster().map_err(|e| {
            ReadError::Config(format!(
                "in-cluster configuration: {}",
                crate::error::chain(&e)
            ))
        })?;
        return Ok((config, "in-cluster".into()));
    }
    let (kubeconfig, origin) = match &target.kubeconfig {
        Some(path) => (Kubeconfig::read_from(path), path.display().to_string()),
        None => (
            Kubeconfig::read(),
            std::env::var("KUBECONFIG").unwrap_or_else(|_| "~/.kube/config".into()),
        ),
    };
    let kubeconfig = kubeconfig.map_err(|e| {
        ReadError::Config(format!("kubeconfig {origin}: {}", crate::error::chain(&e)))
    })?;
    let context = target
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
        .ok_or_else(|| {
            ReadError::Config(format!(
                "kubeconfig {origin}: no current-context; name one with --context"
            ))
        })?;
    let options = KubeConfigOptions {
        context: Some(context.clone()),
        ..KubeConfigOptions::default()
    };
    let config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| {
            ReadError::Config(format!(
                "kubeconfig {origin}, context \"{context}\": {}",
                crate::error::chain(&e)
            ))
        })?;
    Ok((config, context))
}
