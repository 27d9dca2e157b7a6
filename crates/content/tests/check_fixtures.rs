//! Snapshot tests of the checker: one broken lesson per class of error under
//! `tests/fixtures/`, each with the full report an author would see.
//! Refresh with `UPDATE_EXPECT=1 cargo test -p content --test check_fixtures`,
//! then read every changed snapshot before committing it.

use std::path::Path;

use expect_test::{expect, Expect};

fn check(fixture: &str, expected: Expect) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture);
    let checked = content::check_lesson(&dir);
    expected.assert_eq(&content::Report::new(&checked).to_text());
}

#[test]
fn clean_lesson_has_no_errors() {
    check(
        "clean",
        expect![[r#"
            checked 2 sections, 2 quizzes, 1 exercise: 0 errors
        "#]],
    );
}

#[test]
fn missing_lesson_toml() {
    check(
        "missing-lesson-toml",
        expect![[r#"
        missing-lesson-toml/lesson.toml:1:1: error: `missing-lesson-toml/lesson.toml` does not exist; create lesson.toml with `title`, `summary` and `sections = ["01-intro.md", ...]`
        checked 0 sections, 0 quizzes, 0 exercises: 1 error
    "#]],
    );
}

#[test]
fn manifest_errors() {
    check(
        "manifest-errors",
        expect![[r#"
        manifest-errors/03-unlisted.md:1:1: error: nothing in the lesson uses this file; add it to `sections` in lesson.toml, or delete it
        manifest-errors/lesson.toml:1:1: error: lesson.toml has an unknown field `titel`; did you mean `title`?
        manifest-errors/lesson.toml:1:1: error: lesson.toml has no `title`; add it, for example `title = "..."`
        manifest-errors/lesson.toml:2:11: error: `summary` in lesson.toml is empty; write the lesson's summary
        manifest-errors/lesson.toml:3:24: error: `require_explanations` in lesson.toml must be true or false, but it is a string; write it as `require_explanations = true`
        manifest-errors/lesson.toml:4:24: error: `manifest-errors/02-missing.md` does not exist; create the file, or remove it from `sections` in lesson.toml
        manifest-errors/lesson.toml:4:41: error: `01-a.md` is listed twice in `sections` (first at manifest-errors/lesson.toml:4:13); list each section once
        manifest-errors/lesson.toml:4:52: error: the section `notes.txt` is not a Markdown file; list `.md` files in `sections`
        manifest-errors/lesson.toml:4:65: error: `../outside.md` is not a plain path inside the lesson folder; write it relative to the lesson folder, without `..`, `//` or a leading `/`, e.g. `quizzes/locks-and-ttl.toml`
        checked 1 section, 0 quizzes, 0 exercises: 9 errors
    "#]],
    );
}

#[test]
fn toml_syntax_errors() {
    check(
        "toml-syntax",
        expect![[r#"
        toml-syntax/quizzes/broken.toml:4:27: error: invalid TOML: missing comma between array elements, expected `,`; fix the syntax here (strings need double quotes, arrays need commas and a closing `]`, a key may appear once per table)
        toml-syntax/quizzes/broken.toml:5:17: error: invalid TOML: string values must be quoted, expected literal string; fix the syntax here (strings need double quotes, arrays need commas and a closing `]`, a key may appear once per table)
        checked 1 section, 0 quizzes, 0 exercises: 2 errors
    "#]],
    );
}

/// Copies `from` into `to`, folders included.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// With no sections read, every quiz, diagram and exercise would look
/// unused: only the syntax error is reported. The `clean` lesson, with a
/// comma missing from its lesson.toml.
#[test]
fn lesson_toml_syntax_error_alone() {
    let scratch = std::env::temp_dir().join(format!("content-check-{}", std::process::id()));
    let lesson = scratch.join("lesson-toml-syntax");
    let _ = std::fs::remove_dir_all(&scratch);
    copy_folder(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clean"), &lesson);
    let manifest = std::fs::read_to_string(lesson.join("lesson.toml")).unwrap();
    let broken = manifest
        .replace(r#"sections = ["01-intro.md", "02-practice.md"]"#, r#"sections = ["01-intro.md" "02-practice.md"]"#);
    assert_ne!(broken, manifest, "the clean lesson's sections line changed: update this test");
    std::fs::write(lesson.join("lesson.toml"), broken).unwrap();
    let checked = content::check_lesson(&lesson);
    std::fs::remove_dir_all(&scratch).unwrap();
    expect![[r#"
        lesson-toml-syntax/lesson.toml:5:27: error: invalid TOML: missing comma between array elements, expected `,`; fix the syntax here (strings need double quotes, arrays need commas and a closing `]`, a key may appear once per table)
        checked 0 sections, 0 quizzes, 0 exercises: 1 error
    "#]]
    .assert_eq(&content::Report::new(&checked).to_text());
}

#[test]
fn section_errors() {
    check(
        "sections",
        expect![[r#"
        sections/01-no-heading.md:1:1: error: the section does not start with a heading, so it has no title; begin the file with a heading such as `## Implementing locks`
        sections/02-empty.md:1:1: error: the section does not start with a heading, so it has no title; begin the file with a heading such as `## Implementing locks`
        sections/03-latin1.md:1:6: error: the file is not valid UTF-8 text; save it as UTF-8
        checked 3 sections, 0 quizzes, 0 exercises: 3 errors
    "#]],
    );
}

#[test]
fn directive_errors() {
    check(
        "directives",
        expect![[r#"
            directives/01-directives.md:3:1: error: `{{#quizz}}` is not a directive; did you mean `quiz`? (allowed: `quiz`, `exercise`, `widget`, `diagram`)
            directives/01-directives.md:4:1: error: the directive `{{#quiz quizzes/a.toml` is not closed with `}}` at the end of the line; write it as `{{#NAME ARGUMENT}}`, e.g. `{{#quiz quizzes/locks-and-ttl.toml}}`
            directives/01-directives.md:5:1: error: `{{#quiz}}` has no argument; write it as `{{#quiz quizzes/NAME.toml}}`
            directives/01-directives.md:6:1: error: `{{#widget}}` has 2 arguments but takes one; write it as `{{#widget NAME}}`
            directives/01-directives.md:7:3: error: the directive is indented; start it at the beginning of the line, with a blank line before and after
            directives/01-directives.md:8:5: error: a directive shares its line with other text; put the directive on a line of its own, with a blank line before and after (or quote it in `backticks` if it is an example)
            directives/01-directives.md:9:1: error: `{{quiz quizzes/a.toml}}` looks like a directive but has no `#` after `{{`; write it as `{{#NAME ARGUMENT}}`, e.g. `{{#quiz quizzes/locks-and-ttl.toml}}`
            directives/01-directives.md:10:1: error: the directive has no name; write it as `{{#NAME ARGUMENT}}`, e.g. `{{#quiz quizzes/locks-and-ttl.toml}}`
            directives/01-directives.md:18:1: error: `directives/quizzes/missing.toml` does not exist; create the quiz file, or correct the path (it is relative to the lesson folder)
            directives/01-directives.md:20:1: error: `../secret.toml` is not a plain path inside the lesson folder; write it relative to the lesson folder, without `..`, `//` or a leading `/`, e.g. `quizzes/locks-and-ttl.toml`
            directives/01-directives.md:22:1: error: a quiz must be a `.toml` file, but `quizzes/notes.txt` is not; write it as `{{#quiz quizzes/NAME.toml}}`
            directives/01-directives.md:24:1: error: `directives/diagrams/missing.svg` does not exist; create the SVG file, or correct the path (it is relative to the lesson folder)
            directives/01-directives.md:26:1: error: `directives/nope/exercise.toml` does not exist; create the folder `nope/` with exercise.toml, README.md, starter.js and solution.js, or correct the name
            directives/01-directives.md:28:1: error: `Bad_Name` is not a valid exercise name; name the exercise after its folder, using lowercase letters, digits and hyphens, e.g. `{{#exercise lock}}`
            directives/01-directives.md:30:1: error: there is no widget named `cas-playgrond`; did you mean `cas-playground`? (allowed: `cas-playground`, `failover-simulator`, `fencing-race`, `uptime-estimator`)
            directives/01-directives.md:32:1: error: there is no widget named `spinner`; use one of `cas-playground`, `failover-simulator`, `fencing-race`, `uptime-estimator`
            checked 1 section, 0 quizzes, 0 exercises: 16 errors
        "#]],
    );
}

#[test]
fn embed_errors() {
    check(
        "embeds",
        expect![[r#"
            embeds/02-b.md:3:1: error: the quiz `quizzes/q.toml` is already embedded at embeds/01-a.md:3:1; embed each quiz and exercise once
            embeds/02-b.md:5:1: error: the exercise `counter` is already embedded at embeds/01-a.md:5:1; embed each quiz and exercise once
            embeds/counter/exercise.toml:1:1: error: the grader has no exercise named `counter` (it grades cas, lock, lease, fencing, election); name the folder after a registered exercise, or register a new one in crates/grader (see AUTHORING.md, "Adding an exercise")
            embeds/diagrams/not-svg.svg:1:1: error: the diagram has no `<svg>` element; export the diagram as SVG
            embeds/diagrams/scripted.svg:3:3: error: the diagram contains a `<SCRIPT>`, which would run inside the lesson page; remove the script; diagrams must be static
            embeds/diagrams/untitled.svg:1:1: error: the diagram has no `<title>`, so screen readers cannot name it; add `<title>What the diagram shows</title>` as the first child of `<svg>` (and a `<desc>` for the details)
            embeds/diagrams/unused.svg:1:1: error: nothing in the lesson uses this file; embed it in a section with `{{#diagram diagrams/unused.svg}}`, or delete it
            embeds/orphan/exercise.toml:1:1: error: nothing in the lesson uses this file; embed it in a section with `{{#exercise orphan}}`, or delete the folder
            embeds/quizzes/unused.toml:1:1: error: nothing in the lesson uses this file; embed it in a section with `{{#quiz quizzes/unused.toml}}`, or delete it
            checked 2 sections, 1 quiz, 1 exercise: 9 errors
        "#]],
    );
}

#[test]
fn quiz_field_errors() {
    check(
        "quiz-fields",
        expect![[r#"
        quiz-fields/quizzes/fields.toml:1:1: error: the quiz has an unknown field `titel`; did you mean `title`?
        quiz-fields/quizzes/fields.toml:3:1: error: question 1 has no `prompt` table; add it with dotted keys, for example `prompt.prompt = "..."`
        quiz-fields/quizzes/fields.toml:5:1: error: question 1 has an unknown field `promt`; did you mean `prompt`?
        quiz-fields/quizzes/fields.toml:10:1: error: question 2 has no `prompt.distractors`; add it, for example `prompt.distractors = ["...", "..."]`
        quiz-fields/quizzes/fields.toml:11:8: error: question 2 has an unknown field `prompt.distractor`; did you mean `prompt.distractors`?
        quiz-fields/quizzes/fields.toml:12:1: error: question 2 has no `answer.answer`; add it, for example `answer.answer = "..."`
        quiz-fields/quizzes/fields.toml:12:8: error: question 2 has an unknown field `answer.answers`; did you mean `answer.answer`?
        quiz-fields/quizzes/fields.toml:13:9: error: question 2 has an unknown field `explain.distractor`; did you mean `explain.distractors`?
        quiz-fields/quizzes/fields.toml:17:8: error: question 3 has the unknown type "MultipleChoise"; did you mean "MultipleChoice"? (allowed: "MultipleChoice", "ShortAnswer", "Tracing")
        quiz-fields/quizzes/fields.toml:21:1: error: question 4 has no `type`; add it, for example `type = "..."`
        quiz-fields/quizzes/fields.toml:28:22: error: `prompt.distractors` in question 5 must be an array of strings, but it is a string; write it as `prompt.distractors = ["...", "..."]`
        quiz-fields/quizzes/fields.toml:29:17: error: `answer.answer` in question 5 must be a string or an array of strings, but it is an integer; write it as `answer.answer = "..."`
        quiz-fields/quizzes/fields.toml:33:13: error: question 6 refers to the multipart context `undefined-part`, which the quiz does not define; define it at the top of the file: `multipart.undefined-part = "..."`
        quiz-fields/quizzes/fields.toml:35:19: error: `prompt.response` in question 6 is "essay"; use "short", "long" or "code"
        quiz-fields/quizzes/fields.toml:37:1: error: question 6 has `explain`, which only multiple-choice questions have; explain the answer in `context = "..."` instead
        quiz-fields/quizzes/fields.toml:38:21: error: `promptExplanation` in question 6 must be true or false, but it is a string; write it as `promptExplanation = true`
        quiz-fields/quizzes/fields.toml:42:1: error: question 7 has no `prompt.program`; add it, for example `prompt.program = "..."`
        quiz-fields/quizzes/fields.toml:42:8: error: question 7 has an unknown field `prompt.code`; remove it; the fields allowed here are `prompt.program`
        quiz-fields/quizzes/fields.toml:44:21: error: `answer.lineNumber` in question 7 must be a whole number from 0 up, but it is -1; write it as `answer.lineNumber = 0` or another number from 0 up
        checked 1 section, 1 quiz, 0 exercises: 19 errors
    "#]],
    );
}

#[test]
fn quiz_answer_errors() {
    check(
        "quiz-answers",
        expect![[r#"
        quiz-answers/quizzes/answers.toml:4:17: error: `prompt.prompt` in question 1 (`empty-prompt`) is empty; write the question the learner should answer
        quiz-answers/quizzes/answers.toml:13:17: error: question 2 (`empty-answer-list`) has no correct answer: `answer.answer` is empty; write the correct option in `answer.answer` (a list of several for "select all that apply")
        quiz-answers/quizzes/answers.toml:19:28: error: an entry of `prompt.distractors` in question 3 (`blank-answer`) is empty; write the text, or remove the entry
        quiz-answers/quizzes/answers.toml:20:17: error: question 3 (`blank-answer`) has no correct answer: `answer.answer` is empty; write the correct option in `answer.answer` (a list of several for "select all that apply")
        quiz-answers/quizzes/answers.toml:26:23: error: question 4 (`distractor-is-answer`) lists "right" both as a distractor and as an answer; remove it from `prompt.distractors` if it is right, or from `answer.answer` if it is wrong
        quiz-answers/quizzes/answers.toml:26:41: error: question 4 (`distractor-is-answer`) lists "wrong" twice in `prompt.distractors`; remove or reword one of them
        quiz-answers/quizzes/answers.toml:34:22: error: question 5 (`index-with-several`) is single-answer (`prompt.answerIndex` places one answer) but `answer.answer` lists 2; keep one answer in `answer.answer`, or remove `prompt.answerIndex` to make it a select-all question
        quiz-answers/quizzes/answers.toml:42:22: error: `prompt.answerIndex` is 2, but question 6 (`index-out-of-range`) has only 2 options (indices 0 to 1); use an index from 0 up to the number of distractors
        quiz-answers/quizzes/answers.toml:48:17: error: `prompt.prompt` in question 7 (`short-empty`) is empty; write the question the learner should answer
        quiz-answers/quizzes/answers.toml:49:17: error: question 7 (`short-empty`) has no correct answer: `answer.answer` is empty; write the expected answer in `answer.answer`
        quiz-answers/quizzes/answers.toml:50:24: error: an entry of `answer.alternatives` in question 7 (`short-empty`) is empty; write the text, or remove the entry
        quiz-answers/quizzes/answers.toml:55:18: error: `prompt.program` in question 8 (`tracing-empty`) is empty; write the program the learner should trace
        checked 1 section, 1 quiz, 0 exercises: 12 errors
    "#]],
    );
}

#[test]
fn quiz_explanation_errors() {
    check(
        "quiz-explanations",
        expect![[r#"
        quiz-explanations/quizzes/explanations.toml:1:1: error: question 1 (`no-explain`) has no `explain` table; add `explain.answer = "why it is right"` and `explain.distractors = ["why the first is wrong", ...]`, one per distractor (lesson.toml sets require_explanations = true)
        quiz-explanations/quizzes/explanations.toml:15:23: error: question 2 (`too-few-distractor-explanations`) has 3 distractor(s) but 2 explanation(s) in `explain.distractors`; give exactly one explanation per distractor, in the order of `prompt.distractors`
        quiz-explanations/quizzes/explanations.toml:23:18: error: question 3 (`answer-explanations-mismatch`) has 2 correct answer(s) but 1 explanation(s) in `explain.answer`; give exactly one explanation per correct answer, in the order of `answer.answer`
        quiz-explanations/quizzes/explanations.toml:24:24: error: an entry of `explain.distractors` in question 3 (`answer-explanations-mismatch`) is empty; write the text, or remove the entry
        quiz-explanations/quizzes/explanations.toml:32:1: error: question 4 (`no-distractor-explanations`) has no `explain.distractors`; add it, for example `explain.distractors = ["...", "..."]`
        quiz-explanations/quizzes/explanations.toml:34:1: error: question 5 (`short-no-context`) has no `context` explaining its answer; add `context = "..."` saying why the answer is right (lesson.toml sets require_explanations = true)
        quiz-explanations/quizzes/explanations.toml:40:1: error: question 6 (`tracing-blank-context`) has no `context` explaining its answer; add `context = "..."` saying why the answer is right (lesson.toml sets require_explanations = true)
        checked 1 section, 1 quiz, 0 exercises: 7 errors
    "#]],
    );
}

#[test]
fn duplicate_question_ids() {
    check(
        "duplicate-ids",
        expect![[r#"
        duplicate-ids/quizzes/first.toml:8:6: error: the question id `shared` is already used at duplicate-ids/quizzes/first.toml:2:6; give every question in the lesson its own `id`
        duplicate-ids/quizzes/first.toml:14:6: error: question 3 has an empty `id`; give it a short, unique name such as `id = "why-lock-ttl"`, or remove the line
        duplicate-ids/quizzes/second.toml:8:6: error: the question id `shared` is already used at duplicate-ids/quizzes/first.toml:2:6; give every question in the lesson its own `id`
        checked 1 section, 2 quizzes, 0 exercises: 3 errors
    "#]],
    );
}

#[test]
fn too_few_questions() {
    check(
        "too-few-questions",
        expect![[r#"
        too-few-questions/quizzes/none.toml:1:1: error: the quiz has no questions; add at least two `[[questions]]` tables, each with `type`, `prompt` and `answer`
        too-few-questions/quizzes/one.toml:1:1: error: the quiz has 1 question(s), fewer than 2; add another `[[questions]]` table, or merge this quiz into a neighbouring one
        too-few-questions/quizzes/wrong-shape.toml:1:13: error: `questions` must be an array of tables; write each question as a `[[questions]]` table
        checked 1 section, 3 quizzes, 0 exercises: 3 errors
    "#]],
    );
}

#[test]
fn exercise_errors() {
    check(
        "exercise-errors",
        expect![[r#"
            exercise-errors/broken/exercise.toml:1:16: error: invalid TOML: invalid basic string, expected `"`; fix the syntax here (strings need double quotes, arrays need commas and a closing `]`, a key may appear once per table)
            exercise-errors/cas/README.md:10:1: error: the README has no `## What the tests check` section, so learners cannot see the 16 rules the grader checks; add `## What the tests check` before `## Hints`, with one item ``- `id`: statement`` per rule of the cas exercise's table (crates/grader/src/cas/rules.rs)
            exercise-errors/cas/exercise.toml:2:8: error: `file` is "store.js", but the grader grades the cas exercise as "cas.js"; write `file = "cas.js"`
            exercise-errors/cas/exercise.toml:3:11: error: `exports` is ["createstore"], but the grader calls ["createStore"]; write `exports = ["createStore"]`, in that order
            exercise-errors/empty/exercise.toml:1:1: error: `exercise-errors/empty/README.md` does not exist; add `empty/README.md`: the instructions and hints
            exercise-errors/empty/exercise.toml:1:1: error: `exercise-errors/empty/solution.js` does not exist; add `empty/solution.js`: a reference solution that passes the grader
            exercise-errors/empty/exercise.toml:1:1: error: `exercise-errors/empty/starter.js` does not exist; add `empty/starter.js`: the code the learner starts from
            exercise-errors/empty/exercise.toml:1:1: error: the grader has no exercise named `empty` (it grades cas, lock, lease, fencing, election); name the folder after a registered exercise, or register a new one in crates/grader (see AUTHORING.md, "Adding an exercise")
            exercise-errors/empty/exercise.toml:3:11: error: `exports` in exercise.toml is empty; list the functions the learner's module exports, e.g. `exports = ["tryLock", "unlock"]`
            exercise-errors/lease/README.md:9:1: error: text between `## Hints` and the first `### Hint 1` belongs to no hint and would not be shown; move it above `## Hints`, or into a hint
            exercise-errors/lease/README.md:11:1: error: hint 1 has no text; write the hint below its heading, or remove the heading
            exercise-errors/lease/README.md:13:1: error: the hint heading `### Hint 3` is out of sequence; hints unlock in order: call it `### Hint 2`
            exercise-errors/lease/README.md:16:1: error: the README has no `## What the tests check` section, so learners cannot see the 13 rules the grader checks; add `## What the tests check` before `## Hints`, with one item ``- `id`: statement`` per rule of the lease exercise's table (crates/grader/src/lease/rules.rs)
            exercise-errors/lease/exercise.toml:1:9: error: `title` in exercise.toml is empty; write the exercise's title
            exercise-errors/lease/exercise.toml:3:32: error: the export "2bad" is not a JavaScript name; use the function's name, such as "tryLock"
            exercise-errors/lease/exercise.toml:3:40: error: the export `lead` is listed twice; list each export once
            exercise-errors/lease/solution.js:1:1: error: the file does not export `lead`, which exercise.toml lists; declare it as `export function lead(...)`, `export async function lead(...)` or `export const lead = ...`, or list it in `export { lead }`
            exercise-errors/lease/starter.js:1:1: error: the file does not export `lead`, which exercise.toml lists; declare it as `export function lead(...)`, `export async function lead(...)` or `export const lead = ...`, or list it in `export { lead }`
            exercise-errors/lock/README.md:4:1: error: the README has no `## Hints` section; end it with `## Hints`, then `### Hint 1`, `### Hint 2`, ... each followed by its text
            exercise-errors/lock/README.md:4:1: error: the README has no `## What the tests check` section, so learners cannot see the 12 rules the grader checks; add `## What the tests check` before `## Hints`, with one item ``- `id`: statement`` per rule of the lock exercise's table (crates/grader/src/lock/rules.rs)
            exercise-errors/lock/exercise.toml:1:1: error: `exercise-errors/lock/starter.js` does not exist; add `lock/starter.js`: the code the learner starts from
            exercise-errors/lock/exercise.toml:1:1: error: exercise.toml has no `exports`; add it, for example `exports = ["...", "..."]`
            exercise-errors/lock/exercise.toml:2:8: error: `file` is "lock", not a JavaScript file name; name the learner's module, e.g. `file = "lock.js"`
            exercise-errors/lock/exercise.toml:3:1: error: exercise.toml has an unknown field `export`; did you mean `exports`?
            checked 1 section, 0 quizzes, 5 exercises: 24 errors
        "#]],
    );
}
