//! Writes the parse row's `kubectl get nodes -o yaml` text: `-- NODES FILE`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nodes: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(5_000);
    let path = args.get(2).map_or("/tmp/nodes.yaml", String::as_str);
    std::fs::write(path, spreadlab_bench::kubectl::nodes_yaml(nodes)).expect("writable");
}
