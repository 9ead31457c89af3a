//! `wasm-bindgen-test-runner` built from our Cargo.lock (same version as the `wasm-bindgen` crate):
//! the cargo runner for `cargo test --target wasm32-unknown-unknown` (set by scripts/test-web.sh).

use std::process::ExitCode;

fn main() -> ExitCode {
    match wasm_bindgen_cli::wasm_bindgen_test_runner::run_cli_with_args(std::env::args_os()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("wasm-bindgen-test-runner: {error:#}");
            ExitCode::FAILURE
        }
    }
}
