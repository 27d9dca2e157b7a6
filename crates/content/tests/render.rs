//! Rendering: the document the page loads, and mdbook-quiz compatibility.

use std::fs;
use std::path::{Path, PathBuf};

use content::diagnostic::{Diagnostics, SourceFile};
use content::quiz::{read_quiz, Strictness};
use expect_test::expect_file;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// The whole document for a small lesson that uses every kind of embed and
/// every quiz question type: a change to the shape shows up here in review.
#[test]
fn clean_lesson_renders_to_the_documented_shape() {
    let checked = content::check_lesson(&fixture("clean"));
    assert!(checked.diagnostics.is_empty(), "{:#?}", checked.diagnostics);
    let json = content::to_json(&content::render_lesson(&checked.lesson));
    expect_file!["snapshots/clean-render.json"].assert_eq(&json);
}

/// A quiz in mdbook-quiz's documented format, using each of its question
/// types and fields, loads without a diagnostic and serializes back to
/// exactly the data its TOML holds: nothing is dropped or renamed. Our
/// `explain` and `title` extensions round-trip the same way.
#[test]
fn mdbook_quiz_files_round_trip_unchanged() {
    for quiz_path in ["clean/quizzes/mdbook-format.toml", "clean/quizzes/explained.toml"] {
        let text = fs::read_to_string(fixture(quiz_path)).unwrap();
        let file = SourceFile::new(quiz_path, text.clone());
        let mut diagnostics = Diagnostics::default();
        let loaded = read_quiz(&file, Strictness::MdbookQuiz, &mut diagnostics).expect("the quiz parses");
        let problems: Vec<String> = diagnostics.into_sorted().iter().map(ToString::to_string).collect();
        assert!(problems.is_empty(), "{quiz_path}: {problems:#?}");

        let as_written: serde_json::Value = toml::from_str(&text).unwrap();
        let as_loaded = serde_json::to_value(&loaded.quiz).unwrap();
        assert_eq!(as_loaded, as_written, "{quiz_path}");
    }
}

/// The mdbook-quiz fixture really does use every type and field, so the
/// round-trip test above covers them all.
#[test]
fn mdbook_quiz_fixture_covers_every_type_and_field() {
    let text = fs::read_to_string(fixture("clean/quizzes/mdbook-format.toml")).unwrap();
    for needle in [
        "[multipart]",
        "id = ",
        "multipart = ",
        "context = ",
        "promptExplanation = ",
        "type = \"MultipleChoice\"",
        "prompt.prompt",
        "prompt.distractors",
        "prompt.answerIndex",
        "prompt.sortAnswers",
        "answer.answer = \"",
        "answer.answer = [",
        "type = \"ShortAnswer\"",
        "prompt.response",
        "answer.alternatives",
        "type = \"Tracing\"",
        "prompt.program",
        "answer.doesCompile",
        "answer.stdout",
        "answer.lineNumber",
    ] {
        assert!(text.contains(needle), "the fixture does not use `{needle}`");
    }
}
