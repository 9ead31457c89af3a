#!/usr/bin/env python3
"""Writes the stored admission requests (validate payloads) of crates/policy/test_data from the seed
fixtures: one CREATE request per scenario under tests/scenarios (the first workload of its
workload.yaml) and the hand-described cases below built from tests/analyses/*.yaml. Expected
verdicts are NOT written here: the tests derive them from each scenario's expected.jsonl (the real
kube-scheduler's output) or state them next to the fixture they come from.

Usage: python3 crates/policy/test_data/generate.py   (from the repository root; needs PyYAML)
"""
import copy
import json
import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = pathlib.Path(__file__).resolve().parent

GROUPS = {"Deployment": "apps", "StatefulSet": "apps", "ReplicaSet": "apps", "Pod": ""}
RESOURCES = {"Deployment": "deployments", "StatefulSet": "statefulsets",
             "ReplicaSet": "replicasets", "Pod": "pods"}


def request(obj, operation="CREATE", old=None, uid="0"):
    kind = obj["kind"]
    gvk = {"group": GROUPS[kind], "version": "v1", "kind": kind}
    meta = obj.get("metadata", {})
    req = {
        "uid": uid,
        "kind": gvk,
        "resource": {"group": GROUPS[kind], "version": "v1", "resource": RESOURCES[kind]},
        "requestKind": gvk,
        "name": meta.get("name", ""),
        "namespace": meta.get("namespace", "default"),
        "operation": operation,
        "userInfo": {"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]},
        "object": obj,
        "oldObject": old,
        "dryRun": False,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions" if operation == "CREATE" else "UpdateOptions"},
    }
    return req


def write(name, settings, req):
    payload = {"settings": settings, "request": req}
    (OUT / f"{name}.json").write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")


def docs(path):
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def workloads(path, kinds=("Deployment", "StatefulSet", "ReplicaSet")):
    return [d for d in docs(path) if d.get("kind") in kinds]


def main():
    for scenario in sorted((ROOT / "tests/scenarios").iterdir()):
        if not (scenario / "workload.yaml").exists():
            continue
        first = workloads(scenario / "workload.yaml")[0]
        write(f"scenario-{scenario.name}", {}, request(first))

    analyses = ROOT / "tests/analyses"
    # rollout-gpu-busy: the Deployment in the file is the new revision; the old one runs the
    # image of the pods in the snapshot (v0.6.0).
    new = workloads(analyses / "rollout-gpu-busy.yaml")[0]
    old = copy.deepcopy(new)
    old["spec"]["template"]["spec"]["containers"][0]["image"] = "vllm/vllm-openai:v0.6.0"
    write("rollout-gpu-busy-update", {"rejectPending": False, "rejectRolloutStall": True},
          request(new, "UPDATE", old))
    # The same Deployment scaled without a template change: the running pods are its replicas.
    relabelled = copy.deepcopy(old)
    relabelled["metadata"]["labels"] = {"team": "inference"}
    write("rollout-gpu-busy-relabel", {"rejectRolloutStall": True}, request(relabelled, "UPDATE", old))

    spread = workloads(analyses / "spread-three-zones.yaml")[0]
    write("spread-three-zones-survival-removed", {"minZoneLossSurvival": 1.0}, request(spread))
    write("spread-three-zones-survival-unreachable",
          {"minZoneLossSurvival": 1.0, "zoneLossMode": "unreachable"}, request(spread))
    write("spread-three-zones-min-domains",
          {"requiredTopologyKeys": [{"topologyKey": "topology.kubernetes.io/zone", "minDomains": 3}],
           "maxSkew": 1, "requireDoNotSchedule": True}, request(spread))

    # Static rules on the GPU scenario's Deployment without its spread constraint.
    gpu = workloads(ROOT / "tests/scenarios/gpu-three-zones-one-full/workload.yaml")[0]
    bare = copy.deepcopy(gpu)
    del bare["spec"]["template"]["spec"]["topologySpreadConstraints"]
    write("static-no-zone-spread",
          {"rejectPending": False,
           "requiredTopologyKeys": [{"topologyKey": "topology.kubernetes.io/zone"}]},
          request(bare))
    write("mutate-no-zone-spread", {"rejectPending": False, "mutate": True}, request(bare))
    soft = copy.deepcopy(gpu)
    soft["spec"]["template"]["spec"]["topologySpreadConstraints"][0].update(
        {"maxSkew": 3, "whenUnsatisfiable": "ScheduleAnyway"})
    write("static-soft-wide-spread",
          {"rejectPending": False, "maxSkew": 1, "requireDoNotSchedule": True}, request(soft))

    # Other kinds: the GPU Deployment as a StatefulSet, a single Pod of its template, and a
    # ReplicaSet owned by a Deployment (skipped by default: its owner was checked).
    stateful = copy.deepcopy(gpu)
    stateful["kind"] = "StatefulSet"
    stateful["spec"]["serviceName"] = "infer"
    write("statefulset-gpu-three-zones", {}, request(stateful))
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "infer-single", "namespace": "default", "labels": {"app": "infer"}},
           "spec": copy.deepcopy(gpu["spec"]["template"]["spec"])}
    write("pod-gpu-three-zones", {}, request(pod))
    replica_set = copy.deepcopy(gpu)
    replica_set["kind"] = "ReplicaSet"
    replica_set["metadata"]["name"] = "infer-4b7cc445dc"
    replica_set["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "infer", "uid": "d-1", "controller": True}]
    write("replicaset-owned-gpu-three-zones", {}, request(replica_set))
    write("replicaset-owned-checked-gpu-three-zones",
          {"scope": {"checkControlledObjects": True}}, request(replica_set))

    # Malformed: the object is not an object; a Deployment without a selector.
    broken = request(gpu)
    broken["object"] = ["not", "an", "object"]
    write("malformed-object", {}, broken)
    no_selector = copy.deepcopy(gpu)
    del no_selector["spec"]["selector"]
    write("malformed-no-selector", {}, request(no_selector))
    write("malformed-no-selector-warn", {"onUnparseable": "warn"}, request(no_selector))


if __name__ == "__main__":
    main()
