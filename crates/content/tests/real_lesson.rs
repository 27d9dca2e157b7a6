//! The shipped lesson, `exercises/ownership-election`, checks clean and
//! renders to a complete document.

use std::fs;
use std::path::{Path, PathBuf};

use content::render::{RenderedLesson, RenderedQuestion};

fn lesson_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../exercises/ownership-election")
}

fn rendered() -> RenderedLesson {
    let checked = content::check_lesson(&lesson_dir());
    assert!(checked.diagnostics.is_empty(), "the lesson has errors:\n{}", content::Report::new(&checked).to_text());
    content::render_lesson(&checked.lesson)
}

#[test]
fn the_lesson_checks_clean() {
    let checked = content::check_lesson(&lesson_dir());
    let report = content::Report::new(&checked).to_text();
    assert_eq!(
        report,
        format!("checked 10 sections, 4 quizzes, {} exercises: 0 errors\n", grader::registry::names().len())
    );
}

#[test]
fn the_lesson_renders_every_part() {
    let lesson = rendered();
    assert_eq!(lesson.title, "Ownership Election");
    assert_eq!(lesson.sections.len(), 10);
    assert_eq!(lesson.quizzes.len(), 4);
    // Every exercise the grader registers is in the lesson.
    assert_eq!(lesson.exercises.keys().map(String::as_str).collect::<Vec<_>>().len(), grader::registry::names().len());
    for name in grader::registry::names() {
        assert!(lesson.exercises.contains_key(name), "the lesson has no {name} exercise");
    }
    assert_eq!(lesson.diagrams.len(), 2);
    assert_eq!(lesson.widgets, ["cas-playground", "failover-simulator", "fencing-race", "uptime-estimator"]);

    for section in &lesson.sections {
        assert!(!section.title.is_empty(), "{} has no title", section.file);
        assert!(!section.html.contains("{{#"), "{} still has a raw directive", section.file);
        for embed in &section.embeds {
            let placeholder = format!(
                "data-kind=\"{}\" data-src=\"{}\"",
                serde_json::to_value(embed.kind).unwrap().as_str().unwrap(),
                embed.src
            );
            assert!(section.html.contains(&placeholder), "{} lacks the placeholder {placeholder}", section.file);
        }
    }
    let all_html: String = lesson.sections.iter().map(|section| section.html.as_str()).collect();
    assert!(all_html.contains("<pre><code class=\"language-js\">"));
    assert!(all_html.contains("<pre><code class=\"language-sh\">"));
    assert!(all_html.contains("<table>"));
}

#[test]
fn quizzes_have_their_questions_and_every_option_is_explained() {
    let lesson = rendered();
    let counts: Vec<(&str, usize)> =
        lesson.quizzes.iter().map(|(path, quiz)| (path.as_str(), quiz.questions.len())).collect();
    assert_eq!(
        counts,
        [
            ("quizzes/fencing-and-guarantees.toml", 4),
            ("quizzes/locks-and-ttl.toml", 3),
            ("quizzes/review.toml", 9),
            ("quizzes/singleton-vs-election.toml", 3),
        ]
    );
    for (path, quiz) in &lesson.quizzes {
        for question in &quiz.questions {
            if let RenderedQuestion::MultipleChoice { options, .. } = question {
                assert!(options.iter().any(|option| option.correct), "{path}: a question has no correct option");
                assert!(
                    options.iter().all(|option| option.explanation_html.is_some()),
                    "{path}: an option is unexplained"
                );
            }
        }
    }
}

#[test]
fn exercises_have_starters_and_hints_but_never_solutions() {
    let lesson = rendered();
    let json = content::to_json(&lesson);
    for (name, exercise) in &lesson.exercises {
        assert!(!exercise.exports.is_empty(), "{name}");
        assert!(exercise.starter.contains("export"), "{name}");
        assert_eq!(exercise.hints.len(), 3, "{name}");
        assert!(!exercise.readme_html.contains("Hint 1"), "{name}: hints leak into the README");
        let solution = fs::read_to_string(lesson_dir().join(name).join("solution.js")).unwrap();
        assert!(!json.contains(&serde_json::to_string(&solution).unwrap()), "{name}: the solution is in the page");
    }
}
