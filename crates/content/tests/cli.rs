//! The `content` command as authors and the build run it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_content")).args(arguments).output().expect("the binary runs")
}

fn path(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative).display().to_string()
}

fn scratch_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("content-cli-test-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn check_a_clean_lesson_exits_zero_with_a_summary() {
    let output = run(&["check", &path("../../exercises/ownership-election")]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        format!("checked 10 sections, 4 quizzes, {} exercises: 0 errors\n", grader::registry::names().len())
    );
}

#[test]
fn check_a_broken_lesson_prints_every_error_and_exits_one() {
    let output = run(&["check", &path("tests/fixtures/duplicate-ids")]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("duplicate-ids/quizzes/first.toml:8:6: error: the question id `shared`"), "{text}");
    assert_eq!(lines[3], "checked 1 section, 2 quizzes, 0 exercises: 3 errors");
}

#[test]
fn check_can_report_json_for_tools() {
    let output = run(&["check", "--format", "json", &path("tests/fixtures/duplicate-ids")]);
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("valid JSON");
    assert_eq!(report["errors"], 3);
    assert_eq!(report["sections"], 1);
    assert_eq!(report["quizzes"], 2);
    let first = &report["diagnostics"][0];
    assert_eq!(first["file"], "duplicate-ids/quizzes/first.toml");
    assert_eq!(first["line"], 8);
    assert_eq!(first["column"], 6);
    assert_eq!(first["rule"], "duplicate-id");
    assert!(first["message"].as_str().unwrap().contains("; give every question"));
}

#[test]
fn bad_usage_exits_two() {
    let clean = path("tests/fixtures/clean");
    let cases: [&[&str]; 6] = [
        &[],
        &["lint", "x"],
        &["check"],
        &["check", "--format", "yaml", "x"],
        &["check", "/no/such/lesson/dir"],
        &["render", &clean],
    ];
    for arguments in cases {
        let output = run(arguments);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("usage: content check"), "{arguments:?}");
    }
    assert_eq!(run(&["--help"]).status.code(), Some(0));
}

#[test]
fn render_writes_the_document_for_a_clean_lesson() {
    let out = scratch_file("clean.json");
    let output = run(&["render", &path("tests/fixtures/clean"), "--out", &out.display().to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let document: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(document["format_version"], 1);
    assert_eq!(document["sections"].as_array().unwrap().len(), 2);
    fs::remove_file(out).unwrap();
}

#[test]
fn render_refuses_a_lesson_with_errors() {
    let out = scratch_file("broken.json");
    let output = run(&["render", &path("tests/fixtures/embeds"), "--out", &out.display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("embeds/02-b.md:3:1: error:"), "{stderr}");
    assert!(stderr.contains("not rendering"), "{stderr}");
    assert!(!out.exists(), "a document was written despite errors");
}
