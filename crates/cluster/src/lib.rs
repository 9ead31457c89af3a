//! Reading a live cluster: connects to its API server with a kubeconfig (or in-cluster), lists
//! exactly the kinds spreadlab's loader reads ([`KINDS`], paginated), slims every object to what
//! scheduling reads, and hands the pages to the loader as sources (the user's files go on top,
//! replacing objects of the same identity, as with snapshot files). [`ClusterRead::write_snapshot`]
//! writes the same objects as a replayable JSON List. [`Watched`] keeps a cluster in memory with
//! watches, for `spreadlab serve`.

mod error;
mod kinds;
mod read;
mod slim;
mod watch;

use std::io::{self, Write};

pub use error::ReadError;
pub use kinds::{KINDS, Kind};
pub use read::{Cluster, ClusterRead, PAGE_SIZE, Page, Progress, Target};
pub use slim::slim;
use spreadlab_k8s::Source;
pub use watch::{Changed, Objects, View, Watched};

/// A `v1` `List` of borrowed items, as the loader reads one.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct List<'a> {
    api_version: &'static str,
    kind: &'static str,
    items: &'a [serde_json::Value],
}

impl ClusterRead {
    /// Objects read, every kind together.
    pub fn objects(&self) -> usize {
        self.pages.iter().map(|page| page.items.len()).sum()
    }

    /// Each page as a loader source (a `List` of typed items), named by server, path and page so
    /// that a loader message points at the object's place.
    pub fn sources(&self) -> Vec<Source> {
        self.pages
            .iter()
            .map(|page| Source {
                name: format!(
                    "{} {} (page {})",
                    self.server,
                    page.kind.path(),
                    page.number
                ),
                // Written from the page's items in place (no copy of them first).
                text: serde_json::to_string(&List {
                    api_version: "v1",
                    kind: "List",
                    items: &page.items,
                })
                .expect("JSON values always serialise"),
            })
            .collect()
    }

    /// Writes every object as one JSON `List`, an object per line (slimmed: what scheduling
    /// reads), which every spreadlab face reads back as it reads `kubectl get -o json`.
    pub fn write_snapshot(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{{\"apiVersion\":\"v1\",\"kind\":\"List\",")?;
        writeln!(
            out,
            "\"metadata\":{{\"annotations\":{{\"spreadlab.dev/snapshot-of\":{},\"spreadlab.dev/snapshot-context\":{}}}}},",
            serde_json::Value::String(self.server.clone()),
            serde_json::Value::String(self.context.clone())
        )?;
        write!(out, "\"items\":[")?;
        let mut first = true;
        for item in self.pages.iter().flat_map(|page| &page.items) {
            out.write_all(if first { b"\n" } else { b",\n" })?;
            first = false;
            serde_json::to_writer(&mut *out, item)?;
        }
        writeln!(out, "\n]}}")?;
        Ok(())
    }
}
