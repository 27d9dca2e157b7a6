//! Installing what is missing, so that `npm start` and `npm test` work on a
//! bare machine. Each check is cheap when the tool is already there.

use std::path::Path;

use crate::cmd::{self, command, output, root};

/// Which optional parts a task needs.
pub struct Needs {
    /// Debian's Chromium, its headless shell and ChromeDriver, for browser
    /// tests (the wasm-bindgen tests drive `chromium` through ChromeDriver;
    /// the node tests drive the headless shell, tests/support/browser.mjs),
    /// and libxml2's xmllint, which validates the CLI's JUnit against its schema.
    pub browser: bool,
}

pub fn ensure_all(needs: Needs) -> Result<(), String> {
    ensure_wasm_target()?;
    ensure_c_for_wasm()?;
    ensure_rustfmt()?;
    ensure_wasm_bindgen_cli()?;
    ensure_node_modules()?;
    if needs.browser {
        ensure_debian_packages(&[
            ("/usr/bin/chromium", "chromium"),
            ("/usr/bin/chromium-headless-shell", "chromium-headless-shell"),
            ("/usr/bin/chromedriver", "chromium-driver"),
            ("/usr/bin/xmllint", "libxml2-utils"),
        ])?;
    }
    Ok(())
}

/// The grading engine compiles QuickJS's C source (crates/engine) for wasm32
/// with clang, archived with llvm-ar (named in .cargo/config.toml); the
/// host's own C compiler builds it for native tests.
fn ensure_c_for_wasm() -> Result<(), String> {
    ensure_debian_packages(&[("/usr/bin/clang", "clang"), ("/usr/bin/llvm-ar", "llvm")])
}

/// `cargo fmt`, which `cargo xtask test` runs as a check; a minimal rustup profile lacks it.
fn ensure_rustfmt() -> Result<(), String> {
    if output("cargo", &["fmt", "--version"]).is_some() {
        return Ok(());
    }
    cmd::run(command("rustup", &["component", "add", "rustfmt"]))
}

fn ensure_wasm_target() -> Result<(), String> {
    let installed = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    if installed.lines().any(|line| line.trim() == "wasm32-unknown-unknown") {
        return Ok(());
    }
    cmd::run(command("rustup", &["target", "add", "wasm32-unknown-unknown"]))
}

/// The wasm-bindgen version in Cargo.lock; the CLI must match it exactly.
pub fn locked_wasm_bindgen_version() -> Result<String, String> {
    let lock_path = root().join("Cargo.lock");
    let lock =
        std::fs::read_to_string(&lock_path).map_err(|error| format!("cannot read {}: {error}", lock_path.display()))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\"" {
            if let Some(version) = lines.next().and_then(|line| line.trim().strip_prefix("version = \"")) {
                return Ok(version.trim_end_matches('"').to_string());
            }
        }
    }
    Err("Cargo.lock has no wasm-bindgen entry; run `cargo update -p wasm-bindgen` and commit Cargo.lock".into())
}

fn ensure_wasm_bindgen_cli() -> Result<(), String> {
    let wanted = locked_wasm_bindgen_version()?;
    let have = output("wasm-bindgen", &["--version"]).unwrap_or_default();
    if have.split_whitespace().nth(1) == Some(wanted.as_str()) {
        return Ok(());
    }
    // No `--locked`: on this registry mirror a locked dependency of the CLI is missing.
    eprintln!("installing wasm-bindgen-cli {wanted} to match Cargo.lock (about two minutes, once)");
    cmd::run(command("cargo", &["install", "wasm-bindgen-cli", "--version", &wanted]))
}

fn ensure_node_modules() -> Result<(), String> {
    let root = root();
    let installed_marker = root.join("node_modules/.package-lock.json");
    let lock = root.join("package-lock.json");
    let stale = match (std::fs::metadata(&installed_marker), std::fs::metadata(&lock)) {
        (Ok(installed), Ok(lock)) => match (installed.modified(), lock.modified()) {
            (Ok(installed), Ok(lock)) => installed < lock,
            _ => false,
        },
        (Err(_), _) => true,
        (Ok(_), Err(_)) => false,
    };
    if !stale {
        return Ok(());
    }
    let args: &[&str] =
        if lock.exists() { &["ci", "--no-audit", "--no-fund"] } else { &["install", "--no-audit", "--no-fund"] };
    cmd::run(command("npm", args))
}

/// Installs Debian packages whose marker file is missing.
pub fn ensure_debian_packages(packages: &[(&str, &str)]) -> Result<(), String> {
    let missing: Vec<&str> =
        packages.iter().filter(|(marker, _)| !Path::new(marker).exists()).map(|(_, package)| *package).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let is_root = output("id", &["-u"]).is_some_and(|uid| uid.trim() == "0");
    if !is_root {
        return Err(format!(
            "missing Debian packages: {}; install them with `sudo apt-get install -y {}` and run again",
            missing.join(", "),
            missing.join(" ")
        ));
    }
    cmd::run(command("apt-get", &["update", "-qq"]))?;
    let mut args = vec!["install", "-y", "-qq"];
    args.extend(&missing);
    let mut install = command("apt-get", &args);
    install.env("DEBIAN_FRONTEND", "noninteractive");
    cmd::run(install)
}
