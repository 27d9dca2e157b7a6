//! Running commands with a readable echo and an error that names the command.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository root (xtask lives one level below it). `cargo run` (the
/// `cargo xtask` alias) names xtask's folder at run time; the path compiled
/// in is only the fallback, since one binary may serve several checkouts
/// that share a target folder (a worktree's build would point at the worktree).
pub fn root() -> PathBuf {
    let manifest_dir =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    Path::new(&manifest_dir).parent().expect("xtask has a parent folder").to_path_buf()
}

/// A command that runs in the repository root.
pub fn command(program: &str, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command.args(args).current_dir(root());
    command
}

fn describe(command: &Command) -> String {
    let mut text = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

/// Runs a command, streaming its output; fails if it cannot start or exits non-zero.
pub fn run(mut command: Command) -> Result<(), String> {
    let description = describe(&command);
    eprintln!("$ {description}");
    let status = command.status().map_err(|error| format!("could not start `{description}`: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{description}` failed ({status})"))
    }
}

/// Runs a command quietly and returns its stdout, or None if it fails to run.
pub fn output(program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).current_dir(root()).stderr(Stdio::null()).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}
