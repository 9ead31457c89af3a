#!/usr/bin/env bash
# Records what one release's oracle (the real kube-scheduler of that release, built by build.sh)
# prints on every testdata/*.yaml, into testdata/recorded/v<release>/<scenario>.out.jsonl:
#   ./record.sh <1.34|1.35|1.36|1.37>
# TestRecorded compares the oracle of that release with these files. They are never edited by
# hand: after a deliberate oracle change, rerun this for every release and review the diff.
set -euo pipefail
cd "$(dirname "$0")"
version="${1:?usage: record.sh <1.34|1.35|1.36|1.37>}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
./build.sh "$version" "$tmp/oracle"
release="$("$tmp/oracle" -version)"
case "$release" in
  "v$version".*) ;;
  *) echo "record.sh: the $version build says it is $release" >&2; exit 1 ;;
esac
dir="testdata/recorded/v$version"
mkdir -p "$dir"
for f in testdata/*.yaml; do
  "$tmp/oracle" "$f" > "$dir/$(basename "$f" .yaml).out.jsonl"
done
echo "recorded $release output of $(ls testdata/*.yaml | wc -l) scenarios in $dir"
