//! A `kubectl get nodes -o yaml` answer as a real cloud cluster gives it (the parse benchmark's
//! input): per node about 8 KB, most of it `status.images`, as on nodes that have pulled a few
//! dozen images, with the annotations, labels, addresses, conditions and `nodeInfo` kubectl
//! prints. Only the text is synthetic; its shape follows the v1 Node object.

use std::fmt::Write;

/// The YAML of a `kind: List` of `nodes` nodes in three zones.
pub fn nodes_yaml(nodes: usize) -> String {
    let mut out = String::with_capacity(nodes * 8_400 + 64);
    out.push_str("apiVersion: v1\nitems:\n");
    for i in 0..nodes {
        node(&mut out, i);
    }
    out.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    out
}

fn node(out: &mut String, i: usize) {
    let zone = ["us-east-1a", "us-east-1b", "us-east-1c"][i % 3];
    let name = format!(
        "ip-10-{}-{}-{}.ec2.internal",
        i / 65_536 % 256,
        i / 256 % 256,
        i % 256
    );
    let instance = format!("i-0{i:016x}");
    let _ = write!(
        out,
        r#"- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      alpha.kubernetes.io/provided-node-ip: 10.0.{a}.{b}
      csi.volume.kubernetes.io/nodeid: '{{"ebs.csi.aws.com":"{instance}","efs.csi.aws.com":"{instance}"}}'
      node.alpha.kubernetes.io/ttl: "0"
      volumes.kubernetes.io/controller-managed-attach-detach: "true"
    creationTimestamp: "2026-11-0{day}T10:{min:02}:00Z"
    labels:
      beta.kubernetes.io/arch: amd64
      beta.kubernetes.io/instance-type: m6i.8xlarge
      beta.kubernetes.io/os: linux
      eks.amazonaws.com/capacityType: ON_DEMAND
      eks.amazonaws.com/nodegroup: general-{group}
      eks.amazonaws.com/nodegroup-image: ami-0123456789abcdef0
      failure-domain.beta.kubernetes.io/region: us-east-1
      failure-domain.beta.kubernetes.io/zone: {zone}
      k8s.io/cloud-provider-aws: 4b6f0e1c2d3a4b5c6d7e8f9a0b1c2d3e
      kubernetes.io/arch: amd64
      kubernetes.io/hostname: {name}
      kubernetes.io/os: linux
      node.kubernetes.io/instance-type: m6i.8xlarge
      topology.ebs.csi.aws.com/zone: {zone}
      topology.k8s.aws/zone-id: use1-az{az}
      topology.kubernetes.io/region: us-east-1
      topology.kubernetes.io/zone: {zone}
    name: {name}
    resourceVersion: "{rv}"
    uid: 7c1f{i:04x}-2b3c-4d5e-8f90-{i:012x}
  spec:
    providerID: aws:///{zone}/{instance}
  status:
    addresses:
    - address: 10.0.{a}.{b}
      type: InternalIP
    - address: {name}
      type: InternalDNS
    - address: {name}
      type: Hostname
    allocatable:
      cpu: 31750m
      ephemeral-storage: "95491281146"
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: 124029868Ki
      pods: "110"
    capacity:
      cpu: "32"
      ephemeral-storage: 104845292Ki
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: 130426796Ki
      pods: "110"
    conditions:
"#,
        a = i / 256 % 256,
        b = i % 256,
        day = 1 + i % 9,
        min = i % 60,
        group = i % 4,
        az = 1 + i % 3,
        rv = 1_000_000 + i,
    );
    for (kind, reason, status) in [
        ("MemoryPressure", "KubeletHasSufficientMemory", "False"),
        ("DiskPressure", "KubeletHasNoDiskPressure", "False"),
        ("PIDPressure", "KubeletHasSufficientPID", "False"),
        ("Ready", "KubeletReady", "True"),
    ] {
        let _ = write!(
            out,
            "    - lastHeartbeatTime: \"2026-12-04T09:58:12Z\"\n      lastTransitionTime: \"2026-11-01T10:00:40Z\"\n      message: kubelet status {reason}\n      reason: {reason}\n      status: \"{status}\"\n      type: {kind}\n"
        );
    }
    out.push_str(
        "    daemonEndpoints:\n      kubeletEndpoint:\n        Port: 10250\n    images:\n",
    );
    for image in 0..20 {
        let _ = write!(
            out,
            "    - names:\n      - 602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/app-{image:02}@sha256:{digest:064x}\n      - 602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/app-{image:02}:v1.{minor}.{image}\n      sizeBytes: {size}\n",
            digest = (image as u128 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834),
            minor = i % 30,
            size = 10_000_000 + image * 1_234_567,
        );
    }
    let _ = write!(
        out,
        "    nodeInfo:\n      architecture: amd64\n      bootID: 0b1c2d3e-{i:04x}-4f5a-8b9c-0d1e2f3a4b5c\n      containerRuntimeVersion: containerd://1.7.27\n      kernelVersion: 6.1.132-147.221.amzn2023.x86_64\n      kubeProxyVersion: v1.35.4-eks-1234567\n      kubeletVersion: v1.35.4-eks-1234567\n      machineID: ec2{i:029x}\n      operatingSystem: linux\n      osImage: Amazon Linux 2023.7.20250414\n      systemUUID: ec2{i:029x}\n"
    );
}

#[cfg(test)]
mod tests {
    /// The text is what the benchmark claims: about 8 KB a node, and every node loads.
    #[test]
    fn nodes_load() {
        let text = super::nodes_yaml(20);
        assert!(
            (7_000..10_000).contains(&(text.len() / 20)),
            "{}",
            text.len() / 20
        );
        let loaded = spreadlab_k8s::load(
            &[spreadlab_k8s::Source {
                name: "nodes.yaml".into(),
                text,
            }],
            &spreadlab_k8s::LoadOptions::default(),
        );
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        assert_eq!(loaded.cluster.nodes.len(), 20);
    }
}
