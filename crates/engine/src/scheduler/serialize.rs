//! `serde::Serialize` for the scheduler's decision types (feature `serde`), in the JSON shapes
//! of docs/json-schema.md: statuses as `{plugin, code, reasons}`, scores per plugin, the spread
//! arithmetic and the (anti-)affinity matches behind a Pending pod.

use alloc::vec::Vec;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::{
    AffinityExplanation, AffinityRule, Explanation, NodeVerdict, PluginScore, PreemptionReport,
    SpreadExplanation,
};
use crate::framework::Status;

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Status", 3)?;
        s.serialize_field("plugin", &self.plugin.map(|p| p.as_str()))?;
        s.serialize_field("code", self.code.as_str())?;
        s.serialize_field("reasons", &self.reason_strings())?;
        s.end()
    }
}

impl Serialize for PluginScore {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("PluginScore", 4)?;
        s.serialize_field("plugin", self.plugin.as_str())?;
        s.serialize_field("raw", &self.raw)?;
        s.serialize_field("normalized", &self.normalized)?;
        s.serialize_field("weighted", &self.weighted)?;
        s.end()
    }
}

impl Serialize for NodeVerdict {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("NodeVerdict", 4)?;
        s.serialize_field("node", &self.node)?;
        s.serialize_field("filter", &self.filter)?;
        s.serialize_field("scores", &self.scores)?;
        s.serialize_field("total", &self.total)?;
        s.end()
    }
}

impl Serialize for SpreadExplanation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("SpreadExplanation", 8)?;
        s.serialize_field("topologyKey", &self.topology_key)?;
        s.serialize_field("maxSkew", &self.max_skew)?;
        s.serialize_field("minDomains", &self.min_domains)?;
        s.serialize_field("selector", &self.selector)?;
        s.serialize_field("domains", &self.domains)?;
        s.serialize_field("globalMinimum", &self.global_minimum)?;
        s.serialize_field("minDomainsForcedZero", &self.min_domains_forced_zero)?;
        s.serialize_field("selfMatch", &self.self_match)?;
        s.end()
    }
}

/// One pod that matched a required term.
struct AffinityMatch<'a>(
    &'a (
        alloc::string::String,
        alloc::string::String,
        Option<alloc::string::String>,
    ),
);

impl Serialize for AffinityMatch<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (pod, node, value) = self.0;
        let mut s = serializer.serialize_struct("AffinityMatch", 3)?;
        s.serialize_field("pod", pod)?;
        s.serialize_field("node", node)?;
        s.serialize_field("topologyValue", value)?;
        s.end()
    }
}

impl Serialize for AffinityExplanation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let matches: Vec<AffinityMatch<'_>> = self.matches.iter().map(AffinityMatch).collect();
        let mut s = serializer.serialize_struct("AffinityExplanation", 6)?;
        s.serialize_field(
            "rule",
            match self.rule {
                AffinityRule::Affinity => "affinity",
                AffinityRule::AntiAffinity => "antiAffinity",
                AffinityRule::ExistingAntiAffinity => "existingAntiAffinity",
            },
        )?;
        s.serialize_field("owner", &self.owner)?;
        s.serialize_field("topologyKey", &self.topology_key)?;
        s.serialize_field("selector", &self.selector)?;
        s.serialize_field("matches", &matches)?;
        s.serialize_field("matchCount", &self.match_count)?;
        s.end()
    }
}

impl Serialize for Explanation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let pre_filter: Vec<&Status> = self.pre_filter.iter().map(|(_, status)| status).collect();
        let mut s = serializer.serialize_struct("Explanation", 4)?;
        s.serialize_field("preFilter", &pre_filter)?;
        s.serialize_field("nodes", &self.nodes)?;
        s.serialize_field("spread", &self.spread)?;
        s.serialize_field("affinity", &self.affinity)?;
        s.end()
    }
}

impl Serialize for PreemptionReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("PreemptionReport", 8)?;
        s.serialize_field("nominatedNode", &self.nominated_node)?;
        s.serialize_field("victims", &self.victims)?;
        s.serialize_field("pdbViolations", &self.pdb_violations)?;
        s.serialize_field("firstAttemptMessage", &self.first_attempt_message)?;
        s.serialize_field("tiedCandidates", &self.tied_candidates)?;
        s.serialize_field("candidates", &self.candidates)?;
        s.serialize_field("candidatesSampled", &self.candidates_sampled)?;
        s.serialize_field("placed", &self.placed)?;
        s.end()
    }
}
