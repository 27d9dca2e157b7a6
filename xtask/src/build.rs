//! Building the page: the wasm module (release, wasm-bindgen, wasm-opt -Oz)
//! and the web bundle (esbuild) into `web/dist`, plus the size report.

use std::path::{Path, PathBuf};

use crate::cmd::{self, command, root};

const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The bindings crate's library name, hence the generated files' names.
const WASM_NAME: &str = "leaselab";

fn dist() -> PathBuf {
    root().join("web/dist")
}

fn pkg() -> PathBuf {
    root().join("web/pkg")
}

pub fn build_all() -> Result<(), String> {
    build_wasm()?;
    bundle_web()?;
    report_sizes()
}

/// A wasm module built from the bindings crate.
pub struct WasmModule {
    pub out_name: &'static str,
    features: &'static [&'static str],
    /// The cargo profile (Cargo.toml), which is also the folder cargo writes to.
    profile: &'static str,
    /// What wasm-opt is asked to do to it.
    opt_flags: &'static [&'static str],
    /// Whether its exercise registry is added to it as a custom section
    /// (runner/node/embed-registry.mjs), for hosts that need only that.
    registry_section: bool,
    /// Whether QuickJS's stack check is made to count the host's native
    /// frames (`host_stack`): the grader's module, which runs QuickJS.
    host_stack: bool,
}

/// The three wasm modules: the small store for the lesson's widgets, and the
/// simulation with the reference lease protocol for the failover simulator,
/// both built for size; and the engine, simulation and grader for the code
/// runner, built for speed (binaryen's optimisations made its gradings
/// slower, even at -O3, so it is only stripped: BENCHMARKS.md, issue 18). A
/// reader who only watches the failover story never downloads the grader's
/// QuickJS.
pub const WASM_MODULES: [WasmModule; 3] = [
    WasmModule {
        out_name: "leaselab_store",
        features: &[],
        profile: "release",
        opt_flags: &["-Oz", "--strip-debug", "--strip-producers"],
        registry_section: false,
        host_stack: false,
    },
    WasmModule {
        out_name: "leaselab_failover",
        features: &["--features", "failover"],
        // Its own profile (release's settings), so that its build and the
        // store module's do not take turns overwriting one output file.
        profile: "failover",
        opt_flags: &["-Oz", "--strip-debug", "--strip-producers"],
        registry_section: false,
        host_stack: false,
    },
    WasmModule {
        out_name: "leaselab",
        features: &["--features", "grader"],
        profile: "grader",
        opt_flags: &["--strip-debug", "--strip-producers"],
        registry_section: true,
        host_stack: true,
    },
];

/// For each module: release build → wasm-bindgen (ES module for the web) →
/// wasm-opt -Oz. The last two steps are skipped when cargo's module is the
/// one they last made `web/pkg` from (`<module>.stamp` there): binaryen in
/// Node takes most of a build's half minute, and `cargo xtask test` builds
/// twice (the page, then the authors' check).
pub fn build_wasm() -> Result<(), String> {
    for WasmModule { out_name, features, profile, opt_flags, registry_section, host_stack } in WASM_MODULES {
        let mut args = vec!["build", "--profile", profile, "--target", WASM_TARGET, "-p", "wasm"];
        args.extend(features);
        cmd::run(command("cargo", &args))?;
        let built = cargo_target_dir().join(format!("{WASM_TARGET}/{profile}/{WASM_NAME}.wasm"));
        let input = if host_stack {
            let instrumented = cargo_target_dir().join(format!("{WASM_TARGET}/{profile}/{WASM_NAME}.host-stack.wasm"));
            let done = crate::host_stack::instrument(&built, &instrumented, None)?;
            eprintln!(
                "host stack: {} C functions weighed, the heaviest frame {} bytes",
                done.functions, done.weight_max
            );
            instrumented
        } else {
            built
        };
        let pkg = pkg();
        let wasm = pkg.join(format!("{out_name}_bg.wasm"));
        let stamp = pkg.join(format!("{out_name}.stamp"));
        let fingerprint = module_fingerprint(&input, opt_flags, registry_section)?;
        let outputs_exist = wasm.exists() && pkg.join(format!("{out_name}.js")).exists();
        if outputs_exist && std::fs::read_to_string(&stamp).is_ok_and(|last| last == fingerprint) {
            eprintln!("web/pkg/{out_name}: unchanged since its last build");
            continue;
        }
        // Until every step below has succeeded, web/pkg is not what the stamp says.
        if stamp.exists() {
            std::fs::remove_file(&stamp).map_err(|error| format!("cannot remove {}: {error}", stamp.display()))?;
        }
        wasm_bindgen(&input, &pkg, out_name)?;
        // Only binaryen from npm reads current wasm-bindgen output (Debian's is too old).
        let wasm_text = wasm.to_string_lossy().into_owned();
        let mut opt_args = opt_flags.to_vec();
        opt_args.extend([wasm_text.as_str(), "-o", wasm_text.as_str()]);
        cmd::run(command(&node_bin("wasm-opt"), &opt_args))?;
        if registry_section {
            cmd::run(command("node", &["runner/node/embed-registry.mjs", wasm_text.as_str()]))?;
        }
        std::fs::write(&stamp, fingerprint).map_err(|error| format!("cannot write {}: {error}", stamp.display()))?;
    }
    Ok(())
}

/// wasm-bindgen's glue for the web (an ES module) and its module, into `out_dir`.
pub fn wasm_bindgen(input: &Path, out_dir: &Path, out_name: &str) -> Result<(), String> {
    cmd::run(command(
        "wasm-bindgen",
        &[
            "--target",
            "web",
            "--no-typescript",
            "--out-name",
            out_name,
            "--out-dir",
            &out_dir.to_string_lossy(),
            &input.to_string_lossy(),
        ],
    ))
}

/// Names what `web/pkg` is made from: the module cargo built (its size and
/// an FNV-1a hash of its bytes), the wasm-bindgen CLI and the wasm-opt flags.
fn module_fingerprint(input: &Path, opt_flags: &[&str], registry_section: bool) -> Result<String, String> {
    let bytes = std::fs::read(input).map_err(|error| format!("cannot read {}: {error}", input.display()))?;
    let hash = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3));
    let bindgen = crate::tools::locked_wasm_bindgen_version()?;
    let registry = if registry_section { ", registry section" } else { "" };
    Ok(format!(
        "{} bytes, fnv1a {hash:016x}, wasm-bindgen {bindgen}, wasm-opt {}{registry}\n",
        bytes.len(),
        opt_flags.join(" ")
    ))
}

/// Where cargo puts its builds: `CARGO_TARGET_DIR` when set (relative to the
/// root, as cargo reads it), else `target/` at the root.
fn cargo_target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root().join(dir),
        _ => root().join("target"),
    }
}

fn node_bin(name: &str) -> String {
    root().join("node_modules/.bin").join(name).to_string_lossy().into_owned()
}

/// Bundles `web/src` into `web/dist`, copies the static files beside it, and
/// renders the lesson page (`web/dist/index.html`) from the lesson's content.
pub fn bundle_web() -> Result<(), String> {
    // Build beside the served folder and swap at the end, so a failed build
    // (a broken edit while `npm start` watches) leaves the last good page served.
    let dist = root().join("web/dist.next");
    if dist.exists() {
        std::fs::remove_dir_all(&dist).map_err(|error| format!("cannot clear {}: {error}", dist.display()))?;
    }
    let outdir = format!("--outdir={}", dist.display());
    cmd::run(command(
        &node_bin("esbuild"),
        &[
            "web/src/main.js",
            // The code runner's Web Worker, under the name client.js asks for.
            "grader-worker=web/src/runner/worker.js",
            "--bundle",
            "--format=esm",
            "--splitting",
            "--minify",
            "--sourcemap",
            "--target=es2022",
            "--log-level=warning",
            &outdir,
        ],
    ))?;
    copy_dir(&root().join("web/static"), &dist)?;
    for WasmModule { out_name, .. } in WASM_MODULES {
        copy_file(&pkg().join(format!("{out_name}_bg.wasm")), &dist.join(format!("{out_name}_bg.wasm")))?;
    }
    render_lesson_page(&dist)?;
    let served = self::dist();
    if served.exists() {
        std::fs::remove_dir_all(&served).map_err(|error| format!("cannot clear {}: {error}", served.display()))?;
    }
    std::fs::rename(&dist, &served)
        .map_err(|error| format!("cannot move {} to {}: {error}", dist.display(), served.display()))
}

/// Renders the lesson to JSON with the content crate (which checks it first
/// and names every problem with file:line:col), then to `index.html` with
/// `web/build/render-page.mjs`, so the page's text is HTML before any script runs.
fn render_lesson_page(dist: &Path) -> Result<(), String> {
    let lesson_dir = crate::lesson::dir()?;
    let json = root().join(format!("target/lesson/{}.json", crate::lesson::id(&lesson_dir)));
    let json_dir = json.parent().expect("the lesson JSON has a folder");
    std::fs::create_dir_all(json_dir).map_err(|error| format!("cannot create {}: {error}", json_dir.display()))?;
    let json_text = json.to_string_lossy().into_owned();
    cmd::run(command("cargo", &["run", "--quiet", "-p", "content", "--", "render", &lesson_dir, "--out", &json_text]))
        .map_err(|error| format!("{error}; fix the lesson's content (`cargo xtask check` lists every problem)"))?;
    let page = dist.join("index.html");
    cmd::run(command("node", &["web/build/render-page.mjs", "--lesson", &json_text, "--out", &page.to_string_lossy()]))
}

pub(crate) fn copy_file(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|error| format!("cannot copy {} to {}: {error}", from.display(), to.display()))
}

pub fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|error| format!("cannot create {}: {error}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|error| format!("cannot read {}: {error}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|error| format!("cannot read {}: {error}", from.display()))?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            copy_file(&entry.path(), &target)?;
        }
    }
    Ok(())
}

fn gzip_bytes(path: &Path) -> Option<u64> {
    let output = std::process::Command::new("gzip").args(["-9", "-c"]).arg(path).output().ok()?;
    output.status.success().then_some(output.stdout.len() as u64)
}

/// Prints raw and gzip sizes of everything in `web/dist` (the figures the
/// README and BENCHMARKS.md quote).
pub fn report_sizes() -> Result<(), String> {
    let dist = dist();
    let mut files: Vec<PathBuf> = Vec::new();
    collect_files(&dist, &mut files)?;
    files.retain(|path| !path.to_string_lossy().ends_with(".map"));
    files.sort();
    let (mut raw_total, mut gzip_total) = (0, 0);
    eprintln!("{:<40} {:>10} {:>10}", "web/dist", "bytes", "gzip -9");
    for path in &files {
        let raw = std::fs::metadata(path).map(|meta| meta.len()).unwrap_or(0);
        let gzip = gzip_bytes(path).unwrap_or(0);
        raw_total += raw;
        gzip_total += gzip;
        let name = path.strip_prefix(&dist).unwrap_or(path).to_string_lossy().into_owned();
        eprintln!("{name:<40} {raw:>10} {gzip:>10}");
    }
    eprintln!("{:<40} {raw_total:>10} {gzip_total:>10}", "total (without source maps)");
    Ok(())
}

pub fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|error| format!("cannot read {}: {error}; run `cargo xtask build` first", dir.display()))?;
    for entry in entries.flatten() {
        if entry.path().is_dir() {
            collect_files(&entry.path(), files)?;
        } else {
            files.push(entry.path());
        }
    }
    Ok(())
}
