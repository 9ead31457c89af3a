#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, the driver cargo-fuzz uses) of the loader and the analyses,
# on stable Rust: the same instrumentation flags cargo-fuzz passes with `--sanitizer none`.
#   scripts/fuzz.sh [seconds-per-target] [target...]   (default 60 s; targets: load simulate)
# Corpora grow in $HOME/.cache/spreadlab/fuzz/corpus/<target>, seeded from tests/scenarios and
# tests/fuzz-regressions; a crash is written to $HOME/.cache/spreadlab/fuzz/artifacts/<target>/
# and fails the run: copy it to tests/fuzz-regressions/<target>/ (cargo test replays it).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(load simulate)
cache="$HOME/.cache/spreadlab/fuzz"
host=$(rustc -vV | sed -n 's/^host: //p')
# --target keeps build scripts and proc macros uninstrumented, as cargo-fuzz does.
export CARGO_TARGET_DIR="$cache/target"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
cargo build -q --release --locked --manifest-path fuzz/Cargo.toml --target "$host" --bins
status=0
for target in "${targets[@]}"; do
  corpus="$cache/corpus/$target"
  artifacts="$cache/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  # Seeds, named by content as libFuzzer names its corpus files.
  for seed in tests/scenarios/*/*.yaml tests/corpus/*/*.yaml tests/corpus/*/*.json tests/corpus/*/*/*.yaml \
      "tests/fuzz-regressions/$target"/*; do
    [ -f "$seed" ] || continue
    [ "$(stat -c %s "$seed")" -le 65536 ] || continue
    cp -n "$seed" "$corpus/$(sha1sum "$seed" | cut -d' ' -f1)"
  done
  # libFuzzer replays its whole corpus before the clock starts: a short run works on a sample of
  # at most 1,000 inputs (file names are content hashes, so the first 1,000 are a fair sample),
  # and what it finds goes back to the corpus.
  run="$corpus"
  if [ "$seconds" -le 300 ] && [ "$(ls "$corpus" | wc -l)" -gt 1000 ]; then
    run=$(mktemp -d)
    ls "$corpus" | sort | sed -n '1,1000p' | while read -r f; do cp "$corpus/$f" "$run/"; done
  fi
  echo "== fuzz $target for ${seconds}s (corpus $(ls "$corpus" | wc -l) inputs, $(ls "$run" | wc -l) replayed)"
  if ! "$CARGO_TARGET_DIR/$host/release/$target" "$run" \
      -max_total_time="$seconds" -seed=1 -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 2>"$cache/$target.log"; then
    status=1
    tail -40 "$cache/$target.log"
    echo "fuzz $target: a finding is in $artifacts" >&2
  else
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' "$cache/$target.log" || tail -3 "$cache/$target.log"
  fi
  if [ "$run" != "$corpus" ]; then
    cp -n "$run"/* "$corpus"/ 2>/dev/null || true
    rm -rf "$run"
  fi
done
exit "$status"
