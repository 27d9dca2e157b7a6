//! An exercise folder: `exercise.toml`, `README.md`, `starter.js`, `solution.js`.
//!
//! The checker reads the files and compares the exports listed in
//! `exercise.toml` with what the two JavaScript files declare. That check is
//! textual on purpose: it is cheap and catches a renamed function at once,
//! while running the code belongs to the grader.

use serde::Serialize;

use crate::diagnostic::{Diagnostics, Location, SourceFile};
use crate::files::LessonFiles;
use crate::readme::{read_readme, Readme};
use crate::rules_section::check_rules_section;
use crate::toml_reader::{parse_document, SpannedText, TableView};

/// One exercise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exercise {
    /// The folder name, which `{{#exercise NAME}}` refers to.
    pub name: String,
    /// The exercise's title.
    pub title: String,
    /// The name the learner's module has in the editor, e.g. `lock.js`.
    pub file: String,
    /// The functions the learner's module must export.
    pub exports: Vec<String>,
    /// The README, split into instructions and hints.
    pub readme: Readme,
    /// The code the learner starts from.
    pub starter: String,
    /// The reference solution. Never rendered into the page.
    pub solution: String,
}

const EXERCISE_KEYS: &[&str] = &["title", "file", "exports"];

/// True for a folder name an exercise may have.
fn is_exercise_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|character| character.is_ascii_lowercase() || character.is_ascii_digit() || character == '-')
}

/// True for a JavaScript identifier made of ASCII letters, digits, `_` and `$`.
fn is_identifier(name: &str) -> bool {
    let mut characters = name.chars();
    let first_ok = characters.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || first == '$');
    first_ok && characters.all(|character| character.is_ascii_alphanumeric() || character == '_' || character == '$')
}

/// True if `source` exports `name` in one of the ways the grader accepts
/// and authors write: a line that declares it (`export function`, `export
/// async function`, `export const`, `export let`, `export var`), or an
/// export list (`export { lock, release as unlock };`, over several lines if
/// need be). A line counts only when it starts with `export`, so a comment
/// that mentions an export does not; that is as far as reading JavaScript
/// goes here, the grader's preflight has the last word.
pub fn declares_export(source: &str, name: &str) -> bool {
    let mut line_start = 0;
    for line in source.split_inclusive('\n') {
        let statement = &source[line_start..];
        line_start += line.len();
        let Some(after_export) = line.trim_start().strip_prefix("export") else {
            continue;
        };
        let words: Vec<&str> = after_export
            .split(|character: char| !(character.is_ascii_alphanumeric() || character == '_' || character == '$'))
            .filter(|word| !word.is_empty())
            .collect();
        let declared = matches!(
            words.as_slice(),
            ["function", declared, ..]
                | ["async", "function", declared, ..]
                | ["const" | "let" | "var", declared, ..]
                if *declared == name
        );
        let starts_word = !after_export
            .starts_with(|character: char| character.is_ascii_alphanumeric() || character == '_' || character == '$');
        if starts_word && (declared || export_list_names(statement).iter().any(|exported| exported == name)) {
            return true;
        }
    }
    false
}

/// The names an export list exports, if `statement` starts with one
/// (`export { a, b as c }`: `a` and `c`), reading up to its `}` across lines
/// and skipping comments inside it.
fn export_list_names(statement: &str) -> Vec<String> {
    let Some(list) =
        statement.trim_start().strip_prefix("export").map(str::trim_start).and_then(|rest| rest.strip_prefix('{'))
    else {
        return Vec::new();
    };
    let Some(end) = list.find('}') else {
        return Vec::new();
    };
    let mut text = String::new();
    for line in list[..end].lines() {
        text.push_str(line.split("//").next().unwrap_or_default());
        text.push(' ');
    }
    while let Some(open) = text.find("/*") {
        let close = text[open..].find("*/").map_or(text.len(), |close| open + close + 2);
        text.replace_range(open..close, " ");
    }
    text.split(',')
        .filter_map(|item| {
            let words: Vec<&str> = item.split_whitespace().collect();
            // `local`, or `local as exported`, where `exported` may be a string (`as "unlock"`).
            let exported = match words.as_slice() {
                [local] => local,
                [_, "as", exported] => exported,
                _ => return None,
            };
            Some(exported.trim_matches(|quote| quote == '"' || quote == '\'').to_string())
        })
        .collect()
}

/// Loads and checks the exercise `name`, embedded at `referenced_at`.
pub fn read_exercise(
    files: &LessonFiles,
    name: &str,
    referenced_at: &Location,
    diagnostics: &mut Diagnostics,
) -> Option<Exercise> {
    if !is_exercise_name(name) {
        diagnostics.error(
            "invalid-value",
            referenced_at.clone(),
            format!("`{name}` is not a valid exercise name"),
            "name the exercise after its folder, using lowercase letters, digits and hyphens, e.g. `{{#exercise lock}}`",
        );
        return None;
    }
    let manifest_path = format!("{name}/exercise.toml");
    let manifest = files.read(
        &manifest_path,
        referenced_at,
        &format!("create the folder `{name}/` with exercise.toml, README.md, starter.js and solution.js, or correct the name"),
        diagnostics,
    )?;
    let mut exercise = Exercise {
        name: name.to_string(),
        title: String::new(),
        file: String::new(),
        exports: Vec::new(),
        readme: Readme { instructions: String::new(), hints: Vec::new() },
        starter: String::new(),
        solution: String::new(),
    };
    let export_names = read_metadata(&manifest, &mut exercise, diagnostics);

    let manifest_start = Location::file_start(&manifest.display_path);
    let read_part = |file_name: &str, purpose: &str, diagnostics: &mut Diagnostics| {
        files.read(
            &format!("{name}/{file_name}"),
            &manifest_start,
            &format!("add `{name}/{file_name}`: {purpose}"),
            diagnostics,
        )
    };
    if let Some(readme) = read_part("README.md", "the instructions and hints", diagnostics) {
        exercise.readme = read_readme(&readme, diagnostics);
        // Exercises the grader does not know are reported where their
        // solutions are graded (`cargo xtask check`); their READMEs have no table to follow.
        if let Some(info) = grader::registry::info(name) {
            check_rules_section(&readme, name, info.rules, diagnostics);
        }
    }
    let starter = read_part("starter.js", "the code the learner starts from", diagnostics);
    let solution = read_part("solution.js", "a reference solution that passes the grader", diagnostics);
    for source in [&starter, &solution].into_iter().flatten() {
        check_exports(source, &export_names, diagnostics);
    }
    exercise.starter = starter.map(|file| file.text).unwrap_or_default();
    exercise.solution = solution.map(|file| file.text).unwrap_or_default();
    Some(exercise)
}

/// Reads `exercise.toml` into `exercise`; returns the export names with their spans.
fn read_metadata(file: &SourceFile, exercise: &mut Exercise, diagnostics: &mut Diagnostics) -> Vec<SpannedText> {
    let Some(document) = parse_document(file, diagnostics) else {
        return Vec::new();
    };
    let root = TableView::root(file, document.get_ref(), "exercise.toml");
    root.check_keys(EXERCISE_KEYS, diagnostics);
    if let Some(title) = root.string("title", true, diagnostics) {
        if title.text.trim().is_empty() {
            diagnostics.error(
                "empty-text",
                file.location_of(&title.span),
                "`title` in exercise.toml is empty",
                "write the exercise's title",
            );
        }
        exercise.title = title.text;
    }
    if let Some(module) = root.string("file", true, diagnostics) {
        let bare_js = module.text.ends_with(".js") && module.text.len() > 3 && !module.text.contains('/');
        if !bare_js {
            diagnostics.error(
                "invalid-value",
                file.location_of(&module.span),
                format!("`file` is \"{}\", not a JavaScript file name", module.text),
                "name the learner's module, e.g. `file = \"lock.js\"`",
            );
        }
        exercise.file = module.text;
    }
    let Some(exports) = root.string_array("exports", true, diagnostics) else {
        return Vec::new();
    };
    if exports.is_empty() {
        diagnostics.error(
            "missing-field",
            file.location_of(&root.span_of("exports")),
            "`exports` in exercise.toml is empty",
            "list the functions the learner's module exports, e.g. `exports = [\"tryLock\", \"unlock\"]`",
        );
    }
    let mut valid = Vec::new();
    for export in exports {
        if !is_identifier(&export.text) {
            diagnostics.error(
                "invalid-value",
                file.location_of(&export.span),
                format!("the export \"{}\" is not a JavaScript name", export.text),
                "use the function's name, such as \"tryLock\"",
            );
        } else if valid.iter().any(|seen: &SpannedText| seen.text == export.text) {
            diagnostics.error(
                "duplicate-export",
                file.location_of(&export.span),
                format!("the export `{}` is listed twice", export.text),
                "list each export once",
            );
        } else {
            valid.push(export);
        }
    }
    exercise.exports = valid.iter().map(|export| export.text.clone()).collect();
    check_against_registry(file, &root, exercise, diagnostics);
    valid
}

/// The grader's registry is the one list of exercises: an exercise folder
/// it does not know cannot be graded, and its `file` and `exports` must be
/// the ones the runner and the CLI use.
fn check_against_registry(
    file: &SourceFile,
    root: &TableView<'_, '_>,
    exercise: &Exercise,
    diagnostics: &mut Diagnostics,
) {
    let Some(entry) = grader::registry::info(&exercise.name) else {
        diagnostics.error(
            "unknown-exercise",
            file.location_of(&(0..0)),
            format!(
                "the grader has no exercise named `{}` (it grades {})",
                exercise.name,
                grader::registry::names().join(", ")
            ),
            "name the folder after a registered exercise, or register a new one in crates/grader (see AUTHORING.md, \"Adding an exercise\")",
        );
        return;
    };
    if !exercise.file.is_empty() && exercise.file != entry.file {
        diagnostics.error(
            "registry-mismatch",
            file.location_of(&root.span_of("file")),
            format!(
                "`file` is \"{}\", but the grader grades the {} exercise as \"{}\"",
                exercise.file, entry.name, entry.file
            ),
            format!("write `file = \"{}\"`", entry.file),
        );
    }
    let registered: Vec<String> = entry.exports.iter().map(|name| name.to_string()).collect();
    if !exercise.exports.is_empty() && exercise.exports != registered {
        diagnostics.error(
            "registry-mismatch",
            file.location_of(&root.span_of("exports")),
            format!("`exports` is {:?}, but the grader calls {:?}", exercise.exports, registered),
            format!("write `exports = {registered:?}`, in that order"),
        );
    }
}

fn check_exports(source: &SourceFile, exports: &[SpannedText], diagnostics: &mut Diagnostics) {
    for export in exports {
        if !declares_export(&source.text, &export.text) {
            let name = &export.text;
            diagnostics.error(
                "missing-export",
                Location::file_start(&source.display_path),
                format!("the file does not export `{name}`, which exercise.toml lists"),
                format!("declare it as `export function {name}(...)`, `export async function {name}(...)` or `export const {name} = ...`, or list it in `export {{ {name} }}`"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_export_declarations() {
        for (source, expected) in [
            ("export function lock(ctx) {}", true),
            ("export async function lock(ctx) {}", true),
            ("export const lock = async (ctx) => {};", true),
            ("  export function lock() {}", true),
            ("export function lockAll() {}", false),
            ("function lock() {}", false),
            ("// call lock() then export", false),
            ("export { lock };", true),
            ("export let lock = async () => {};", true),
            ("export function* lock() {}", true),
            ("exports.lock = lock;", false),
            ("exported { lock };", false),
        ] {
            assert_eq!(declares_export(source, "lock"), expected, "{source}");
        }
    }

    /// Export lists, which the grader accepts as well as declarations.
    #[test]
    fn recognises_export_lists() {
        for (source, expected) in [
            ("async function unlock() {}\nexport { unlock };", true),
            ("function a() {}\nexport { a as unlock };", true),
            ("export {tryLock,lock,unlock}", true),
            ("export {\n  tryLock,\n  // the one learners write\n  unlock,\n};\n", true),
            ("export {\n  release as unlock, /* renamed */\n  lock\n}", true),
            ("export { release as \"unlock\" };", true),
            ("export { unlock as release };", false),
            ("export { unlocked };", false),
            ("// export { unlock };", false),
            ("const text = \"export { unlock }\";", false),
            ("export {\n  lock\n};\nconst unlock = 1;", false),
        ] {
            assert_eq!(declares_export(source, "unlock"), expected, "{source}");
        }
    }

    #[test]
    fn names_are_checked() {
        assert!(is_exercise_name("cas") && is_exercise_name("fencing-2"));
        assert!(!is_exercise_name("Lock") && !is_exercise_name("../x") && !is_exercise_name(""));
        assert!(is_identifier("tryLock") && is_identifier("$x") && !is_identifier("2x") && !is_identifier("a-b"));
    }
}
