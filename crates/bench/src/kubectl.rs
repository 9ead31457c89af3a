//! A `kubectl get nodes -o yaml` answer as a real cloud cluster gives it (the parse benchmark's
//! input): per node about 8 KB, most of it `status.images`, as on nodes that have pulled a few
//! dozen images, with the annotations, labels, addresses, conditions and `nodeInfo` kubectl
//! prints. `kubectl get nodes,pods -A -o yaml` (the playground's big drop) adds running
//! Deployment pods of about 3 KB each, with the managed fields, ownership, volumes and status
//! kubectl prints. Only the text is synthetic; its shape follows the v1 Node and Pod objects.

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

/// The YAML of a `kind: List` of `nodes` nodes in three zones and `pods` running pods of 50
/// Deployments spread over them (`kubectl get nodes,pods -A -o yaml`).
pub fn nodes_and_pods_yaml(nodes: usize, pods: usize) -> String {
    let mut out = String::with_capacity(nodes * 8_400 + pods * 3_300 + 64);
    out.push_str("apiVersion: v1\nitems:\n");
    for i in 0..nodes {
        node(&mut out, i);
    }
    for i in 0..pods {
        pod(&mut out, i, nodes.max(1));
    }
    out.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    out
}

fn node_name(i: usize) -> String {
    format!(
        "ip-10-{}-{}-{}.ec2.internal",
        i / 65_536 % 256,
        i / 256 % 256,
        i % 256
    )
}

fn pod(out: &mut String, i: usize, nodes: usize) {
    let app = format!("service-{:02}", i % 50);
    let hash = format!("c{:09x}", (i % 50) * 7_919 + 1_000_003);
    let suffix = format!("{:05x}", i * 2_654_435_761 % 1_048_576);
    let node = node_name(i * 7 % nodes);
    let namespace = ["payments", "search", "checkout", "inference"][i % 4];
    let _ = write!(
        out,
        r#"- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      kubectl.kubernetes.io/restartedAt: "2026-11-20T08:00:00Z"
      prometheus.io/port: "9090"
      prometheus.io/scrape: "true"
    creationTimestamp: "2026-11-2{day}T08:{min:02}:00Z"
    generateName: {app}-{hash}-
    labels:
      app.kubernetes.io/name: {app}
      app.kubernetes.io/part-of: shop
      pod-template-hash: {hash}
    name: {app}-{hash}-{suffix}
    namespace: {namespace}
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: ReplicaSet
      name: {app}-{hash}
      uid: 5d2e{i:04x}-aaaa-4bbb-8ccc-{hash:0>12}
    resourceVersion: "{rv}"
    uid: 9a8b{i:04x}-1c2d-4e3f-9a0b-{i:012x}
  spec:
    containers:
    - env:
      - name: LOG_LEVEL
        value: info
      - name: POD_NAME
        valueFrom:
          fieldRef:
            apiVersion: v1
            fieldPath: metadata.name
      image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/{app}:v2.{minor}.0
      imagePullPolicy: IfNotPresent
      livenessProbe:
        failureThreshold: 3
        httpGet:
          path: /healthz
          port: 8080
          scheme: HTTP
        periodSeconds: 10
        successThreshold: 1
        timeoutSeconds: 1
      name: {app}
      ports:
      - containerPort: 8080
        name: http
        protocol: TCP
      resources:
        limits:
          memory: 1Gi
        requests:
          cpu: 250m
          memory: 512Mi
      terminationMessagePath: /dev/termination-log
      terminationMessagePolicy: File
      volumeMounts:
      - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
        name: kube-api-access-{suffix}
        readOnly: true
    dnsPolicy: ClusterFirst
    enableServiceLinks: true
    nodeName: {node}
    preemptionPolicy: PreemptLowerPriority
    priority: 0
    restartPolicy: Always
    schedulerName: default-scheduler
    securityContext: {{}}
    serviceAccountName: default
    terminationGracePeriodSeconds: 30
    tolerations:
    - effect: NoExecute
      key: node.kubernetes.io/not-ready
      operator: Exists
      tolerationSeconds: 300
    - effect: NoExecute
      key: node.kubernetes.io/unreachable
      operator: Exists
      tolerationSeconds: 300
    topologySpreadConstraints:
    - labelSelector:
        matchLabels:
          app.kubernetes.io/name: {app}
      maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
    volumes:
    - name: kube-api-access-{suffix}
      projected:
        defaultMode: 420
        sources:
        - serviceAccountToken:
            expirationSeconds: 3607
            path: token
        - configMap:
            items:
            - key: ca.crt
              path: ca.crt
            name: kube-root-ca.crt
  status:
    conditions:
    - lastProbeTime: null
      lastTransitionTime: "2026-11-2{day}T08:{min:02}:05Z"
      status: "True"
      type: Initialized
    - lastProbeTime: null
      lastTransitionTime: "2026-11-2{day}T08:{min:02}:09Z"
      status: "True"
      type: Ready
    - lastProbeTime: null
      lastTransitionTime: "2026-11-2{day}T08:{min:02}:01Z"
      status: "True"
      type: PodScheduled
    containerStatuses:
    - containerID: containerd://{i:064x}
      image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/{app}:v2.{minor}.0
      imageID: 123456789012.dkr.ecr.us-east-1.amazonaws.com/{app}@sha256:{hash:0>64}
      lastState: {{}}
      name: {app}
      ready: true
      restartCount: 0
      started: true
      state:
        running:
          startedAt: "2026-11-2{day}T08:{min:02}:07Z"
    hostIP: 10.0.{a}.{b}
    phase: Running
    podIP: 10.1.{a}.{b}
    qosClass: Burstable
    startTime: "2026-11-2{day}T08:{min:02}:01Z"
"#,
        day = i % 9,
        min = i % 60,
        rv = 2_000_000 + i,
        minor = i % 7,
        a = i / 256 % 256,
        b = i % 256,
    );
}

fn node(out: &mut String, i: usize) {
    let zone = ["us-east-1a", "us-east-1b", "us-east-1c"][i % 3];
    let name = node_name(i);
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

    /// Pods of about 3 KB (text size alone: 40 MB is 1,000 nodes and 8,500 pods), every one read
    /// without error and bound to its node.
    #[test]
    fn nodes_and_pods_load() {
        let text = super::nodes_and_pods_yaml(10, 100);
        let pods_bytes = text.len() - super::nodes_yaml(10).len();
        assert!(
            (3_000..5_000).contains(&(pods_bytes / 100)),
            "{}",
            pods_bytes / 100
        );
        let loaded = spreadlab_k8s::load(
            &[spreadlab_k8s::Source {
                name: "cluster.yaml".into(),
                text,
            }],
            &spreadlab_k8s::LoadOptions::default(),
        );
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        assert_eq!(loaded.cluster.nodes.len(), 10);
        assert_eq!(loaded.cluster.pods.len(), 100);
        assert!(loaded.cluster.pods.iter().all(|p| p.node_name.is_some()));
    }
}
