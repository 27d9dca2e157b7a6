//! The widgets a lesson may embed are the folders of `web/src/widgets/` that
//! hold a `widget.json` (the widget registry; the page builder and the
//! page's script read the same folders). This writes their names into
//! `$OUT_DIR/widgets.rs` so the checker knows them without a list of its own.

use std::path::Path;

fn main() {
    // Read at run time, not `env!`: a build script compiled for one checkout
    // (a worktree sharing the target folder) may be run for another.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest_dir).join("../../web/src/widgets");
    println!("cargo:rerun-if-changed={}", dir.display());
    // No folder is an error, not an empty registry: every widget directive would be refused.
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("cannot read the widgets folder {}: {error}", dir.display()));
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().join("widget.json").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in &names {
        println!("cargo:rerun-if-changed={}", dir.join(name).join("widget.json").display());
    }
    let list = names.iter().map(|name| format!("{name:?}")).collect::<Vec<_>>().join(", ");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("widgets.rs");
    std::fs::write(out, format!("&[{list}]\n")).expect("OUT_DIR is writable");
}
