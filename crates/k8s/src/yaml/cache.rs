//! Parsed YAML documents kept by their text: a stream read again after an edit parses only the
//! documents whose text changed (the playground reads its whole editor after every edit).

use std::collections::HashMap;

use super::list::{self, ListSplit, parse_list, parse_split};
use super::{BodyParse, ItemStarts, parse_whole};
use crate::raw::Limits;

/// Text kept at most, over all documents: a document's tree takes several times its text. Room
/// for a 40 MB `kubectl get nodes,pods -A -o yaml` snapshot, read item by item.
const MAX_CACHED_BYTES: usize = 48 << 20;

/// The read mark of a warmed entry: kept until a read takes it ([`DocumentCache::warm`]).
const WARMED: u64 = u64::MAX;

/// A document longer than this is not kept whole (a big `kubectl get -o yaml` List is kept item
/// by item instead: an edit in one item parses that item).
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
    /// The same for the items of big `kind: List` documents (their text moved two columns left,
    /// parsed under the item's limits: kept apart from documents).
    items: HashMap<String, (BodyParse, u64)>,
    /// Bytes of text the entries hold.
    bytes: usize,
    /// The depth limit the entries were parsed under.
    max_depth: Option<usize>,
    /// The current read.
    generation: u64,
    /// Documents parsed and taken from the cache in the last read.
    last: CacheReads,
    /// The big Lists a finished warm-up took apart (each document's text and its split), for
    /// the read that follows it: it takes a List apart again only if its text changed. Dropped
    /// by that read.
    warmed_lists: Vec<(String, ListSplit)>,
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
        self.limit_depth(limits);
        self.generation += 1;
        self.last = CacheReads::default();
    }

    /// Empties the cache when its entries were parsed under another depth limit.
    fn limit_depth(&mut self, limits: &Limits) {
        if self.max_depth != Some(limits.max_depth) {
            self.entries.clear();
            self.items.clear();
            self.warmed_lists.clear();
            self.bytes = 0;
            self.max_depth = Some(limits.max_depth);
        }
    }

    /// The parse of one document's text: kept, or parsed now (and kept when it fits). A big
    /// List is read through the item cache (and where its items begin is returned too).
    pub(crate) fn parse(&mut self, body: &str, limits: &Limits) -> (BodyParse, ItemStarts) {
        let generation = self.generation;
        if let Some(parsed) = self.take(body, false, generation) {
            return (parsed, None);
        }
        let warmed = (self.warmed_lists.iter().position(|(text, _)| text == body))
            .map(|at| self.warmed_lists.swap_remove(at).1);
        let parse_items = |items: Vec<String>, item_limits: &Limits| {
            items
                .iter()
                .map(|item| self.cached(item, item_limits, true, generation))
                .collect()
        };
        let parsed = match warmed {
            Some(split) => parse_split(split, limits, parse_items),
            None => parse_list(body, limits, parse_items),
        };
        match parsed {
            Some((parsed, starts)) => (parsed, Some(starts)),
            None => (self.parse_kept(body, limits, false, generation), None),
        }
    }

    /// The parse of a document's text (`item`: a List item's), kept or parsed now, marked as
    /// used by read `generation`.
    fn cached(&mut self, text: &str, limits: &Limits, item: bool, generation: u64) -> BodyParse {
        match self.take(text, item, generation) {
            Some(parsed) => parsed,
            None => self.parse_kept(text, limits, item, generation),
        }
    }

    /// Parses a text as one whole, and keeps the parse when it fits.
    fn parse_kept(
        &mut self,
        text: &str,
        limits: &Limits,
        item: bool,
        generation: u64,
    ) -> BodyParse {
        self.last.parsed += 1;
        let parsed = parse_whole(text, limits);
        self.keep(text, &parsed, item, generation);
        parsed
    }

    /// A kept parse, marked as used by read `generation`.
    fn take(&mut self, text: &str, item: bool, generation: u64) -> Option<BodyParse> {
        let map = if item {
            &mut self.items
        } else {
            &mut self.entries
        };
        let (parsed, used) = map.get_mut(text)?;
        *used = generation;
        self.last.reused += 1;
        Some(parsed.clone())
    }

    /// Keeps a parse when it fits the bounds (a warmed document of any size: the read it is
    /// warmed for takes it).
    fn keep(&mut self, text: &str, parsed: &BodyParse, item: bool, generation: u64) {
        let fits = text.len() <= MAX_CACHED_DOCUMENT_BYTES || generation == WARMED;
        if fits && self.bytes + text.len() <= MAX_CACHED_BYTES {
            self.bytes += text.len();
            let map = if item {
                &mut self.items
            } else {
                &mut self.entries
            };
            map.insert(text.to_string(), (parsed.clone(), generation));
        }
    }

    /// Prepares reading `text` in slices ([`DocumentCache::warm`]): a caller that must not block
    /// (a browser's main thread) parses a big text a few items at a time between frames, then
    /// reads it with `load_cached`, which finds every part in the cache.
    pub fn warm_up(&mut self, text: &str, options: &crate::LoadOptions) -> Warmup {
        let limits = options.limits();
        self.limit_depth(&limits);
        let mut documents = Vec::new();
        // As `load` reads it: a byte order mark is not content; an oversized text is not read.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.len() <= options.max_bytes && !crate::raw::looks_like_json(text) {
            documents = super::split(text, limits.max_documents)
                .into_iter()
                .take_while(|segment| segment.index < limits.max_documents)
                .map(|segment| segment.start..segment.end)
                .collect();
        }
        let bytes: usize = documents.iter().map(|d| d.len()).sum();
        self.warmed_lists.clear();
        // Room for the new text: what the cache holds now is of an older one.
        if self.bytes + bytes > MAX_CACHED_BYTES {
            self.entries.clear();
            self.items.clear();
            self.bytes = 0;
        }
        Warmup {
            documents,
            next_document: 0,
            splitting: None,
            lists: Vec::new(),
            item_limits: list::item_limits(&limits),
            pieces: Vec::new(),
            next: 0,
            planned: 0,
            parsed: 0,
            pieces_bytes: 0,
            bytes,
            limits,
        }
    }

    /// Parses the next pieces of a [`Warmup`] into the cache, at least one step and about
    /// `max_bytes` of text, and tells how far it is. A big List is first taken apart into its
    /// items, a slice at a time too; pieces parse as the next read through the cache will (and
    /// are kept for it); `text` is the text `warm_up` was given.
    pub fn warm(&mut self, warmup: &mut Warmup, text: &str, max_bytes: usize) -> WarmupProgress {
        // Kept until a read uses them (reads meanwhile do not drop them); the last read's
        // counts stay.
        let generation = WARMED;
        let last = self.last;
        // The text `warm_up` planned: after its byte order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let start = warmup.progress().done;
        loop {
            let spent = warmup.progress().done - start;
            if spent > 0 && spent >= max_bytes {
                break;
            }
            if warmup.plan(text, max_bytes - spent) {
                continue;
            }
            let Some(piece) = warmup.pieces.get(warmup.next) else {
                break;
            };
            warmup.next += 1;
            warmup.parsed += piece.len();
            match piece {
                Piece::Item { list, item, .. } => {
                    let (_, split, limits) = &warmup.lists[*list];
                    self.cached(&split.items[*item], limits, true, generation)
                }
                Piece::Document(range) => {
                    self.cached(&text[range.clone()], &warmup.limits, false, generation)
                }
            };
        }
        self.last = last;
        let progress = warmup.progress();
        if progress.finished() && !warmup.lists.is_empty() {
            // Kept for the read that follows, which then need not take them apart again (once:
            // a call after the end finds them handed over already).
            self.warmed_lists = (warmup.lists.drain(..))
                .map(|(range, split, _)| (text[range].to_owned(), split))
                .collect();
        }
        progress
    }

    /// Ends a read: only the documents it read are kept (and no List warmed for it).
    pub(crate) fn finish(&mut self) {
        self.warmed_lists.clear();
        let generation = self.generation;
        let mut bytes = 0;
        for map in [&mut self.entries, &mut self.items] {
            map.retain(|text, (_, used)| {
                // Used by this read, or warmed and not read yet.
                let keep = *used >= generation;
                if keep {
                    bytes += text.len();
                }
                keep
            });
        }
        self.bytes = bytes;
    }
}

/// A text being read in slices ([`DocumentCache::warm_up`]): its documents, each big List taken
/// apart into its items as the slices reach it, then every piece parsed.
#[derive(Debug)]
pub struct Warmup {
    /// The documents' byte ranges, and the next one to plan.
    documents: Vec<core::ops::Range<usize>>,
    next_document: usize,
    /// A List document being taken apart, and the limits its items are read under.
    splitting: Option<(core::ops::Range<usize>, list::Splitting, Limits)>,
    /// The Lists taken apart (each document's range, split and item limits): their items are
    /// pieces, and a finished warm-up hands them to the cache for the read.
    lists: Vec<(core::ops::Range<usize>, ListSplit, Limits)>,
    /// The limits a List item is read under (`None`: items are not read apart).
    item_limits: Option<Limits>,
    /// What to parse, planned so far, and the next one.
    pieces: Vec<Piece>,
    next: usize,
    /// Bytes of text planned (documents looked at), parsed (of pieces), and in the pieces.
    planned: usize,
    parsed: usize,
    pieces_bytes: usize,
    /// Bytes of the documents.
    bytes: usize,
    limits: Limits,
}

impl Warmup {
    /// How far it is: planning counts each document's bytes once, parsing each piece's; until
    /// every document is planned, the pieces still to find are counted as their documents' text.
    fn progress(&self) -> WarmupProgress {
        let unplanned = self.bytes - self.planned;
        WarmupProgress {
            done: self.planned + self.parsed,
            total: self.bytes + self.pieces_bytes + unplanned,
        }
    }

    /// Plans about `max_bytes` more of the text, or `false` when every document is planned.
    fn plan(&mut self, text: &str, max_bytes: usize) -> bool {
        let (range, mut splitting, limits) = match self.splitting.take() {
            Some(current) => current,
            None => {
                let Some(range) = self.documents.get(self.next_document).cloned() else {
                    return false;
                };
                self.next_document += 1;
                let body = &text[range.clone()];
                match self.item_limits.zip(list::Splitting::start(body)) {
                    Some((limits, splitting)) => (range, splitting, limits),
                    None => {
                        self.planned += range.len();
                        self.push(Piece::Document(range));
                        return true;
                    }
                }
            }
        };
        let before = splitting.scanned();
        let step = splitting.advance(&text[range.clone()], max_bytes);
        self.planned += splitting.scanned() - before;
        match step {
            list::Step::More => self.splitting = Some((range, splitting, limits)),
            list::Step::Done(split) => {
                // The rest of the document (a last line the scan stopped before).
                self.planned += range.len() - splitting.scanned();
                match split {
                    Some(split) => {
                        let list = self.lists.len();
                        for (item, text) in split.items.iter().enumerate() {
                            let len = text.len();
                            self.push(Piece::Item { list, item, len });
                        }
                        self.lists.push((range, split, limits));
                    }
                    None => self.push(Piece::Document(range)),
                }
            }
        }
        true
    }

    fn push(&mut self, piece: Piece) {
        self.pieces_bytes += piece.len();
        self.pieces.push(piece);
    }
}

/// How far a [`Warmup`] is, in bytes of text taken apart and parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarmupProgress {
    /// Bytes parsed so far.
    pub done: usize,
    /// Bytes in all.
    pub total: usize,
}

impl WarmupProgress {
    /// Whether every piece is parsed.
    pub fn finished(&self) -> bool {
        self.done >= self.total
    }
}

/// One piece of a [`Warmup`].
#[derive(Debug)]
enum Piece {
    /// A document's byte range in the text.
    Document(core::ops::Range<usize>),
    /// Item `item` of List `list` of [`Warmup::lists`] (its text moved two columns left), and
    /// its length.
    Item {
        list: usize,
        item: usize,
        len: usize,
    },
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Document(range) => range.len(),
            Piece::Item { len, .. } => *len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_files::pod_list;
    use crate::{LoadOptions, Source, load, load_cached};

    fn read(text: &str, cache: Option<&mut DocumentCache>) -> String {
        let sources = [Source {
            name: "pods.yaml".into(),
            text: text.into(),
        }];
        let loaded = match cache {
            Some(cache) => load_cached(&sources, &LoadOptions::default(), cache),
            None => load(&sources, &LoadOptions::default()),
        };
        format!("{:?}", (loaded.cluster, loaded.errors, loaded.warnings))
    }

    #[test]
    fn a_finished_warm_up_keeps_its_lists_split_for_the_same_text_only() {
        let text = pod_list(900);
        assert!(text.len() > list::MIN_SPLIT_BYTES);
        // The same length: only the text tells them apart.
        let edited = text.replacen("name: web-450\n", "name: web-45x\n", 1);
        assert_eq!(edited.len(), text.len());
        for (read_first, what) in [(&text, "the warmed text"), (&edited, "an edited text")] {
            let mut cache = DocumentCache::new();
            let mut warmup = cache.warm_up(&text, &LoadOptions::default());
            while !cache.warm(&mut warmup, &text, 16 << 10).finished() {
                assert!(
                    cache.warmed_lists.is_empty(),
                    "kept before the warm-up finished"
                );
            }
            // A call after the end changes nothing.
            assert!(cache.warm(&mut warmup, &text, 16 << 10).finished());
            assert_eq!(cache.warmed_lists.len(), 1);
            assert_eq!(cache.warmed_lists[0].1.items.len(), 900);
            // The read takes the kept split when the text is the one warmed, takes the List
            // apart again otherwise; either way it reads as `load` does, and keeps nothing.
            assert_eq!(
                read(read_first, Some(&mut cache)),
                read(read_first, None),
                "{what}"
            );
            assert!(cache.warmed_lists.is_empty(), "{what}");
            assert_eq!(
                read(&edited, Some(&mut cache)),
                read(&edited, None),
                "{what}"
            );
        }
    }
}
