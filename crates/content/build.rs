//! The widgets a lesson may embed are the folders of `web/src/widgets/` that
//! hold a `widget.json` (the widget registry; the page builder and the
//! page's script read the same folders). This writes their names into
//! `$OUT_DIR/widgets.rs` so the checker knows them without a list of its own.

use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/src/widgets");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| entry.path().join("widget.json").is_file())
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for name in &names {
        println!("cargo:rerun-if-changed={}", dir.join(name).join("widget.json").display());
    }
    let list = names.iter().map(|name| format!("{name:?}")).collect::<Vec<_>>().join(", ");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("widgets.rs");
    std::fs::write(out, format!("&[{list}]\n")).expect("OUT_DIR is writable");
}
