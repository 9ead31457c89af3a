#!/usr/bin/env bash
# The webhook's image, built and run as a container runtime would run it (not part of
# scripts/test.sh: it compiles spreadlab a second time, for musl; run it when the image or its
# build changes):
#   1. scripts/build-image.sh writes the image as an OCI archive (buildah here: no Docker engine);
#   2. the archive is unpacked as a runtime unpacks it (index -> manifest -> config and layers);
#      its config must name the non-root user serve.yaml runs as and the binary as entrypoint,
#      and its layers must hold that one file;
#   3. the image's own file system, as its user (chroot --userspec 65532:65532, nothing else
#      inside: no libc, shell or CA bundle), runs `spreadlab --version` and `spreadlab serve`
#      on a seed scenario's cluster, which must refuse the scenario's Deployment over TLS with
#      the message the real kube-scheduler v1.37 gave (tests/scenarios/*/expected-1.37.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
bash scripts/build-image.sh --tag spreadlab:test --archive "$work/image.tar"

# 2. Unpacked as a runtime does.
mkdir -p "$work/oci" "$work/rootfs"
tar -xf "$work/image.tar" -C "$work/oci"
blob() { echo "$work/oci/blobs/${1%%:*}/${1#*:}"; }
manifest=$(blob "$(jq -r '.manifests[0].digest' "$work/oci/index.json")")
config=$(blob "$(jq -r '.config.digest' "$manifest")")
[ "$(jq -r '.config.User' "$config")" = "65532:65532" ] || { echo "test-image: user is $(jq -c '.config.User' "$config")" >&2; exit 1; }
[ "$(jq -c '.config.Entrypoint' "$config")" = '["/usr/local/bin/spreadlab"]' ] || { echo "test-image: entrypoint is $(jq -c '.config.Entrypoint' "$config")" >&2; exit 1; }
for layer in $(jq -r '.layers[].digest' "$manifest"); do
  tar -xf "$(blob "$layer")" -C "$work/rootfs"
done
files=$(cd "$work/rootfs" && find . -type f -o -type l | sort | tr '\n' ' ')
[ "$files" = "./usr/local/bin/spreadlab " ] || { echo "test-image: the image holds $files" >&2; exit 1; }
size=$(stat -c %s "$work/rootfs/usr/local/bin/spreadlab")
layers=$(jq '[.layers[].size] | add' "$manifest")

# 3. Run from the image's file system, as the image's user.
as_image() { chroot --userspec=65532:65532 "$work/rootfs" /usr/local/bin/spreadlab "$@"; }
version=$(as_image --version)
case "$version" in spreadlab\ *) ;; *) echo "test-image: --version printed $version" >&2; exit 1 ;; esac
id=gpu-three-zones-one-full
mkdir -p "$work/rootfs/data"
cp "tests/scenarios/$id/cluster.yaml" "$work/rootfs/data/cluster.yaml"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost -keyout "$work/rootfs/data/tls.key" -out "$work/rootfs/data/tls.crt" 2>/dev/null
chmod -R a+rX "$work/rootfs/data"
# chroot executes the binary in its own process: $! is serve's pid.
chroot --userspec=65532:65532 "$work/rootfs" /usr/local/bin/spreadlab serve --snapshot /data/cluster.yaml \
  --cert /data/tls.crt --key /data/tls.key --listen 127.0.0.1:0 --shutdown-delay 0 >"$work/serve.log" 2>&1 &
server=$!
port=
for _ in $(seq 1 100); do
  port=$(sed -nE 's/.*listening on https:\/\/127\.0\.0\.1:([0-9]+).*/\1/p' "$work/serve.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "test-image: serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
https() { curl -sS --cacert "$work/rootfs/data/tls.crt" --resolve "localhost:$port:127.0.0.1" "$@"; }
for _ in $(seq 1 100); do
  [ "$(https -o /dev/null -w '%{http_code}' "https://localhost:$port/readyz" || true)" = 200 ] && break
  sleep 0.1
done
# The scenario's Deployment (tests/scenarios/gpu-three-zones-one-full/workload.yaml) as the API
# server sends it.
review='{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
  "uid": "image-test", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
  "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
  "name": "infer", "namespace": "default", "operation": "CREATE",
  "userInfo": {"username": "test"},
  "object": {"apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "infer", "namespace": "default"},
    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "infer"}},
      "template": {"metadata": {"labels": {"app": "infer"}},
        "spec": {"containers": [{"name": "server", "image": "vllm/vllm-openai:v0.6.0",
          "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"nvidia.com/gpu": "1"}}}],
          "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "infer"}}}]}}}}}}'
answer=$(https -H 'Content-Type: application/json' --data "$review" "https://localhost:$port/validate")
expected=$(jq -r 'select(.node == null) | .message' "tests/scenarios/$id/expected-1.37.jsonl" | head -1)
[ "$(jq -r '.response.allowed' <<<"$answer")" = false ] || { echo "test-image: admitted: $answer" >&2; exit 1; }
message=$(jq -r '.response.status.message' <<<"$answer")
case "$message" in
  *"$expected"*) ;;
  *) echo "test-image: the answer $message does not carry the real scheduler's $expected" >&2; exit 1 ;;
esac
echo "test-image: ok: the image (layers $layers bytes; binary $size bytes, the only file) runs $version as 65532:65532 and refuses the Deployment: $message"
