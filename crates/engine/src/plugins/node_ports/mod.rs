//! NodePorts: a host port (IP, protocol, port) can be claimed by one pod per node.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodeports/node_ports.go` and
//! `framework.HostPortInfo.CheckConflict` in `types.go`.

mod filtering;

pub use filtering::{filter, pre_filter};

/// `ErrReason`.
pub const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

#[cfg(test)]
mod tests {
    use alloc::vec;

    use crate::framework::PodInfo;
    use crate::framework::testing::{node, pod, snapshot};
    use crate::model::{Container, ContainerPort};

    fn with_port(name: &str, ip: &str, port: i32, node_name: Option<&str>) -> crate::model::Pod {
        let mut p = pod(name, &[], node_name);
        p.containers.push(Container {
            name: "c".into(),
            ports: vec![ContainerPort {
                host_port: port,
                host_ip: ip.into(),
                protocol: "".into(),
                container_port: 80,
            }],
            ..Container::default()
        });
        p
    }

    /// 0.0.0.0 conflicts with any IP on the same protocol and port; other IPs do not conflict.
    #[test]
    fn wildcard_ip_conflicts() {
        let snap = snapshot(
            vec![node("a", &[])],
            vec![with_port("e", "127.0.0.1", 8080, Some("a"))],
        );
        let wildcard = PodInfo::new(with_port("p", "", 8080, None));
        assert_eq!(
            super::filter(&wildcard, &snap.nodes[0]).reasons()[0],
            super::ERR_REASON
        );
        let other_ip = PodInfo::new(with_port("q", "127.0.0.2", 8080, None));
        assert!(super::filter(&other_ip, &snap.nodes[0]).is_success());
        assert!(
            super::pre_filter(&PodInfo::new(pod("r", &[], None))).code
                == crate::framework::Code::Skip
        );
    }
}
