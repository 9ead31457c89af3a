//! The bound on one simulation: every face holds at most [`bound::MAX_SIMULATED_PODS`] pods,
//! so a load checks its workloads' replicas against it once every object is read.

use spreadlab_engine::analysis::bound;

use crate::error::InputError;

use super::*;

impl Loader<'_> {
    /// Every face holds at most [`bound::MAX_SIMULATED_PODS`] pods in one simulation: the
    /// snapshot's pods plus the replicas built ([`Workload::replicas_to_build`]). A workload is
    /// an input error on its `spec.replicas` when it takes the total past it, or when its missing
    /// replicas are cut by that ceiling rather than by what fits (then the rest could not be
    /// counted as Pending).
    pub(super) fn check_simulated_pods(&mut self) {
        let cluster = &self.loaded.cluster;
        let mut total = cluster.pods.len();
        let last = self.loaded.workloads.len().saturating_sub(1);
        for (index, workload) in self.loaded.workloads.iter().enumerate() {
            // At most `replicas` (a Pod: 1) are missing. When that many are all built and stay
            // under the ceiling, nothing can be cut: the last workload (no later one counts its
            // total) needs no scan of the pods for its running ones (a decision's one object
            // on a big cluster).
            let most = usize::try_from(workload.replicas).unwrap_or(0).max(1);
            if index == last
                && most <= bound::ALWAYS_BUILT
                && total.saturating_add(most) <= bound::MAX_SIMULATED_PODS
            {
                return;
            }
            let (built, missing) = workload.replicas_to_build(cluster);
            total = total.saturating_add(built);
            // The bound reads every node: only when some replicas are not built, or for the
            // message.
            let fit = || bound::fit_bound(cluster, &workload.template);
            let cut_by_ceiling = built < missing && built <= fit();
            if total > bound::MAX_SIMULATED_PODS || cut_by_ceiling {
                let message = format!(
                    "{} replicas: up to {} of them could fit these nodes, and with the {} pods \
                     before them that is over the {} pods one simulation holds (lower \
                     spec.replicas, or load fewer objects)",
                    workload.replicas,
                    fit().min(missing),
                    total - built,
                    bound::MAX_SIMULATED_PODS,
                );
                self.loaded.errors.push(InputError {
                    file: workload.origin.file.clone(),
                    document: Some(workload.origin.document),
                    object: Some(workload.key()),
                    path: Some(String::from("spec.replicas")),
                    message,
                    ..InputError::default()
                });
                return;
            }
        }
    }
}
