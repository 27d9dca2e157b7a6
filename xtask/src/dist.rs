//! `cargo xtask dist`: what course staff install and upload, built here so
//! that nobody downstream needs Rust.
//!
//! - `dist/leaselab-<version>.tgz`, what `npm pack` makes of a staged folder:
//!   the CLI, the runner, the grader's prebuilt wasm (QuickJS compiled in)
//!   and its JS glue, with any runtime dependency bundled inside
//!   (`bundleDependencies`), so that installing it reads nothing from a registry.
//! - `dist/gradescope-autograder.zip`: `setup.sh`, `run_autograder` and
//!   `run_autograder.cjs`, `config.json` (the secret seed, the points) and the
//!   tarball (`packaging/gradescope/`).
//! - `dist/exercism-test-runner/`: `bin/run.sh`, a Dockerfile and the tarball
//!   (`packaging/exercism/`).
//!
//! The package's version is package.json's. The grader's version
//! (`GRADER_VERSION`), read back from the staged CLI itself, must equal it:
//! a package version then always names the verdicts it gives, and a stale
//! wasm cannot be shipped under a new number.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::build::{copy_dir, copy_file};
use crate::cmd::{self, command, root};
use crate::{build, tools};

/// What the package ships besides package.json, README.md and LICENSE (which
/// npm always includes): everything `cli/leaselab.mjs` imports at run time.
/// The lesson's exercise folders are not among them: the CLI reads which
/// exercises exist, and their files, from the grader's wasm.
const SHIPPED: [&str; 4] = ["cli", "runner", "web/pkg/leaselab.js", "web/pkg/leaselab_bg.wasm"];

/// The staging folder, under `target/` so it is never committed nor shipped.
fn stage() -> PathBuf {
    root().join("target/dist-stage/package")
}

fn dist() -> PathBuf {
    root().join("dist")
}

/// `cargo xtask dist`: build what is missing, then every artifact.
pub fn run(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: cargo xtask dist".into());
    }
    tools::ensure_all(tools::Needs { browser: false })?;
    build::build_all()?;
    build_dist()
}

/// Builds `dist/` from an already built tree (`build::build_all`).
pub fn build_dist() -> Result<(), String> {
    // The lesson as a static site (`dist/site`): the page just built, copied.
    crate::site::write_site()?;
    let manifest = read_json(&root().join("package.json"))?;
    let version = text_field(&manifest, "version", "package.json")?;
    let tarball = pack(&manifest, &version)?;
    let dist = dist();
    write_zip(
        &dist.join("gradescope-autograder.zip"),
        &[
            ZipEntry::file("setup.sh", 0o755, &root().join("packaging/gradescope/setup.sh"))?,
            ZipEntry::file("run_autograder", 0o755, &root().join("packaging/gradescope/run_autograder"))?,
            ZipEntry::file("run_autograder.cjs", 0o644, &root().join("packaging/gradescope/run_autograder.cjs"))?,
            ZipEntry::file("config.json", 0o644, &root().join("packaging/gradescope/config.json"))?,
            ZipEntry::file(&file_name(&tarball), 0o644, &tarball)?,
        ],
    )?;
    let exercism = dist.join("exercism-test-runner");
    remove_dir(&exercism)?;
    copy_dir(&root().join("packaging/exercism"), &exercism)?;
    copy_file(&tarball, &exercism.join(file_name(&tarball)))?;

    eprintln!("{:<40} {:>10}", "dist", "bytes");
    for path in [tarball, dist.join("gradescope-autograder.zip"), exercism, dist.join("site")] {
        let mut name = file_name(&path);
        if path.is_dir() {
            name.push('/');
        }
        eprintln!("{name:<40} {:>10}", bytes_under(&path));
    }
    Ok(())
}

/// The bytes of a file, or of every file under a folder (what an upload of it weighs).
fn bytes_under(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return 0 };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .map(|entries| entries.filter_map(Result::ok).map(|entry| bytes_under(&entry.path())).sum())
        .unwrap_or(0)
}

/// Stages the package and packs it into `dist/leaselab-<version>.tgz`.
fn pack(manifest: &Value, version: &str) -> Result<PathBuf, String> {
    let stage = stage();
    remove_dir(&stage)?;
    for shipped in SHIPPED {
        let from = root().join(shipped);
        let to = stage.join(shipped);
        if from.is_dir() {
            copy_dir(&from, &to)?;
        } else {
            create_dir(to.parent().expect("a shipped file has a folder"))?;
            copy_file(&from, &to).map_err(|error| format!("{error}; run `cargo xtask build` first"))?;
        }
    }
    for own in ["README.md", "LICENSE"] {
        copy_file(&root().join("packaging/npm").join(own), &stage.join(own))?;
    }
    let dependencies = bundle_dependencies(manifest, &stage)?;
    std::fs::write(stage.join("package.json"), package_manifest(manifest, version, dependencies)?)
        .map_err(|error| format!("cannot write {}: {error}", stage.join("package.json").display()))?;
    check_grader_version(&stage, version)?;

    let dist = dist();
    create_dir(&dist)?;
    let tarball = dist.join(format!("leaselab-{version}.tgz"));
    if tarball.exists() {
        std::fs::remove_file(&tarball).map_err(|error| format!("cannot remove {}: {error}", tarball.display()))?;
    }
    let mut npm_pack = command("npm", &["pack", "--ignore-scripts", "--pack-destination", &dist.to_string_lossy()]);
    npm_pack.current_dir(&stage);
    cmd::run(npm_pack)?;
    if !tarball.is_file() {
        return Err(format!("`npm pack` did not write {}; see its output above", tarball.display()));
    }
    Ok(tarball)
}

/// The package's own package.json: the repository's name, version,
/// description, license, engines, `bin` and runtime `dependencies`, plus what
/// only a published package needs (`files`, `bundleDependencies`). Written
/// in a fixed key order, as a person would read it.
fn package_manifest(repo: &Value, version: &str, dependencies: Map<String, Value>) -> Result<String, String> {
    let field = |name: &str| {
        repo.get(name).cloned().ok_or_else(|| format!("package.json has no `{name}`; the package needs it"))
    };
    let bundled: Vec<Value> = dependencies.keys().cloned().map(Value::String).collect();
    let entries: Vec<(&str, Value)> = vec![
        ("name", field("name")?),
        ("version", Value::String(version.to_string())),
        ("description", field("description")?),
        ("license", field("license")?),
        ("type", field("type")?),
        ("bin", field("bin")?),
        ("files", Value::Array(SHIPPED.iter().map(|path| Value::String((*path).to_string())).collect())),
        ("engines", field("engines")?),
        ("dependencies", Value::Object(dependencies)),
        ("bundleDependencies", Value::Array(bundled)),
    ];
    let mut text = String::from("{\n");
    for (index, (key, value)) in entries.iter().enumerate() {
        let pretty = serde_json::to_string_pretty(value).expect("JSON values serialize");
        let separator = if index + 1 < entries.len() { "," } else { "" };
        text.push_str(&format!("  \"{key}\": {}{separator}\n", pretty.replace('\n', "\n  ")));
    }
    text.push_str("}\n");
    Ok(text)
}

/// Copies the repository's runtime `dependencies` (none, when package.json
/// has none) and everything they depend on from `node_modules/` into the
/// stage, so that `npm pack` bundles them. A direct dependency must be
/// installed at exactly the version package.json pins (the versions the
/// tests ran with). Returns the direct dependencies.
fn bundle_dependencies(manifest: &Value, stage: &Path) -> Result<Map<String, Value>, String> {
    let direct = manifest.get("dependencies").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut pending: Vec<String> = direct.keys().cloned().collect();
    let mut copied: Vec<String> = Vec::new();
    while let Some(name) = pending.pop() {
        if copied.contains(&name) {
            continue;
        }
        let installed = root().join("node_modules").join(&name);
        let package =
            read_json(&installed.join("package.json")).map_err(|error| format!("{error}; run `npm ci` first"))?;
        if let Some(pinned) = direct.get(&name).and_then(Value::as_str) {
            let found = text_field(&package, "version", &name)?;
            if found != pinned {
                return Err(format!("node_modules/{name} is {found} but package.json pins {pinned}; run `npm ci`"));
            }
        }
        copy_dir(&installed, &stage.join("node_modules").join(&name))?;
        if let Some(more) = package.get("dependencies").and_then(Value::as_object) {
            pending.extend(more.keys().cloned());
        }
        copied.push(name);
    }
    Ok(direct)
}

/// Asks the staged CLI for its versions: the package's must be `version`
/// (it reads the staged package.json), and so must the grader's.
fn check_grader_version(stage: &Path, version: &str) -> Result<(), String> {
    let cli = stage.join("cli/leaselab.mjs");
    let printed = cmd::output("node", &[&cli.to_string_lossy(), "--version"])
        .ok_or_else(|| format!("`node {} --version` failed; the staged package does not run", cli.display()))?;
    let line = |prefix: &str| printed.lines().find_map(|line| line.strip_prefix(prefix)).map(str::trim).unwrap_or("");
    if line("leaselab ") != version {
        return Err(format!("the staged CLI says `{}`, not version {version}", printed.trim()));
    }
    let grader = line("grader ");
    if grader != version {
        return Err(format!(
            "the grader's version (GRADER_VERSION in crates/grader/src/registry.rs) is {grader} but package.json's version is {version}; \
             a package version names the verdicts it gives, so change them together"
        ));
    }
    Ok(())
}

/// One file of a zip archive: its name, Unix mode and bytes.
struct ZipEntry {
    name: String,
    mode: u32,
    bytes: Vec<u8>,
}

impl ZipEntry {
    fn file(name: &str, mode: u32, path: &Path) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        Ok(ZipEntry { name: name.to_string(), mode, bytes })
    }
}

/// Writes a zip of stored (uncompressed) entries. Written here rather than
/// with `zip(1)`, which a machine may lack: the format's stored case is a
/// page of code, the bytes are the same on every machine (fixed 1980
/// timestamps), and the Unix modes (an executable `run_autograder`) survive.
/// Nothing is lost by not compressing: the one large entry is the tarball,
/// already gzip.
fn write_zip(path: &Path, entries: &[ZipEntry]) -> Result<(), String> {
    const VERSION_NEEDED: u16 = 20;
    const MADE_BY_UNIX: u16 = 3 << 8 | VERSION_NEEDED;
    const DOS_DATE_1980_01_01: u16 = 1 << 5 | 1;
    const REGULAR_FILE: u32 = 0o100000;
    let mut out: Vec<u8> = Vec::new();
    let mut central: Vec<u8> = Vec::new();
    for entry in entries {
        let offset = u32::try_from(out.len()).map_err(|_| "the zip would exceed 4 GiB".to_string())?;
        let size = u32::try_from(entry.bytes.len()).map_err(|_| format!("{} exceeds 4 GiB", entry.name))?;
        let name_len = u16::try_from(entry.name.len()).expect("entry names are short");
        let crc = crc32(&entry.bytes);
        // Local file header, then the data.
        out.extend(0x0403_4b50u32.to_le_bytes());
        for field in [VERSION_NEEDED, 0, 0, 0, DOS_DATE_1980_01_01] {
            out.extend(field.to_le_bytes());
        }
        for field in [crc, size, size] {
            out.extend(field.to_le_bytes());
        }
        out.extend(name_len.to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out.extend(entry.name.as_bytes());
        out.extend(&entry.bytes);
        // Its central directory record.
        central.extend(0x0201_4b50u32.to_le_bytes());
        for field in [MADE_BY_UNIX, VERSION_NEEDED, 0, 0, 0, DOS_DATE_1980_01_01] {
            central.extend(field.to_le_bytes());
        }
        for field in [crc, size, size] {
            central.extend(field.to_le_bytes());
        }
        for field in [name_len, 0, 0, 0, 0] {
            central.extend(field.to_le_bytes());
        }
        central.extend(((REGULAR_FILE | entry.mode) << 16).to_le_bytes());
        central.extend(offset.to_le_bytes());
        central.extend(entry.name.as_bytes());
    }
    let central_offset = u32::try_from(out.len()).map_err(|_| "the zip would exceed 4 GiB".to_string())?;
    let central_size = u32::try_from(central.len()).expect("the central directory is small");
    let count = u16::try_from(entries.len()).expect("a handful of entries");
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    for field in [0, 0, count, count] {
        out.extend(field.to_le_bytes());
    }
    out.extend(central_size.to_le_bytes());
    out.extend(central_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    std::fs::write(path, out).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

/// CRC-32 as zip uses it (IEEE, reflected, polynomial 0xEDB88320).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { crc >> 1 ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    serde_json::from_str(&text).map_err(|error| format!("{} is not valid JSON: {error}", path.display()))
}

fn text_field(value: &Value, name: &str, whose: &str) -> Result<String, String> {
    value.get(name).and_then(Value::as_str).map(str::to_string).ok_or_else(|| format!("{whose} has no `{name}`"))
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
}

fn create_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|error| format!("cannot create {}: {error}", dir.display()))
}

fn remove_dir(dir: &Path) -> Result<(), String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|error| format!("cannot clear {}: {error}", dir.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_matches_the_standard_check_value() {
        // The check value every CRC-32 (IEEE) implementation is held to.
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }
}
