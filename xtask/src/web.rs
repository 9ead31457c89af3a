//! `cargo xtask web`: builds the playground (`crates/playground`) into a static site.
//!
//! Steps: `cargo build` of the playground for `wasm32-unknown-unknown` (profile `web-release`,
//! or `dev` with `--dev`); wasm-bindgen's JS glue through the `wasm-bindgen-cli-support` library
//! (same version as the `wasm-bindgen` crate, forced by Cargo.lock); `wasm-opt -Oz` when npm's
//! `binaryen` is installed (`tests/e2e/node_modules/.bin/wasm-opt`, or `$SPREADLAB_WASM_OPT`);
//! the code editor (`www/editor`, CodeMirror 6) bundled by npm's esbuild into `editor.js`; then
//! the static shell from `www/`. Prints raw and gzip sizes. Downloads nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Options of `cargo xtask web`.
struct WebArgs {
    /// Build with the `dev` profile (fast, large, debuggable).
    dev: bool,
    /// Where the site goes.
    out: PathBuf,
    /// Skip wasm-opt even when it is installed.
    no_opt: bool,
}

/// `cargo xtask web [--dev] [--no-opt] [--out DIR]` (default `dist/playground`).
pub fn web(args: &[String]) -> Result<(), String> {
    let root = spreadlab_conformance::upstream::workspace_root();
    let mut parsed = WebArgs {
        dev: false,
        out: root.join("dist/playground"),
        no_opt: false,
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--dev" => parsed.dev = true,
            "--no-opt" => parsed.no_opt = true,
            "--out" => parsed.out = PathBuf::from(iter.next().ok_or("--out needs a directory")?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    build(&root, &parsed)
}

fn build(root: &Path, args: &WebArgs) -> Result<(), String> {
    let started = Instant::now();
    let profile = if args.dev { "dev" } else { "web-release" };
    // The cargo that runs `cargo xtask` (set at run time), not the path this binary was built with.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root)
        .args([
            "build",
            "--target",
            "wasm32-unknown-unknown",
            "--profile",
            profile,
        ])
        .args(["-p", "spreadlab-playground", "--lib"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("cargo build of the playground failed".into());
    }
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let profile_dir = if args.dev { "debug" } else { "web-release" };
    let wasm = target_dir
        .join("wasm32-unknown-unknown")
        .join(profile_dir)
        .join("spreadlab_playground.wasm");
    let raw_size = file_size(&wasm)?;
    let out = &args.out;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e}"))?
        .typescript(false)
        .omit_default_module_path(false)
        .debug(args.dev)
        .keep_debug(args.dev)
        .remove_name_section(!args.dev)
        .remove_producers_section(!args.dev)
        .generate(out)
        .map_err(|e| format!("wasm-bindgen: {e:#}"))?;
    let bound = out.join("spreadlab_playground_bg.wasm");
    let bound_size = file_size(&bound)?;
    if !args.dev && !args.no_opt {
        match wasm_opt(root) {
            Some(tool) => optimize_cached(&tool, &bound, &target_dir.join("web-opt-cache"))?,
            None => eprintln!(
                "web: wasm-opt not found (npm binaryen: `bash scripts/setup.sh --web-test`); wasm left as bound"
            ),
        }
    }
    copy_shell(&root.join("www"), out)?;
    let editor = bundle_editor(&root.join("www/editor"), &out.join("editor.js"))?;
    let wasm_bytes = std::fs::read(&bound).map_err(|e| format!("{}: {e}", bound.display()))?;
    println!(
        "web: {} in {:.1} s; wasm: rustc {} B, bound {} B, final {} B, gzip ~{} B; editor.js {} B, gzip ~{} B",
        out.display(),
        started.elapsed().as_secs_f64(),
        raw_size,
        bound_size,
        wasm_bytes.len(),
        gzip_size(&wasm_bytes),
        editor.len(),
        gzip_size(&editor)
    );
    Ok(())
}

/// Size of `bytes` gzipped at level 9 (deflate plus gzip's 18-byte frame): what a server sends.
fn gzip_size(bytes: &[u8]) -> usize {
    miniz_oxide::deflate::compress_to_vec(bytes, 9).len() + 18
}

/// Bundles the code editor (`www/editor/editor.js` and its npm packages) into `out` with the
/// esbuild npm installed there (`bash scripts/setup.sh --web`). Without it, `out` gets a comment
/// only and the playground keeps its plain textarea. Returns what was written.
fn bundle_editor(editor: &Path, out: &Path) -> Result<Vec<u8>, String> {
    let esbuild = editor.join("node_modules/.bin/esbuild");
    if !esbuild.is_file() {
        eprintln!(
            "web: esbuild not found (npm packages of www/editor: `bash scripts/setup.sh --web`); the playground gets a plain textarea instead of the code editor"
        );
        let stub =
            b"// The code editor was not bundled (no npm): the playground uses a plain textarea.\n";
        std::fs::write(out, stub).map_err(|e| format!("{}: {e}", out.display()))?;
        return Ok(stub.to_vec());
    }
    let status = Command::new(&esbuild)
        .current_dir(editor)
        .args([
            "editor.js",
            "--bundle",
            "--minify",
            "--format=iife",
            "--target=es2020",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", out.display()))
        .status()
        .map_err(|e| format!("cannot run {}: {e}", esbuild.display()))?;
    if !status.success() {
        return Err("esbuild failed to bundle www/editor".into());
    }
    std::fs::read(out).map_err(|e| format!("{}: {e}", out.display()))
}

fn file_size(path: &Path) -> Result<u64, String> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// npm binaryen's wasm-opt (`$SPREADLAB_WASM_OPT` first). Debian's binaryen 108 is too old for
/// rustc 1.95 output, so the system one is never used.
fn wasm_opt(root: &Path) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SPREADLAB_WASM_OPT") {
        return Some(PathBuf::from(path));
    }
    let local = root.join("tests/e2e/node_modules/.bin/wasm-opt");
    local.is_file().then_some(local)
}

/// wasm-opt is the slow step (about a minute here): its output is kept per input digest, so a
/// rebuild whose wasm did not change reuses it.
fn optimize_cached(tool: &Path, wasm: &Path, cache: &Path) -> Result<(), String> {
    use std::hash::{Hash, Hasher};
    let bytes = std::fs::read(wasm).map_err(|e| format!("{}: {e}", wasm.display()))?;
    // SipHash with fixed keys: the same digest on every run of the same toolchain.
    let mut hasher = std::hash::DefaultHasher::new();
    bytes.hash(&mut hasher);
    let cached = cache.join(format!("{:016x}.wasm", hasher.finish()));
    if cached.is_file() {
        std::fs::copy(&cached, wasm).map_err(|e| format!("{}: {e}", cached.display()))?;
        eprintln!("web: wasm-opt output reused ({})", cached.display());
        return Ok(());
    }
    optimize(tool, wasm)?;
    std::fs::create_dir_all(cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    std::fs::copy(wasm, &cached).map_err(|e| format!("{}: {e}", cached.display()))?;
    Ok(())
}

fn optimize(tool: &Path, wasm: &Path) -> Result<(), String> {
    let started = Instant::now();
    let status = Command::new(tool)
        .arg(wasm)
        .args(["-o"])
        .arg(wasm)
        .args(["-Oz", "--strip-debug", "--strip-producers"])
        // What rustc 1.95 emits for wasm32-unknown-unknown by default.
        .args([
            "--enable-bulk-memory",
            "--enable-nontrapping-float-to-int",
            "--enable-sign-ext",
            "--enable-reference-types",
            "--enable-multivalue",
            "--enable-mutable-globals",
        ])
        .status()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    if !status.success() {
        return Err("wasm-opt failed".into());
    }
    eprintln!(
        "web: wasm-opt -Oz in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Copies the files of `www/` (index.html, CSS) next to the generated files.
fn copy_shell(www: &Path, out: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(www).map_err(|e| format!("{}: {e}", www.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        if entry.path().is_file() {
            std::fs::copy(entry.path(), out.join(entry.file_name()))
                .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}
