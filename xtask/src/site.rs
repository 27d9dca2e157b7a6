//! `cargo xtask site`: the lesson as a static site in `dist/site/`, ready to
//! upload to any static host (GitHub Pages, a university web server, an S3
//! bucket) at any base path, `/` or `/course/leaselab/`.
//!
//! The site is `web/dist` as `cargo xtask build` makes it. It works under any
//! base path because every URL in it is relative: the page names its script,
//! stylesheet and icon by file name (`web/build/page.mjs`), and the scripts
//! find their chunks, their Web Worker and the wasm modules with
//! `new URL("./…", import.meta.url)`, so each resolves beside the file that
//! asks. `write_site` refuses to write a site whose HTML or CSS names a
//! root-relative URL (`/…`), which would break under a sub-path.
//!
//! Hosts should serve `.wasm` as `application/wasm` so browsers compile it
//! while it downloads; under another type the page still works, compiling it
//! once downloaded (`runner/wasm-fetch.js`). The grader's module is packed
//! by the page's build (`leaselab_bg.<hash>.wasm.gz`, compressed whatever
//! the host does); hosts should compress the rest and send validators
//! (README.md, "The lesson as a static site").

use std::path::{Path, PathBuf};

use crate::build;
use crate::cmd::root;

/// Where the site is written, relative to the repository root.
pub const SITE_DIR: &str = "dist/site";

/// Builds everything, then writes the site (the entry point `cargo xtask dist` can call too).
pub fn build_site() -> Result<(), String> {
    build::build_all()?;
    write_site()
}

/// Copies the built page (`web/dist`, which must be built) to `dist/site/`.
/// Written beside it and swapped in at the end, so a failed copy never leaves
/// half a site to be deployed.
pub fn write_site() -> Result<(), String> {
    let built = root().join("web/dist");
    if !built.join("index.html").is_file() {
        return Err(format!(
            "{} holds no built page; run `cargo xtask build` (or `cargo xtask site`, which builds first)",
            built.display()
        ));
    }
    check_relative_urls(&built)?;
    let site = root().join(SITE_DIR);
    let next = root().join(format!("{SITE_DIR}.next"));
    remove_if_present(&next)?;
    build::copy_dir(&built, &next)?;
    remove_if_present(&site)?;
    std::fs::rename(&next, &site)
        .map_err(|error| format!("cannot move {} to {}: {error}", next.display(), site.display()))?;
    eprintln!("the lesson's static site is in {SITE_DIR}/: upload the whole folder to any static host, at any path; serve .wasm files as application/wasm where the host lets you set types");
    Ok(())
}

fn remove_if_present(dir: &Path) -> Result<(), String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|error| format!("cannot clear {}: {error}", dir.display()))?;
    }
    Ok(())
}

/// The attribute and CSS forms a root-relative URL takes in the built HTML and CSS.
const ROOT_RELATIVE: [&str; 4] = ["src=\"/", "href=\"/", "url(/", "url(\"/"];

/// Fails, naming the file and the URL, if an HTML or CSS file of `built`
/// refers to a root-relative path (`/style.css`): such a site works only at
/// the host's root. `//host/…` (protocol-relative) is left alone: it is
/// another site, not a path of this one.
fn check_relative_urls(built: &Path) -> Result<(), String> {
    let mut files: Vec<PathBuf> = Vec::new();
    build::collect_files(built, &mut files)?;
    files.retain(|path| matches!(path.extension().and_then(|ext| ext.to_str()), Some("html" | "css")));
    files.sort();
    let mut problems = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        for form in ROOT_RELATIVE {
            for (at, _) in text.match_indices(form) {
                let rest = &text[at + form.len()..];
                if rest.starts_with('/') {
                    continue;
                }
                let url: String = rest.chars().take_while(|c| !matches!(c, '"' | ')' | ' ')).collect();
                problems.push(format!(
                    "{}: refers to /{url}, which breaks when the site is served under a sub-path; write it relative to the file",
                    path.display()
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
