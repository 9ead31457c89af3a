//! Replays every input a fuzzer found a crash on (`tests/fuzz-regressions/`) through both fuzz
//! targets' bodies: each must now load and analyse without a panic.

use std::path::Path;

#[test]
fn every_fuzzing_finding_stays_fixed() {
    let root = Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"))
        .join("../../tests/fuzz-regressions");
    let mut replayed = 0;
    for target in ["load", "simulate"] {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap();
            spreadlab_conformance::fuzz::load_bytes(&data);
            spreadlab_conformance::fuzz::simulate_bytes(&data);
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no finding under {}", root.display());
}
