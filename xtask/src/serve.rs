//! `cargo xtask serve`: build, serve `web/dist` with the small static server
//! in `web/serve.mjs` (correct MIME types, including application/wasm), and
//! rebuild the page whenever the lesson or the page's sources change, so an
//! author sees an edit by reloading.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::cmd::{command, root};
use crate::{build, tools};

/// What a change in triggers a rebuild, and what it rebuilds.
const WATCHED_PAGE: [&str; 4] = ["exercises", "web/src", "web/static", "web/build"];
const WATCHED_WASM: [&str; 1] = ["crates"];
const POLL_INTERVAL: Duration = Duration::from_millis(700);

pub fn run(args: &[String]) -> Result<(), String> {
    let port = match args {
        [] => "8080".to_string(),
        [flag, port] if flag == "--port" && port.parse::<u16>().is_ok() => port.clone(),
        _ => return Err("usage: cargo xtask serve [--port N]".into()),
    };
    tools::ensure_all(tools::Needs { browser: false })?;
    build::build_all()?;
    let mut server = command("node", &["web/serve.mjs", "--root", "web/dist", "--port", &port])
        .spawn()
        .map_err(|error| format!("could not start the server: {error}"))?;
    eprintln!("watching exercises/, web/ and crates/: edits rebuild the page (reload to see them)");
    let mut page_stamp = newest(&WATCHED_PAGE);
    let mut wasm_stamp = newest(&WATCHED_WASM);
    loop {
        std::thread::sleep(POLL_INTERVAL);
        if let Ok(Some(status)) = server.try_wait() {
            return Err(format!("the server stopped ({status})"));
        }
        let (page_now, wasm_now) = (newest(&WATCHED_PAGE), newest(&WATCHED_WASM));
        if page_now == page_stamp && wasm_now == wasm_stamp {
            continue;
        }
        let result = if wasm_now != wasm_stamp { build::build_all() } else { build::bundle_web() };
        // A broken edit must not stop the server: say what is wrong and keep watching.
        match result {
            Ok(()) => eprintln!("rebuilt: reload the page"),
            Err(message) => eprintln!("the rebuild failed: {message}\n(fix it and save again; the last good page is still served)"),
        }
        (page_stamp, wasm_stamp) = (newest(&WATCHED_PAGE), newest(&WATCHED_WASM));
    }
}

/// The latest modification time of any file under the given folders.
fn newest(folders: &[&str]) -> Option<SystemTime> {
    fn walk(path: &Path, newest: &mut Option<SystemTime>) {
        let Ok(entries) = std::fs::read_dir(path) else { return };
        for entry in entries.flatten() {
            let path: PathBuf = entry.path();
            if path.file_name().is_some_and(|name| name == "target" || name == "node_modules") {
                continue;
            }
            if path.is_dir() {
                walk(&path, newest);
            } else if let Ok(modified) = entry.metadata().and_then(|meta| meta.modified()) {
                if newest.is_none_or(|current| modified > current) {
                    *newest = Some(modified);
                }
            }
        }
    }
    let mut latest = None;
    for folder in folders {
        walk(&root().join(folder), &mut latest);
    }
    latest
}
