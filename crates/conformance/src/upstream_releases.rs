//! Which ported upstream tables each release checks: the base tables of `tests/upstream/` (the
//! v1.35 test files) with the per-release overrides of `tests/upstream-overrides/v1.NN/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use spreadlab_engine::KubeVersion;

use crate::upstream::{fixtures_root, yaml_files};

/// The tables release `version` checks, as (path, name relative to its tree): every base table
/// of `tests/upstream/` replaced by the nearest override of `tests/upstream-overrides/v1.N/`
/// (for a release after 1.35 the largest N with 35 < N <= release, before it the smallest N with
/// release <= N < 35), and the tables only an applicable override holds. The rule is
/// `tableFor` of `tests/oracle/tables_test.go`; tests/upstream/README.md "Per-release overrides".
pub fn tables_for(version: KubeVersion) -> Vec<(PathBuf, String)> {
    let base = fixtures_root().join("upstream");
    let overrides = fixtures_root().join("upstream-overrides");
    let relative = |root: &Path, path: &Path| {
        path.strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let mut tables: BTreeMap<String, PathBuf> = yaml_files(&base)
        .into_iter()
        .map(|path| (relative(&base, &path), path))
        .collect();
    let minor = version.minor();
    let mut applicable: Vec<u32> = KubeVersion::ALL
        .iter()
        .map(|v| v.minor())
        .filter(|&n| {
            if minor > 35 {
                n > 35 && n <= minor
            } else {
                n < 35 && n >= minor
            }
        })
        .collect();
    // Apply the farthest from 1.35 last, so the nearest to the release wins.
    applicable.sort_by_key(|&n| n.abs_diff(35));
    for n in applicable {
        let dir = overrides.join(format!("v1.{n}"));
        for path in yaml_files(&dir) {
            tables.insert(relative(&dir, &path), path);
        }
    }
    tables
        .into_iter()
        .map(|(name, path)| (path, name))
        .collect()
}
