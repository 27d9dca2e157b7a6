//! `cargo xtask check` (`npm run check`): the authors' checker. First the
//! content crate checks the lesson (every error at once, with
//! file:line:col); then every exercise's `starter.js` must fail and its
//! `solution.js` must pass, graded by the same command-line grader course
//! staff use.

use std::process::Command;

use crate::cmd::{self, command, root};
use crate::{build, tools};

pub fn run() -> Result<(), String> {
    let lesson_dir = crate::lesson::dir()?;
    cmd::run(command("cargo", &["run", "--quiet", "-p", "content", "--", "check", &lesson_dir]))?;
    tools::ensure_all(tools::Needs { browser: false })?;
    // Always (re)build: cargo only recompiles what changed, and a wasm left
    // from before a checker changed would grade with the old rules.
    build::build_wasm()?;
    let mut problems = Vec::new();
    let mut exercises: Vec<String> = std::fs::read_dir(root().join(&lesson_dir))
        .map_err(|error| format!("cannot read {lesson_dir}: {error}"))?
        .flatten()
        .filter(|entry| entry.path().join("exercise.toml").exists())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    exercises.sort();
    let gradings: Vec<(String, String, bool)> = exercises
        .iter()
        .flat_map(|exercise| {
            [("solution.js", true), ("starter.js", false)]
                .map(|(file, must_pass)| (exercise.clone(), format!("{lesson_dir}/{exercise}/{file}"), must_pass))
        })
        .collect();
    // The gradings are independent processes, each on one core: run a core's worth at once.
    let at_once = std::thread::available_parallelism().map_or(2, |cores| cores.get());
    for batch in gradings.chunks(at_once) {
        let mut running = Vec::new();
        for (exercise, path, must_pass) in batch {
            let child = Command::new("node")
                .args(["cli/leaselab.mjs", "grade", path, "--exercise", exercise, "--format", "json"])
                .current_dir(root())
                .stdout(std::process::Stdio::null())
                .spawn()
                .map_err(|error| format!("could not run the grader: {error}"))?;
            running.push((exercise, path, *must_pass, child));
        }
        for (exercise, path, must_pass, mut child) in running {
            let status = child.wait().map_err(|error| format!("could not run the grader: {error}"))?;
            match (status.code(), must_pass) {
                (Some(0), true) | (Some(1), false) => {
                    eprintln!("{path}: {}", if must_pass { "passes, as a solution must" } else { "fails, as a starter must" })
                }
                (Some(0), false) => problems.push(format!("{path}: passes every test; a starter must leave something for the learner to fix")),
                (Some(1), true) => problems.push(format!("{path}: fails some test; run `npx leaselab grade {path} --exercise {exercise}` to see which")),
                _ => problems.push(format!("{path}: the grader could not grade it ({status}); run `npx leaselab grade {path} --exercise {exercise}`")),
            }
        }
    }
    if problems.is_empty() {
        eprintln!("checked {} exercises: every solution passes, every starter fails", exercises.len());
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
