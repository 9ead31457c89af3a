//! `load_cached`: a read through a `DocumentCache` after an edit gives exactly what `load` gives
//! (objects, errors with their lines and columns, warnings), and parses only the changed
//! documents. Inputs: every YAML file of tests/corpus (public, sources in tests/corpus/SOURCES.md)
//! and tests/scenarios, each edited step by step as someone typing would.

mod common;

use common::files::{corpus_and_scenario_files, pod_list};
use spreadlab_k8s::{CacheReads, DocumentCache, LoadOptions, Loaded, Source, load, load_cached};

fn read(text: &str, cache: Option<&mut DocumentCache>) -> String {
    let sources = [Source {
        name: "edited.yaml".into(),
        text: text.into(),
    }];
    let options = LoadOptions::default();
    let loaded: Loaded = match cache {
        Some(cache) => load_cached(&sources, &options, cache),
        None => load(&sources, &options),
    };
    format!("{loaded:#?}")
}

/// The edits: each takes the text and a step number and gives the next text.
fn edit(text: &str, step: usize) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = (step * 7919) % lines.len().max(1);
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate() {
        if index == at {
            match step % 5 {
                // A comment line above: every later document moves down a line.
                0 => out.push_str("# typed\n"),
                // A character typed at the end of a line (may break its document).
                1 => {
                    out.push_str(line.trim_end_matches('\n'));
                    out.push_str(if line.ends_with('\n') { "x\n" } else { "x" });
                    continue;
                }
                // A line deleted.
                2 => continue,
                // A syntax error.
                3 => out.push_str("bad: [unclosed\n"),
                // A new document marker.
                _ => out.push_str("---\n"),
            }
        }
        out.push_str(line);
    }
    out
}

#[test]
fn a_cached_read_after_each_edit_equals_a_fresh_read() {
    let files = corpus_and_scenario_files();
    assert!(files.len() > 50, "{} files", files.len());
    let mut documents_reused = 0;
    for path in &files {
        let original = std::fs::read_to_string(path).expect("utf-8 file");
        let mut cache = DocumentCache::new();
        let mut text = original.clone();
        assert_eq!(
            read(&text, Some(&mut cache)),
            read(&text, None),
            "{}",
            path.display()
        );
        // The same text again: nothing is parsed.
        assert_eq!(read(&text, Some(&mut cache)), read(&text, None));
        assert_eq!(cache.last_reads().parsed, 0, "{}", path.display());
        for step in 0..6 {
            text = edit(&text, step);
            let cached = read(&text, Some(&mut cache));
            assert_eq!(
                cached,
                read(&text, None),
                "{} after edit {step}",
                path.display()
            );
            let CacheReads { parsed, reused } = cache.last_reads();
            // One edit touches at most two documents (a marker splits one).
            assert!(parsed <= 2, "{}: {parsed} parsed", path.display());
            documents_reused += reused;
        }
        // Back to the original: as read first.
        assert_eq!(read(&original, Some(&mut cache)), read(&original, None));
    }
    assert!(
        documents_reused > 100,
        "{documents_reused} documents reused"
    );
}

#[test]
fn an_edit_in_one_document_parses_that_document_only() {
    let node = |i: usize| {
        format!(
            "---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\nstatus: {{allocatable: {{cpu: '4', pods: '110'}}}}\n"
        )
    };
    let text: String = (0..50).map(node).collect();
    let mut cache = DocumentCache::new();
    read(&text, Some(&mut cache));
    assert_eq!(
        cache.last_reads(),
        CacheReads {
            parsed: 50,
            reused: 0
        }
    );
    let edited = text.replace("name: n7}", "name: n7x}");
    assert_eq!(read(&edited, Some(&mut cache)), read(&edited, None));
    assert_eq!(
        cache.last_reads(),
        CacheReads {
            parsed: 1,
            reused: 49
        }
    );
    // A syntax error is located where a fresh read locates it, after lines were added above it.
    let broken = format!(
        "# one\n# two\n{}",
        edited.replace("name: n9}", "name: [n9}")
    );
    let fresh = read(&broken, None);
    assert!(fresh.contains("line: Some("), "{fresh}");
    assert_eq!(read(&broken, Some(&mut cache)), fresh);
    let moved = format!("# three\n{broken}");
    assert_eq!(read(&moved, Some(&mut cache)), read(&moved, None));
    // Only the first document's text changed: comments above the first `---` belong to it.
    assert_eq!(
        cache.last_reads(),
        CacheReads {
            parsed: 1,
            reused: 49
        }
    );
}

#[test]
fn a_big_list_warmed_in_slices_reads_from_the_cache_and_an_edit_parses_its_item() {
    let text = pod_list(600);
    assert!(text.len() > 256 << 10);
    let options = LoadOptions::default();
    let mut cache = DocumentCache::new();
    // Slices of about 16 KB, as a page between frames: progress grows to the whole text.
    // The text starts with a byte order mark, as a file saved on Windows may; reads of another
    // text meanwhile (someone typing while it loads) do not drop what was warmed.
    let text = format!("\u{feff}{text}");
    let mut warmup = cache.warm_up(&text, &options);
    let mut slices = 0;
    let mut last = 0;
    loop {
        let progress = cache.warm(&mut warmup, &text, 16 << 10);
        assert!(progress.done > last && progress.done <= progress.total);
        last = progress.done;
        slices += 1;
        if slices % 5 == 0 {
            read("kind: Pod\n", Some(&mut cache));
        }
        if progress.finished() {
            break;
        }
    }
    assert!(slices > 10, "{slices} slices");
    // The read finds every item parsed: nothing is parsed again, and the result is `load`'s.
    assert_eq!(read(&text, Some(&mut cache)), read(&text, None));
    assert_eq!(
        cache.last_reads(),
        CacheReads {
            parsed: 0,
            reused: 600
        }
    );
    // An edit in one item parses that item alone.
    let edited = text.replacen("name: web-300\n", "name: web-300x\n", 1);
    assert_eq!(read(&edited, Some(&mut cache)), read(&edited, None));
    assert_eq!(
        cache.last_reads(),
        CacheReads {
            parsed: 1,
            reused: 599
        }
    );
    // A syntax error in an item: the whole List is read as one (its error located as `load`
    // locates it); back to the text, only the item that read did not use is parsed again (a
    // read keeps what it used).
    let broken = text.replacen("name: web-300\n", "name: [web-300\n", 1);
    assert_eq!(read(&broken, Some(&mut cache)), read(&broken, None));
    assert_eq!(read(&text, Some(&mut cache)), read(&text, None));
    assert_eq!(
        cache.last_reads(),
        CacheReads {
            parsed: 1,
            reused: 599
        }
    );
}

/// `Loaded::same_scenario_as` (what lets the playground keep a placement without building the
/// scenario) never says "same" for loads whose scenarios differ: every corpus and scenario file,
/// each of the edits above applied in turn, each load compared with the one before it. A comment
/// keeps the scenario; a replica count changed does not.
#[test]
fn same_scenario_as_implies_equal_scenarios() {
    let options = LoadOptions::default();
    let load_text = |text: &str| {
        let sources = [Source {
            name: "edited.yaml".into(),
            text: text.into(),
        }];
        load(&sources, &options)
    };
    let (mut same, mut compared) = (0, 0);
    for path in corpus_and_scenario_files() {
        let original = std::fs::read_to_string(&path).expect("utf-8 file");
        let mut previous = load_text(&original);
        let mut text = original.clone();
        for step in 0..6 {
            text = edit(&text, step);
            let next = load_text(&text);
            compared += 1;
            if next.same_scenario_as(&previous) {
                same += 1;
                assert_eq!(
                    next.scenario(),
                    previous.scenario(),
                    "{} after edit {step}",
                    path.display()
                );
            }
            previous = next;
        }
    }
    // Comments are two edits in six; lines typed into or deleted also often keep the scenario.
    assert!(same * 5 >= compared, "{same} of {compared} kept");

    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: web}]}\n";
    let base = load_text(deployment);
    assert!(load_text(&format!("# typed\n{deployment}")).same_scenario_as(&base));
    assert!(!load_text(&deployment.replace("replicas: 3", "replicas: 4")).same_scenario_as(&base));
    // An autoscaler's maxReplicas is part of the scenario (no corpus file has one).
    let scaled = |max: u32| {
        load_text(&format!(
            "{deployment}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: {max}\n"
        ))
    };
    assert_ne!(scaled(5).scenario(), scaled(6).scenario());
    assert!(!scaled(5).same_scenario_as(&scaled(6)));
    assert!(scaled(5).same_scenario_as(&scaled(5)));
}
