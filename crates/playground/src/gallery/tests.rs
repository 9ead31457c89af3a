//! The gallery's search, and its public scenarios against the outcomes their sources state
//! (tests/corpus/DOCUMENTED.md quotes them).

use super::*;
use crate::model::analyse;

#[test]
fn search_matches_every_word_in_any_field() {
    assert_eq!(search("").len(), EXAMPLES.len() + PUBLIC.len());
    let ids = |q: &str| search(q).iter().map(|e| e.id).collect::<Vec<_>>();
    assert_eq!(ids("KWOK"), ["kwok-regions"]);
    assert_eq!(ids("docs conflicting"), ["docs-conflicting-constraints"]);
    // Sources are searchable: the recorded seed scenarios say where their answers come from.
    assert!(ids("recorded").contains(&"gpu-three-zones-one-full"));
    assert!(!ids("recorded").contains(&"docs-one-constraint"));
    assert!(ids("no such words at all").is_empty());
}

/// Where `mypod` went (`None`: Pending), and the zone label of that node.
fn mypod(text: &str) -> Option<String> {
    let analysis = analyse(text);
    assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
    let decision = analysis
        .decisions()
        .iter()
        .find(|d| d.name == "mypod")
        .expect("mypod is scheduled");
    decision.node.clone()
}

fn public(id: &str) -> Entry {
    *PUBLIC.iter().find(|e| e.id == id).expect("entry")
}

#[test]
fn public_scenarios_give_the_outcomes_their_sources_state() {
    // "the incoming Pod can only be placed onto a node in zone B"
    let node = mypod(&public("docs-one-constraint").text());
    assert!(
        matches!(node.as_deref(), Some("node3" | "node4")),
        "{node:?}"
    );
    // "the only valid placement is onto node node4"
    assert_eq!(
        mypod(&public("docs-two-constraints").text()).as_deref(),
        Some("node4")
    );
    // "the Pod mypod stays in the Pending state"
    assert_eq!(mypod(&public("docs-conflicting-constraints").text()), None);
    // KWOK: "All pods are evenly distributed ... across the regions": two per region.
    let analysis = analyse(&public("kwok-regions").text());
    assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
    let mut per_region = std::collections::BTreeMap::new();
    for node in analysis
        .decisions()
        .iter()
        .filter_map(|d| d.node.as_deref())
    {
        let region = if node == "node-1" || node == "node-2" {
            "us-west-1"
        } else {
            "us-west-2"
        };
        *per_region.entry(region).or_insert(0) += 1;
    }
    assert_eq!(
        per_region.into_iter().collect::<Vec<_>>(),
        [("us-west-1", 2), ("us-west-2", 2)]
    );
}

#[test]
fn every_entry_loads() {
    for entry in entries() {
        let analysis = analyse(&entry.text());
        assert!(
            analysis.errors.is_empty(),
            "{}: {:?}",
            entry.id,
            analysis.errors
        );
        assert!(analysis.node_count > 0, "{}", entry.id);
    }
}
