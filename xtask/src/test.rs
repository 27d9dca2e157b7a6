//! `cargo xtask test`: every test, in order of speed, stopping at the first
//! failing stage so the report ends with what broke.
//!
//! 0. `cargo fmt --all --check` (rustfmt.toml);
//! 1. native Rust tests of every crate (the bindings' own logic too), then the
//!    differential test of the store against a real etcd;
//! 2. the bindings' wasm-bindgen tests in Node, then in headless Chromium;
//! 3. the release build of the page, the static site made from it (`dist/site`),
//!    then the rest of `dist/` (the npm package and the platform bundles);
//! 4. node tests and browser end-to-end tests (`tests/*.test.mjs`, node's runner, one
//!    file per core at a time).

use crate::cmd::{self, command};
use crate::{build, dist, tools};

pub fn run(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: cargo xtask test".into());
    }
    tools::ensure_all(tools::Needs { browser: true })?;

    // Formatting first: it takes a second, and a diff is cheaper to read than a failed stage later.
    cmd::run(command("cargo", &["fmt", "--all", "--check"]))?;

    cmd::run(command("cargo", &["test", "--workspace", "--exclude", "wasm", "--exclude", "etcd-diff"]))?;
    // The bindings' pure-Rust logic (the grader's, and the failover simulator's stories) runs natively too.
    cmd::run(command("cargo", &["test", "-p", "wasm", "--features", "grader,failover", "--lib"]))?;

    // kv against a real etcd (crates/etcd-diff starts and stops its own
    // servers); Debian's etcd-server is installed where it is missing.
    tools::ensure_debian_packages(&[("/usr/bin/etcd", "etcd-server")])?;
    cmd::run(command("cargo", &["test", "-p", "etcd-diff"]))?;

    let wasm_test = ["test", "--target", "wasm32-unknown-unknown", "-p", "wasm"];
    cmd::run(command("cargo", &wasm_test))?;
    let mut in_browser = command("cargo", &wasm_test);
    in_browser.env("WASM_BINDGEN_USE_BROWSER", "1").env("CHROMEDRIVER", "/usr/bin/chromedriver");
    cmd::run(in_browser)?;

    build::build_all()?;
    // The static site (the page just built, copied: tests/static-site.browser.test.mjs serves it
    // under a sub-path), the package, the Gradescope bundle and the Exercism runner, which the
    // node tests install and run as course staff would (tests/dist-*.test.mjs); the Gradescope
    // test unpacks its zip with Debian's unzip.
    dist::build_dist()?;
    tools::ensure_debian_packages(&[("/usr/bin/unzip", "unzip")])?;

    // The authors' check: the lesson's content, and every solution passes, every starter fails.
    crate::check::run()?;

    let test_files = node_test_files()?;
    // Files run side by side, one per core (node's default on 2 cores is one
    // at a time). They are independent: each serves its own page on a free
    // port, launches its own browser and writes to its own temporary folders
    // and screenshot names, and every wait is for a state, not for time, with
    // bounds only a broken build nears, so a busy core slows a file but
    // never changes what it sees.
    let concurrency = format!("--test-concurrency={}", node_test_concurrency());
    let mut args = vec!["--test", "--test-reporter=spec", concurrency.as_str()];
    args.extend(test_files.iter().map(String::as_str));
    cmd::run(command("node", &args))
}

/// How many test files run at once: one per core, and at least two (most
/// files grade in one thread, so a second file uses the core the first
/// leaves idle).
fn node_test_concurrency() -> usize {
    std::thread::available_parallelism().map_or(2, |cores| cores.get().max(2))
}

/// `tests/**/*.test.mjs`, sorted, relative to the root (node 20's runner
/// takes no globs).
fn node_test_files() -> Result<Vec<String>, String> {
    fn walk(dir: &std::path::Path, found: &mut Vec<String>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|error| format!("cannot read {}: {error}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found)?;
            } else if path.to_string_lossy().ends_with(".test.mjs") {
                let relative = path.strip_prefix(crate::cmd::root()).unwrap_or(&path);
                found.push(relative.to_string_lossy().into_owned());
            }
        }
        Ok(())
    }
    let mut found = Vec::new();
    walk(&crate::cmd::root().join("tests"), &mut found)?;
    found.sort();
    if found.is_empty() {
        return Err("no tests/**/*.test.mjs found".into());
    }
    Ok(found)
}
