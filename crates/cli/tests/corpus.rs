//! The real-world corpus (`tests/corpus/`, public inputs nobody on the project wrote, listed with
//! their sources in `tests/corpus/SOURCES.md`): every file alone, and each source's files
//! together, through `simulate`, `lint`, `whatif`, `capacity` and `rollout`, in JSON. No panic,
//! no hang (each run is bounded), only the documented exit codes, and JSON on stdout whenever
//! there is a verdict. The answers the sources document are asserted in `documented_answers`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const COMMANDS: &[&[&str]] = &[
    &["simulate", "-o", "json", "--detail", "all"],
    &["lint", "-o", "json"],
    &[
        "whatif",
        "--fail-each",
        "zone",
        "--fail-each",
        "node",
        "-o",
        "json",
    ],
    &["capacity", "-o", "json", "--max", "200"],
    &["rollout", "-o", "json"],
];

/// Longest a debug build may take on one corpus run before it counts as a hang.
const DEADLINE: Duration = Duration::from_secs(120);

fn corpus_root() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"))
        .join("../../tests/corpus")
}

/// Each source folder with its input files (any depth), sorted.
fn sources() -> Vec<(String, Vec<PathBuf>)> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, files);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                files.push(path);
            }
        }
    }
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(corpus_root())
        .expect("tests/corpus")
        .flatten()
    {
        let dir = entry.path();
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        walk(&dir, &mut files);
        files.sort();
        if !files.is_empty() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            sources.push((name, files));
        }
    }
    sources.sort();
    sources
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `spreadlab args files`, killed past [`DEADLINE`].
fn run(args: &[&str], files: &[PathBuf]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spreadlab"))
        .args(args)
        .args(files)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run spreadlab");
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("spreadlab {args:?} {files:?}: no answer within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

#[test]
fn every_corpus_input_goes_through_every_command() {
    let sources = sources();
    assert!(
        sources.len() >= 5,
        "too few corpus sources: {}",
        sources.len()
    );
    let sources_md = std::fs::read_to_string(corpus_root().join("SOURCES.md")).unwrap();
    let mut runs = 0;
    let mut problems = Vec::new();
    for (_, files) in &sources {
        let mut sets: Vec<Vec<PathBuf>> = files.iter().map(|f| vec![f.clone()]).collect();
        if files.len() > 1 {
            sets.push(files.clone());
        }
        for file in files {
            let relative = file
                .strip_prefix(corpus_root())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if !sources_md.contains(&relative) {
                problems.push(format!("{relative}: not listed in tests/corpus/SOURCES.md"));
            }
        }
        for set in &sets {
            for command in COMMANDS {
                let result = run(command, set);
                runs += 1;
                let what = format!("spreadlab {} {set:?}", command.join(" "));
                if result.stderr.contains("panicked") || !(0..=3).contains(&result.code) {
                    problems.push(format!(
                        "{what}: exit {}: {}",
                        result.code,
                        result
                            .stderr
                            .lines()
                            .take(5)
                            .collect::<Vec<_>>()
                            .join(" | ")
                    ));
                    continue;
                }
                // A verdict (0 or 1) comes with its JSON; 2 and 3 with a message on stderr.
                if result.code <= 1 && serde_json::from_str::<Value>(&result.stdout).is_err() {
                    problems.push(format!("{what}: exit {} without JSON", result.code));
                }
                if result.code >= 2 && result.stderr.trim().is_empty() {
                    problems.push(format!("{what}: exit {} without a message", result.code));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{runs} runs:\n{}", problems.join("\n"));
}

/// A node as the Kubernetes docs' topology spread page lists them (`node=<name>,zone=<zone>`; the
/// page gives no capacity, so every node has room), with `zone: None` for a node without it.
fn docs_node(name: &str, zone: Option<&str>) -> String {
    let zone = zone.map(|z| format!(", zone: {z}")).unwrap_or_default();
    format!(
        "- {{apiVersion: v1, kind: Node, metadata: {{name: {name}, labels: {{node: {name}{zone}}}}}, \
         status: {{allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}}}}}\n"
    )
}

/// A running pod labelled `foo: bar` on `node`.
fn docs_pod(name: &str, node: &str) -> String {
    format!(
        "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, labels: {{foo: bar}}}}, \
         spec: {{nodeName: {node}, containers: [{{name: c, image: pause}}]}}}}\n"
    )
}

/// This test process's scratch folder.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spreadlab-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes a cluster (a List of the given items) to a scratch file.
fn cluster_file(name: &str, items: &str) -> PathBuf {
    let path = scratch().join(format!("{name}.yaml"));
    std::fs::write(
        &path,
        format!("apiVersion: v1\nkind: List\nitems:\n{items}"),
    )
    .unwrap();
    path
}

/// `simulate -o json` of the cluster and the corpus file (or its text changed by `edit`): the
/// first pod's node (`None`: Pending) and its number of feasible nodes.
fn place(cluster: &Path, corpus_file: &str, edit: Option<(&str, &str)>) -> (Option<String>, u64) {
    let mut file = corpus_root().join(corpus_file);
    if let Some((from, to)) = edit {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{corpus_file} has no {from:?}");
        file = cluster.with_extension(format!("{}.yaml", to.len()));
        std::fs::write(&file, text.replacen(from, to, 1)).unwrap();
    }
    let result = run(&["simulate", "-o", "json"], &[cluster.to_path_buf(), file]);
    assert!(result.code <= 1, "{}", result.stderr);
    let report: Value = serde_json::from_str(&result.stdout).unwrap();
    let pod = &report["pods"][0];
    (
        pod["node"].as_str().map(str::to_owned),
        pod["feasibleNodes"].as_u64().unwrap_or(0),
    )
}

/// The outcomes the sources state (tests/corpus/DOCUMENTED.md quotes them with their commits):
/// the Kubernetes docs' topology spread examples and KWOK's scenario 6.
#[test]
fn documented_answers() {
    // 1a: 4 nodes, foo=bar pods on node1, node2, node3: "the incoming Pod can only be placed
    // onto a node in zone B"; maxSkew 2: "can be placed into zone A as well"; topologyKey
    // node: "can only be placed onto the node node4".
    let mut base = String::new();
    for (node, zone) in [
        ("node1", "zoneA"),
        ("node2", "zoneA"),
        ("node3", "zoneB"),
        ("node4", "zoneB"),
    ] {
        base.push_str(&docs_node(node, Some(zone)));
    }
    let three = format!(
        "{base}{}{}{}",
        docs_pod("p1", "node1"),
        docs_pod("p2", "node2"),
        docs_pod("p3", "node3")
    );
    let cluster = cluster_file("1a", &three);
    let one = "k8s-website/one-constraint.yaml";
    let (node, feasible) = place(&cluster, one, None);
    assert!(
        matches!(node.as_deref(), Some("node3" | "node4")),
        "{node:?}"
    );
    assert_eq!(feasible, 2);
    let (_, feasible) = place(&cluster, one, Some(("maxSkew: 1", "maxSkew: 2")));
    assert_eq!(feasible, 4, "maxSkew 2: zone A as well");
    let (node, feasible) = place(
        &cluster,
        one,
        Some(("topologyKey: \"zone\"", "topologyKey: \"node\"")),
    );
    assert_eq!((node.as_deref(), feasible), (Some("node4"), 1));

    // 1b: same cluster, two constraints: "the only valid placement is onto node node4".
    let (node, _) = place(&cluster, "k8s-website/two-constraints.yaml", None);
    assert_eq!(node.as_deref(), Some("node4"));

    // 1c: node1 (zoneA) 2 pods, node2 (zoneA) 1, node3 (zoneB) 2: "the Pod mypod stays in
    // the Pending state"; with node1 lacking its zone label "the 2 Pods will be disregarded,
    // hence the incoming Pod will be scheduled into zone A".
    let pods = format!(
        "{}{}{}{}{}",
        docs_pod("p1", "node1"),
        docs_pod("p2", "node1"),
        docs_pod("p3", "node2"),
        docs_pod("p4", "node3"),
        docs_pod("p5", "node3")
    );
    let conflicting = format!(
        "{}{}{}{pods}",
        docs_node("node1", Some("zoneA")),
        docs_node("node2", Some("zoneA")),
        docs_node("node3", Some("zoneB"))
    );
    let cluster = cluster_file("1c", &conflicting);
    let (node, _) = place(&cluster, "k8s-website/two-constraints.yaml", None);
    assert_eq!(node, None, "Pending");
    let unlabelled = format!(
        "{}{}{}{pods}",
        docs_node("node1", None),
        docs_node("node2", Some("zoneA")),
        docs_node("node3", Some("zoneB"))
    );
    let cluster = cluster_file("1c-unlabelled", &unlabelled);
    let (node, _) = place(&cluster, "k8s-website/two-constraints.yaml", None);
    assert_eq!(
        node.as_deref(),
        Some("node2"),
        "zone A (node1 has no zone, so only node2)"
    );

    // 1d: zoneA node1, node2 one pod each; zoneB node3 one pod, node4 empty; zoneC node5 empty,
    // excluded by node affinity: "Pod mypod will be placed into zone B instead of zone C".
    let five = format!(
        "{base}{}{}{}{}",
        docs_node("node5", Some("zoneC")),
        docs_pod("p1", "node1"),
        docs_pod("p2", "node2"),
        docs_pod("p3", "node3")
    );
    let cluster = cluster_file("1d", &five);
    let (node, _) = place(
        &cluster,
        "k8s-website/one-constraint-with-nodeaffinity.yaml",
        None,
    );
    assert!(
        matches!(node.as_deref(), Some("node3" | "node4")),
        "{node:?}"
    );

    // KWOK scenario 6: four nodes in two regions, 4 replicas with maxSkew 1 on the region: "All
    // pods are evenly distributed among each node across the regions" (2 per region).
    let files: Vec<PathBuf> = [
        "kwok/node-in-us-west-1.yaml",
        "kwok/node-in-us-west-2.yaml",
        "kwok/deployment.yaml",
    ]
    .iter()
    .map(|f| corpus_root().join(f))
    .collect();
    let result = run(&["simulate", "-o", "json"], &files);
    assert_eq!(result.code, 0, "{}", result.stderr);
    let report: Value = serde_json::from_str(&result.stdout).unwrap();
    let mut per_region = std::collections::BTreeMap::new();
    for pod in report["pods"].as_array().unwrap() {
        let region = match pod["node"].as_str().unwrap() {
            "node-1" | "node-2" => "us-west-1",
            _ => "us-west-2",
        };
        *per_region.entry(region).or_insert(0) += 1;
    }
    std::fs::remove_dir_all(scratch()).ok();
    assert_eq!(
        per_region.into_iter().collect::<Vec<_>>(),
        [("us-west-1", 2), ("us-west-2", 2)]
    );
}
