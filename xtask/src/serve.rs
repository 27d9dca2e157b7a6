//! `cargo xtask serve`: build, then serve `web/dist` with the small static
//! server in `web/serve.mjs` (correct MIME types, including application/wasm).

use crate::cmd::{self, command};
use crate::{build, tools};

pub fn run(args: &[String]) -> Result<(), String> {
    let port = match args {
        [] => "8080".to_string(),
        [flag, port] if flag == "--port" && port.parse::<u16>().is_ok() => port.clone(),
        _ => return Err("usage: cargo xtask serve [--port N]".into()),
    };
    tools::ensure_all(tools::Needs { browser: false })?;
    build::build_all()?;
    cmd::run(command("node", &["web/serve.mjs", "--root", "web/dist", "--port", &port]))
}
