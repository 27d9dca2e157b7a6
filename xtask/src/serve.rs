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

const USAGE: &str =
    "usage: cargo xtask serve [--port N] [--host ADDRESS]  (or the PORT and HOST environment variables; flags win)";

pub fn run(args: &[String]) -> Result<(), String> {
    // The server (web/serve.mjs) reads PORT and HOST itself and checks every
    // value; here only the shape of the command line is checked, before the build.
    let mut server_args: Vec<String> = vec!["web/serve.mjs".into(), "--root".into(), "web/dist".into()];
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        match flag.as_str() {
            "--port" | "--host" => {
                let value = rest.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
                server_args.extend([flag.clone(), value.clone()]);
            }
            "--help" | "-h" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    // A bad PORT or --port is refused now, not after a build of several minutes.
    let mut check = command("node", &server_args.iter().map(String::as_str).chain(["--check"]).collect::<Vec<_>>());
    let checked = check.output().map_err(|error| format!("could not start node: {error}"))?;
    if !checked.status.success() {
        return Err(String::from_utf8_lossy(&checked.stderr).trim().to_string());
    }
    tools::ensure_all(tools::Needs { browser: false })?;
    build::build_all()?;
    let server_args: Vec<&str> = server_args.iter().map(String::as_str).collect();
    let mut server =
        command("node", &server_args).spawn().map_err(|error| format!("could not start the server: {error}"))?;
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
            Err(message) => {
                eprintln!("the rebuild failed: {message}\n(fix it and save again; the last good page is still served)")
            }
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
