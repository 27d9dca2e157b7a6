//! `cargo xtask check` (`npm run check`): the authors' checker. First the
//! content crate checks the lesson (every error at once, with
//! file:line:col); then, whether or not it found errors, every exercise
//! whose folder and files can be read is graded by the same command-line
//! grader course staff use: its `solution.js` must load and pass every test,
//! its `starter.js` must load, run and fail at least one. The check fails if
//! anything did, after reporting all of it, so an author fixes everything
//! from one run.
//!
//! A starter is judged by the grader's JSON report, not its exit status:
//! exit status 1 means "some test failed" and "could not be graded" alike,
//! and a starter with a syntax error is the second, which a learner could
//! not start from.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::cmd::{self, command, root};
use crate::{build, tools};

pub fn run() -> Result<(), String> {
    let lesson_dir = crate::lesson::dir()?;
    check(
        &root().join(&lesson_dir),
        &lesson_dir,
        || cmd::run(command("cargo", &["run", "--quiet", "-p", "content", "--", "check", &lesson_dir])),
        || {
            tools::ensure_all(tools::Needs { browser: false })?;
            // Always (re)build: cargo only recompiles what changed, and a wasm left
            // from before a checker changed would grade with the old rules.
            build::build_wasm()
        },
        grade_with_cli,
    )
}

/// Which of an exercise's two programs a grading is of, and what it must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// `solution.js`: loads and passes every test.
    Solution,
    /// `starter.js`: loads, runs and fails at least one test.
    Starter,
}

impl Role {
    fn file(self) -> &'static str {
        match self {
            Role::Solution => "solution.js",
            Role::Starter => "starter.js",
        }
    }
}

/// One file to grade.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Grading {
    exercise: String,
    /// The path the grader is given and messages name, relative to the repository root.
    path: String,
    role: Role,
}

/// What the grader printed and how it exited.
#[derive(Clone, Debug)]
struct Outcome {
    /// The exit code, or None if it was killed by a signal or could not start.
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// The content check, then the gradings, then one verdict. `content` runs the
/// content check, `prepare` makes the grader ready (tools, wasm) and `grade`
/// grades one file; they are parameters so the order can be tested without
/// building anything.
fn check(
    lesson_path: &Path,
    lesson_dir: &str,
    content: impl FnOnce() -> Result<(), String>,
    prepare: impl FnOnce() -> Result<(), String>,
    grade: impl Fn(&Grading) -> Outcome + Sync,
) -> Result<(), String> {
    // The content's errors are reported, not returned: the gradings below
    // still run, so one run shows every problem.
    let mut problems: Vec<String> = Vec::new();
    if let Err(error) = content() {
        problems.push(format!("the content check failed ({error}); its errors are listed above"));
    }
    if let Err(error) = prepare() {
        problems.push(format!("could not prepare the grader, so no exercise was graded: {error}"));
        return Err(problems.join("\n"));
    }
    let (gradings, skipped) = match plan(lesson_path, lesson_dir) {
        Ok(plan) => plan,
        Err(error) => {
            problems.push(error);
            return Err(problems.join("\n"));
        }
    };
    // A file that cannot be read is one the content check reports; if it did not, it is a problem here.
    let content_failed = !problems.is_empty();
    for reason in skipped {
        if content_failed {
            eprintln!("{reason}");
        } else {
            problems.push(reason);
        }
    }
    // The gradings are independent processes, each on one core: run a core's worth at once.
    let at_once = std::thread::available_parallelism().map_or(2, |cores| cores.get());
    let mut graded = 0;
    for batch in gradings.chunks(at_once) {
        let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
            let running: Vec<_> = batch.iter().map(|grading| scope.spawn(|| grade(grading))).collect();
            running.into_iter().map(|thread| thread.join().expect("a grading thread does not panic")).collect()
        });
        for (grading, outcome) in batch.iter().zip(&outcomes) {
            graded += 1;
            match judge(grading, outcome) {
                Ok(verdict) => eprintln!("{}: {verdict}", grading.path),
                Err(problem) => problems.push(problem),
            }
        }
    }
    if problems.is_empty() {
        eprintln!("graded {graded} files: every solution passes, every starter runs and fails");
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The files to grade, and a line for each that cannot be: every folder of
/// the lesson with an `exercise.toml`, sorted, solution then starter.
fn plan(lesson_path: &Path, lesson_dir: &str) -> Result<(Vec<Grading>, Vec<String>), String> {
    let mut exercises: Vec<String> = std::fs::read_dir(lesson_path)
        .map_err(|error| format!("cannot read the lesson folder {lesson_dir}: {error}; no exercise was graded"))?
        .flatten()
        .filter(|entry| entry.path().join("exercise.toml").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    exercises.sort();
    let mut gradings = Vec::new();
    let mut skipped = Vec::new();
    for exercise in exercises {
        for role in [Role::Solution, Role::Starter] {
            let path = format!("{lesson_dir}/{exercise}/{}", role.file());
            match std::fs::File::open(lesson_path.join(&exercise).join(role.file())) {
                Ok(file) if file.metadata().is_ok_and(|metadata| metadata.is_file()) => {
                    gradings.push(Grading { exercise: exercise.clone(), path, role })
                }
                Ok(_) => skipped.push(format!("{path}: not graded: it is not a file; make it one")),
                Err(error) => skipped.push(format!("{path}: not graded: cannot read it ({error}); create it")),
            }
        }
    }
    Ok((gradings, skipped))
}

/// Grades one file with the CLI, as course staff would, for its JSON report.
fn grade_with_cli(grading: &Grading) -> Outcome {
    let output = Command::new("node")
        .args(["cli/leaselab.mjs", "grade", &grading.path, "--exercise", &grading.exercise, "--format", "json"])
        .current_dir(root())
        .stdin(Stdio::null())
        .output();
    match output {
        Ok(output) => Outcome {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        },
        Err(error) => Outcome { code: None, stdout: String::new(), stderr: format!("could not run node: {error}") },
    }
}

/// One failing test as a short phrase: its name and the grader's message.
fn describe_test(test: &Value) -> String {
    let name = test["name"].as_str().unwrap_or("a test");
    match test["message"].as_str().filter(|message| !message.is_empty()) {
        Some(message) => format!("\"{name}\": {message}"),
        None => format!("\"{name}\""),
    }
}

/// Whether a grading did what its role requires: a line to print if so,
/// else the problem, naming the file, what went wrong and what to do.
fn judge(grading: &Grading, outcome: &Outcome) -> Result<String, String> {
    let Grading { exercise, path, role } = grading;
    let rerun = format!("run `npx leaselab grade {path} --exercise {exercise}` to see the report");
    let report: Option<Value> = serde_json::from_str::<Value>(&outcome.stdout)
        .ok()
        .map(|document| document["results"][0]["report"].clone())
        .filter(|report| report["tests"].is_array() && report["problems"].is_array());
    let report = match report {
        Some(report) if matches!(outcome.code, Some(0 | 1)) => report,
        _ => {
            let status =
                outcome.code.map_or_else(|| "no exit status".to_string(), |code| format!("exit status {code}"));
            let said = outcome.stderr.lines().find(|line| !line.trim().is_empty()).unwrap_or("nothing on stderr");
            return Err(format!("{path}: the grader could not grade it ({status}: {said}); {rerun}"));
        }
    };
    let problems: Vec<&str> = report["problems"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if !problems.is_empty() {
        let must = match role {
            Role::Solution => "a solution must load and pass every test",
            Role::Starter => "a starter must load and run, and only fail tests, for a learner to start from it",
        };
        return Err(format!("{path}: the grader could not run it: {}; fix that, since {must}", problems.join("; ")));
    }
    let tests: Vec<&Value> = report["tests"].as_array().into_iter().flatten().collect();
    if tests.is_empty() {
        return Err(format!("{path}: the grader ran no test; {rerun}"));
    }
    let failed: Vec<&Value> = tests.iter().copied().filter(|test| test["status"].as_str() != Some("passed")).collect();
    match (role, failed.first()) {
        (Role::Solution, None) => Ok(format!("passes all {} tests, as a solution must", tests.len())),
        (Role::Solution, Some(first)) => Err(format!(
            "{path}: fails {} of {} tests, first {}; a solution must pass every test: {rerun}",
            failed.len(),
            tests.len(),
            describe_test(first)
        )),
        (Role::Starter, Some(_)) => {
            Ok(format!("runs and fails {} of {} tests, as a starter must", failed.len(), tests.len()))
        }
        (Role::Starter, None) => Err(format!(
            "{path}: passes all {} tests; a starter must leave something for the learner to fix",
            tests.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    fn grading(role: Role) -> Grading {
        Grading { exercise: "lock".into(), path: format!("lesson/lock/{}", role.file()), role }
    }

    /// The CLI's JSON report for one file, with these problems and test statuses.
    fn report(problems: &[&str], statuses: &[&str]) -> Outcome {
        let tests: Vec<Value> = statuses
            .iter()
            .enumerate()
            .map(|(index, status)| {
                let message = if *status == "passed" { "" } else { "p1 unlocked a lock that p2 held" };
                serde_json::json!({ "name": format!("test {}", index + 1), "status": status, "message": message })
            })
            .collect();
        let document = serde_json::json!({ "format": "leaselab-report", "results": [
            { "exercise": "lock", "report": { "exercise": "lock", "problems": problems, "tests": tests } }
        ] });
        let code = if problems.is_empty() && statuses.iter().all(|status| *status == "passed") { 0 } else { 1 };
        Outcome { code: Some(code), stdout: document.to_string(), stderr: String::new() }
    }

    #[test]
    fn judges_by_the_report_not_the_exit_status() {
        let syntax_error = report(&["lock.js:22:6: SyntaxError: expecting ';'"], &[]);
        let failing = report(&[], &["passed", "failed", "failed"]);
        let passing = report(&[], &["passed", "passed"]);
        let unrunnable =
            Outcome { code: Some(2), stdout: String::new(), stderr: "leaselab: unknown exercise\n".into() };
        let garbled = Outcome { code: Some(1), stdout: "not json".into(), stderr: String::new() };
        for (role, outcome, expected) in [
            (Role::Starter, &failing, Ok("runs and fails 2 of 3 tests, as a starter must")),
            (
                Role::Starter,
                &syntax_error,
                Err("lesson/lock/starter.js: the grader could not run it: lock.js:22:6: SyntaxError: expecting ';'; fix that, since a starter must load and run, and only fail tests, for a learner to start from it"),
            ),
            (
                Role::Starter,
                &passing,
                Err("lesson/lock/starter.js: passes all 2 tests; a starter must leave something for the learner to fix"),
            ),
            (Role::Solution, &passing, Ok("passes all 2 tests, as a solution must")),
            (
                Role::Solution,
                &syntax_error,
                Err("lesson/lock/solution.js: the grader could not run it: lock.js:22:6: SyntaxError: expecting ';'; fix that, since a solution must load and pass every test"),
            ),
            (
                Role::Solution,
                &failing,
                Err("lesson/lock/solution.js: fails 2 of 3 tests, first \"test 2\": p1 unlocked a lock that p2 held; a solution must pass every test: run `npx leaselab grade lesson/lock/solution.js --exercise lock` to see the report"),
            ),
            (
                Role::Starter,
                &unrunnable,
                Err("lesson/lock/starter.js: the grader could not grade it (exit status 2: leaselab: unknown exercise); run `npx leaselab grade lesson/lock/starter.js --exercise lock` to see the report"),
            ),
            (
                Role::Solution,
                &garbled,
                Err("lesson/lock/solution.js: the grader could not grade it (exit status 1: nothing on stderr); run `npx leaselab grade lesson/lock/solution.js --exercise lock` to see the report"),
            ),
            (
                Role::Starter,
                &report(&[], &[]),
                Err("lesson/lock/starter.js: the grader ran no test; run `npx leaselab grade lesson/lock/starter.js --exercise lock` to see the report"),
            ),
        ] {
            let verdict = judge(&grading(role), outcome);
            assert_eq!(verdict.as_deref().map_err(String::as_str), expected, "{role:?} {outcome:?}");
        }
    }

    /// A scratch lesson: `lock` with both files, `lease` without its starter.
    fn scratch_lesson() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-check-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (file, text) in [
            ("lock/exercise.toml", ""),
            ("lock/solution.js", ""),
            ("lock/starter.js", ""),
            ("lease/exercise.toml", ""),
            ("lease/solution.js", ""),
            ("quizzes/q.toml", ""),
        ] {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    /// Content errors are reported, and every file that can be graded still
    /// is; the check fails with all of it.
    #[test]
    fn grades_every_readable_exercise_even_when_the_content_has_errors() {
        let dir = scratch_lesson();
        let graded = Mutex::new(Vec::new());
        let result = check(
            &dir,
            "lesson",
            || Err("`content check` failed (exit status: 1)".to_string()),
            || Ok(()),
            |grading| {
                graded.lock().unwrap().push(grading.path.clone());
                // Every file passes: the lease solution's pass is right, the lock starter's is a problem.
                report(&[], &["passed", "passed"])
            },
        );
        let mut graded = graded.into_inner().unwrap();
        graded.sort();
        assert_eq!(graded, ["lesson/lease/solution.js", "lesson/lock/solution.js", "lesson/lock/starter.js"]);
        assert_eq!(
            result,
            Err([
                "the content check failed (`content check` failed (exit status: 1)); its errors are listed above",
                "lesson/lock/starter.js: passes all 2 tests; a starter must leave something for the learner to fix",
            ]
            .join("\n"))
        );

        // Content errors alone fail the check; a clean lesson whose files all do their part passes it.
        let content_only = check(
            &dir,
            "lesson",
            || Err("x".into()),
            || Ok(()),
            |grading| match grading.role {
                Role::Solution => report(&[], &["passed"]),
                Role::Starter => report(&[], &["failed"]),
            },
        );
        assert!(content_only.is_err());
        let clean = check(
            &dir,
            "lesson",
            || Ok(()),
            || Ok(()),
            |grading| match grading.role {
                Role::Solution => report(&[], &["passed"]),
                Role::Starter => report(&[], &["failed"]),
            },
        );
        // The lease starter is missing: with no content error to explain it, that is the problem.
        assert_eq!(clean, Err("lesson/lease/starter.js: not graded: cannot read it (No such file or directory (os error 2)); create it".to_string()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
