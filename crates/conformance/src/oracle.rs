//! The oracle process: the Go program (`tests/oracle`) that runs the real kube-scheduler code of
//! one release (`-version`) on a scenario, one at a time or in batches, and its output split per scenario.

use crate::scenarios::parse_jsonl;
use serde_json::Value;
use spreadlab_engine::KubeVersion;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The Go oracle binary (`tests/oracle`, built by `scripts/test.sh`) and its extra flags.
#[derive(Clone, Debug)]
pub struct Oracle {
    /// The binary.
    pub path: PathBuf,
    /// Flags before the input (e.g. `-feature-gates=OpportunisticBatching=false`).
    pub args: Vec<String>,
}

impl Oracle {
    /// `$HOME/.cache/spreadlab/oracle`, where `scripts/test.sh` builds it.
    pub fn default_path() -> PathBuf {
        let home = std::env::var_os("HOME").unwrap_or_default();
        PathBuf::from(home).join(".cache/spreadlab/oracle")
    }

    fn spawn(&self, extra: &[&str], stdin: String) -> Result<String, String> {
        let mut child = Command::new(&self.path)
            .args(&self.args)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run the oracle {}: {e}", self.path.display()))?;
        let mut pipe = child.stdin.take().ok_or("no stdin")?;
        // A writer thread: in batch mode the oracle answers while it still reads.
        let writer = std::thread::spawn(move || pipe.write_all(stdin.as_bytes()));
        let output = child
            .wait_with_output()
            .map_err(|e| format!("the oracle: {e}"))?;
        let _ = writer.join();
        if !output.status.success() {
            return Err(format!(
                "the oracle failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        String::from_utf8(output.stdout).map_err(|e| format!("the oracle's output: {e}"))
    }

    /// The release this binary runs (`oracle -version`, e.g. `v1.36.3`; `tests/oracle/build.sh`
    /// builds each).
    pub fn version(&self) -> Result<KubeVersion, String> {
        let out = self.spawn(&["-version"], String::new())?;
        KubeVersion::parse(out.trim())
            .map_err(|e| format!("the oracle {}: {e}", self.path.display()))
    }

    /// Whether this binary has the `-batch` mode (`oracle -batch -` with no input succeeds).
    pub fn supports_batch(&self) -> bool {
        self.spawn(&["-batch", "-"], String::new()).is_ok()
    }

    /// Runs one scenario (`oracle -`, the scenario on stdin); one output line per pod.
    pub fn run(&self, input: &Value) -> Result<Vec<Value>, String> {
        let stdout = self.spawn(&["-"], input.to_string())?;
        parse_jsonl(&stdout)
    }

    /// Times the oracle's scheduling loop on one scenario (`oracle -time -timeout 0 -`): its
    /// one throughput line (`seconds`, `podsPerSecond`, `scheduled`, `cpuSeconds`, ...).
    pub fn time(&self, input: &Value) -> Result<Value, String> {
        let stdout = self.spawn(&["-time", "-timeout", "0", "-"], input.to_string())?;
        parse_jsonl(&stdout)?
            .into_iter()
            .next()
            .ok_or_else(|| String::from("the oracle printed no timing line"))
    }

    /// Runs several scenarios in one process (`oracle -batch -`: one scenario per input line;
    /// see [`split_batch_output`]). Scenario names must be distinct.
    pub fn run_batch(&self, inputs: &[Value]) -> Vec<Result<Vec<Value>, String>> {
        let names: Vec<String> = inputs
            .iter()
            .map(|i| i["name"].as_str().unwrap_or_default().to_owned())
            .collect();
        let stdin: String = inputs.iter().map(|i| format!("{i}\n")).collect();
        match self.spawn(&["-batch", "-"], stdin) {
            Ok(stdout) => split_batch_output(&names, &stdout),
            Err(error) => names.iter().map(|_| Err(error.clone())).collect(),
        }
    }
}

/// Splits the oracle's `-batch` output into each scenario's lines: per-pod lines carry a
/// `"scenario"` field (removed here), and each scenario ends with
/// `{"scenario":name,"end":true,"pods":n,"error":null}` (`error` a string when it failed). A
/// scenario without its terminator, or whose pod count disagrees, is an `Err`.
pub fn split_batch_output(names: &[String], stdout: &str) -> Vec<Result<Vec<Value>, String>> {
    let mut lines: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    let mut ends: BTreeMap<String, Result<(), String>> = BTreeMap::new();
    let parsed = match parse_jsonl(stdout) {
        Ok(parsed) => parsed,
        Err(error) => return names.iter().map(|_| Err(error.clone())).collect(),
    };
    for mut line in parsed {
        let Some(name) = line["scenario"].as_str().map(str::to_owned) else {
            continue;
        };
        let Some(key) = names.iter().find(|n| **n == name) else {
            continue;
        };
        if line["end"] == true {
            let count = lines.get(key.as_str()).map_or(0, Vec::len);
            let result = match (&line["error"], line["pods"].as_u64()) {
                (Value::String(error), _) => Err(format!("the oracle failed: {error}")),
                (_, Some(pods)) if pods as usize != count => Err(format!(
                    "the oracle announced {pods} pods and printed {count}"
                )),
                _ => Ok(()),
            };
            ends.insert(name, result);
        } else {
            if let Some(map) = line.as_object_mut() {
                map.remove("scenario");
            }
            lines.entry(key.as_str()).or_default().push(line);
        }
    }
    names
        .iter()
        .map(|name| match ends.remove(name) {
            None => Err(format!(
                "the oracle's batch output has no end line for {name}"
            )),
            Some(Err(error)) => Err(error),
            Some(Ok(())) => Ok(lines.remove(name.as_str()).unwrap_or_default()),
        })
        .collect()
}
