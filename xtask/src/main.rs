//! `cargo xtask <task>`: the one place that owns leaselab's orchestration.
//!
//! npm scripts are thin aliases (`npm start` = `cargo xtask serve`,
//! `npm test` = `cargo xtask test`). Every task first installs what it needs
//! and is missing (see `tools.rs`), so both commands work on a bare machine.

mod build;
mod check;
mod cmd;
mod dist;
mod host_stack;
mod lesson;
mod serve;
mod site;
mod stack_budget;
mod test;
mod tools;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task> [options]

tasks:
  setup            install what is missing (wasm32 target, wasm-bindgen CLI, npm packages, Chromium)
  build            build the wasm module and the web page into web/dist
  dist             build, then the npm package dist/leaselab-<version>.tgz, the Gradescope
                   autograder dist/gradescope-autograder.zip, dist/exercism-test-runner/
                   and the static site dist/site/
  serve [--port N] build, then serve the lesson on http://127.0.0.1:N (default 8080)
  site             build, then write the lesson as a static site to dist/site/, for any
                   static host at any path (serve .wasm as application/wasm where you can)
  test             run every test: Rust, wasm (Node and Chromium), node and browser end-to-end
  bench            print figures: page and wasm sizes, grader speed (Rust, Node, Chromium)
  stack-budget     measure, in Node and Chromium, how deep each kind of deep program goes before
                   the host's native stack runs out (the engine's stack budget must stay below)
  check            check the lesson's content (every error, with file:line:col), and that
                   every exercise's solution passes and its starter runs and fails
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(task) = args.first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match task.as_str() {
        "setup" => tools::ensure_all(tools::Needs { browser: true }),
        "build" => tools::ensure_all(tools::Needs { browser: false }).and_then(|()| build::build_all()),
        "dist" => dist::run(rest),
        "serve" => serve::run(rest),
        "site" => tools::ensure_all(tools::Needs { browser: false }).and_then(|()| site::build_site()),
        "test" => test::run(rest),
        "check" => check::run(),
        "bench" => bench(),
        "stack-budget" => stack_budget::run(),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown task `{other}`\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Builds, then prints every figure BENCHMARKS.md quotes.
fn bench() -> Result<(), String> {
    tools::ensure_all(tools::Needs { browser: true })?;
    build::build_all()?;
    cmd::run(cmd::command("cargo", &["bench", "-p", "grader"]))?;
    cmd::run(cmd::command("node", &["bench/runner.bench.mjs"]))?;
    cmd::run(cmd::command("node", &["bench/browser.bench.mjs"]))?;
    // Grading with only Node: the package installed from its tarball.
    dist::build_dist()?;
    cmd::run(cmd::command("node", &["bench/dist.bench.mjs"]))
}
