//! Revisions of a pod template: `pod-template-hash` in `matchLabelKeys` and the next revision of
//! a template (`pkg/controller/deployment/util/deployment_util.go`, the API server's
//! matchLabelKeys merge).

use alloc::format;
use alloc::string::String;

use super::*;
use crate::model::{Pod, Requirement, Selector, WhenUnsatisfiable};

/// The template with `pod-template-hash` added to (or removed from) its hard spread constraints'
/// `matchLabelKeys`, the selector merged as the API server does.
pub fn with_template_hash_key(template: &Pod, present: bool) -> Pod {
    let mut pod = template.clone();
    let hash = template.labels.get(LABEL_POD_TEMPLATE_HASH).cloned();
    for constraint in pod
        .topology_spread_constraints
        .iter_mut()
        .filter(|c| c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
    {
        let has = constraint
            .match_label_keys
            .iter()
            .any(|k| k == LABEL_POD_TEMPLATE_HASH);
        match (present, has, &hash) {
            (true, false, Some(hash)) => {
                constraint
                    .match_label_keys
                    .push(String::from(LABEL_POD_TEMPLATE_HASH));
                constraint.selector = constraint
                    .selector
                    .and([Requirement::equals(LABEL_POD_TEMPLATE_HASH, hash.as_str())]);
            }
            (false, true, _) => {
                constraint
                    .match_label_keys
                    .retain(|k| k != LABEL_POD_TEMPLATE_HASH);
                if let Selector::Requirements(requirements) = &mut constraint.selector {
                    requirements.retain(|r| r.key != LABEL_POD_TEMPLATE_HASH);
                }
            }
            _ => {}
        }
    }
    pod
}

/// The template after a change of its pod template (a new revision): `pod-template-hash`
/// becomes `<hash>-next` ([`with_template_hash`]). For rollouts of a workload whose only
/// replicas are the ones just placed from this very template, and for `kubectl rollout restart`.
pub fn next_revision(template: &Pod) -> Pod {
    let old = template
        .labels
        .get(LABEL_POD_TEMPLATE_HASH)
        .cloned()
        .unwrap_or_default();
    with_template_hash(template, &format!("{old}-next"))
}

/// The template after `kubectl rollout restart` (a `restartedAt` annotation: a new revision of
/// the same spec): [`next_revision`], and a StatefulSet's `controller-revision-hash` becomes
/// `<revision>-next`.
pub fn restarted(template: &Pod) -> Pod {
    let mut pod = next_revision(template);
    if !template.labels.contains_key(LABEL_POD_TEMPLATE_HASH) {
        pod.labels.remove(LABEL_POD_TEMPLATE_HASH);
    }
    if let Some(revision) = pod.labels.get_mut(LABEL_CONTROLLER_REVISION_HASH) {
        revision.push_str("-next");
    }
    pod
}

/// The template with `pod-template-hash` set to `hash` on the pod and in every constraint and
/// (anti-)affinity selector the API server merged the old value into (matchLabelKeys): the
/// Deployment's pods as the ReplicaSet of that hash creates them.
pub fn with_template_hash(template: &Pod, hash: &str) -> Pod {
    let mut pod = template.clone();
    let old = template.labels.get(LABEL_POD_TEMPLATE_HASH).cloned();
    pod.labels
        .insert(String::from(LABEL_POD_TEMPLATE_HASH), String::from(hash));
    let Some(old) = old else {
        return pod;
    };
    let rewrite = |selector: &mut Selector| {
        if let Selector::Requirements(requirements) = selector {
            for r in requirements
                .iter_mut()
                .filter(|r| r.key == LABEL_POD_TEMPLATE_HASH)
            {
                for value in r.values.iter_mut().filter(|v| **v == old) {
                    *value = String::from(hash);
                }
            }
        }
    };
    for c in &mut pod.topology_spread_constraints {
        rewrite(&mut c.selector);
    }
    for affinity in [
        pod.affinity.pod_affinity.as_mut(),
        pod.affinity.pod_anti_affinity.as_mut(),
    ]
    .into_iter()
    .flatten()
    {
        for term in &mut affinity.required {
            rewrite(&mut term.selector);
        }
        for weighted in &mut affinity.preferred {
            rewrite(&mut weighted.term.selector);
        }
    }
    pod
}

pub(super) fn uses_template_hash_key(pod: &Pod) -> bool {
    pod.topology_spread_constraints
        .iter()
        .filter(|c| c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
        .all(|c| {
            c.match_label_keys
                .iter()
                .any(|k| k == LABEL_POD_TEMPLATE_HASH)
        })
}
