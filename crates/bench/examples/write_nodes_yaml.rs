//! Writes the parse row's `kubectl get nodes -o yaml` text: `-- NODES FILE`, or with `PODS`
//! running pods as `kubectl get nodes,pods -A -o yaml` prints them: `-- NODES FILE PODS`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nodes: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(5_000);
    let path = args.get(2).map_or("/tmp/nodes.yaml", String::as_str);
    let text = match args.get(3).and_then(|n| n.parse().ok()) {
        Some(pods) => spreadlab_bench::kubectl::nodes_and_pods_yaml(nodes, pods),
        None => spreadlab_bench::kubectl::nodes_yaml(nodes),
    };
    std::fs::write(path, text).expect("writable");
}
