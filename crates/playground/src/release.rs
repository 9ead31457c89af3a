//! The Kubernetes release the playground mirrors: the engine options an analysis runs with.

use spreadlab_engine::KubeVersion;
use spreadlab_engine::scheduler::{Detail, Options};

use crate::model::{Analysis, analyse_for};

/// The engine's options for `version`: per-node detail for Pending pods (placed pods' on demand).
pub(crate) fn options_for(version: KubeVersion) -> Options {
    Options {
        detail: Detail::PendingOnly,
        ..Options::for_version(version)
    }
}

impl Analysis {
    /// The engine's options this analysis ran with (its release; what-ifs start from them).
    pub fn options(&self) -> Options {
        options_for(self.version)
    }
}

/// [`analyse_for`] with the default release.
pub fn analyse(text: &str) -> Analysis {
    analyse_for(text, KubeVersion::DEFAULT)
}
