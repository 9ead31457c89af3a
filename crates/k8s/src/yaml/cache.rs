//! Parsed YAML documents kept by their text: a stream read again after an edit parses only the
//! documents whose text changed (the playground reads its whole editor after every edit).

use std::collections::HashMap;

use super::{BodyParse, parse_body};
use crate::raw::Limits;

/// Text kept at most, over all documents: a document's tree takes several times its text.
const MAX_CACHED_BYTES: usize = 16 << 20;

/// A document longer than this is parsed every time (a whole `kubectl get -o yaml` List is one
/// document: keeping its tree would hold hundreds of megabytes for little gain).
const MAX_CACHED_DOCUMENT_BYTES: usize = 4 << 20;

/// The documents of the last read, by their exact text (from their `---` line to the next), with
/// what each parsed to. A read through the cache gives what a read without it gives: a
/// document's parse depends only on its text and the depth limit (a changed limit empties the
/// cache), and its lines are kept relative to its first line and placed again on each read.
/// After each read only that read's documents are kept, so the cache holds one stream at most.
#[derive(Debug, Default)]
pub struct DocumentCache {
    /// Document text to (its parse, the read that last used it).
    entries: HashMap<String, (BodyParse, u64)>,
    /// Bytes of text the entries hold.
    bytes: usize,
    /// The depth limit the entries were parsed under.
    max_depth: Option<usize>,
    /// The current read.
    generation: u64,
    /// Documents parsed and taken from the cache in the last read.
    last: CacheReads,
}

/// What a read through a [`DocumentCache`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheReads {
    /// Documents parsed (their text was not in the cache).
    pub parsed: usize,
    /// Documents taken from the cache.
    pub reused: usize,
}

impl DocumentCache {
    /// An empty cache.
    pub fn new() -> DocumentCache {
        DocumentCache::default()
    }

    /// What the last read through this cache parsed and reused.
    pub fn last_reads(&self) -> CacheReads {
        self.last
    }

    /// Starts a read under `limits`.
    pub(crate) fn begin(&mut self, limits: &Limits) {
        if self.max_depth != Some(limits.max_depth) {
            self.entries.clear();
            self.bytes = 0;
            self.max_depth = Some(limits.max_depth);
        }
        self.generation += 1;
        self.last = CacheReads::default();
    }

    /// The parse of one document's text: kept, or parsed now (and kept when it fits).
    pub(crate) fn parse(&mut self, body: &str, limits: &Limits) -> BodyParse {
        if let Some((parsed, used)) = self.entries.get_mut(body) {
            *used = self.generation;
            self.last.reused += 1;
            return parsed.clone();
        }
        self.last.parsed += 1;
        let parsed = parse_body(body, limits);
        if body.len() <= MAX_CACHED_DOCUMENT_BYTES && self.bytes + body.len() <= MAX_CACHED_BYTES {
            self.bytes += body.len();
            self.entries
                .insert(body.to_string(), (parsed.clone(), self.generation));
        }
        parsed
    }

    /// Ends a read: only the documents it read are kept.
    pub(crate) fn finish(&mut self) {
        let generation = self.generation;
        let mut bytes = 0;
        self.entries.retain(|text, (_, used)| {
            let keep = *used == generation;
            if keep {
                bytes += text.len();
            }
            keep
        });
        self.bytes = bytes;
    }
}
