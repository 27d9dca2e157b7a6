//! `content`: the authors' checker and the build's renderer.
//!
//! Exit status: 0 when the lesson is clean (and, for `render`, written),
//! 1 when the lesson has errors, 2 when the command could not run as asked
//! (bad arguments, a missing folder, an output file that cannot be written).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use content::{check_lesson, render_lesson, to_json, Report};

const USAGE: &str = "\
usage: content check <lesson-dir> [--format text|json]
       content render <lesson-dir> --out <file.json>

check   reports every problem in the lesson as `path:line:col: error: message`
        and a summary; with --format json, one JSON object instead.
render  checks the lesson, then writes the JSON document the lesson page loads;
        writes nothing if the check finds errors.

exit status: 0 clean, 1 the lesson has errors, 2 bad usage or I/O failure";

const EXIT_ERRORS: u8 = 1;
const EXIT_USAGE: u8 = 2;

#[derive(Debug, PartialEq)]
enum Format {
    Text,
    Json,
}

#[derive(Debug, PartialEq)]
enum Command {
    Help,
    Check { lesson_dir: PathBuf, format: Format },
    Render { lesson_dir: PathBuf, out: PathBuf },
}

/// The value of `--name value` or `--name=value` at `arguments[*index]`, advancing past it.
fn option_value(name: &str, arguments: &[String], index: &mut usize) -> Result<Option<String>, String> {
    let argument = &arguments[*index];
    if let Some(value) = argument.strip_prefix(&format!("{name}=")) {
        return Ok(Some(value.to_string()));
    }
    if argument != name {
        return Ok(None);
    }
    *index += 1;
    match arguments.get(*index) {
        Some(value) => Ok(Some(value.clone())),
        None => Err(format!("{name} needs a value")),
    }
}

fn parse_arguments(arguments: &[String]) -> Result<Command, String> {
    if arguments.iter().any(|argument| argument == "--help" || argument == "-h") {
        return Ok(Command::Help);
    }
    let (subcommand, rest) = arguments.split_first().ok_or("no command given")?;
    if subcommand != "check" && subcommand != "render" {
        return Err(format!("unknown command `{subcommand}`"));
    }
    let mut lesson_dir = None;
    let mut format = Format::Text;
    let mut out = None;
    let mut index = 0;
    while index < rest.len() {
        let argument = &rest[index];
        if subcommand == "check" {
            if let Some(value) = option_value("--format", rest, &mut index)? {
                format = match value.as_str() {
                    "text" => Format::Text,
                    "json" => Format::Json,
                    other => return Err(format!("unknown format `{other}` (use text or json)")),
                };
                index += 1;
                continue;
            }
        } else if let Some(value) = option_value("--out", rest, &mut index)? {
            out = Some(PathBuf::from(value));
            index += 1;
            continue;
        }
        if argument.starts_with('-') {
            return Err(format!("unknown option `{argument}` for `{subcommand}`"));
        }
        if lesson_dir.replace(PathBuf::from(argument)).is_some() {
            return Err("give one lesson directory".to_string());
        }
        index += 1;
    }
    let lesson_dir = lesson_dir.ok_or("no lesson directory given")?;
    if subcommand == "check" {
        Ok(Command::Check { lesson_dir, format })
    } else {
        let out = out.ok_or("render needs --out <file.json>")?;
        Ok(Command::Render { lesson_dir, out })
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("content: {message}\n\n{USAGE}");
    ExitCode::from(EXIT_USAGE)
}

fn check(lesson_dir: &Path, format: Format) -> ExitCode {
    let checked = check_lesson(lesson_dir);
    let report = Report::new(&checked);
    match format {
        Format::Text => print!("{}", report.to_text()),
        Format::Json => print!("{}", report.to_json()),
    }
    if checked.diagnostics.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_ERRORS)
    }
}

fn render(lesson_dir: &Path, out: &Path) -> ExitCode {
    let checked = check_lesson(lesson_dir);
    let report = Report::new(&checked);
    if !checked.diagnostics.is_empty() {
        eprint!("{}", report.to_text());
        eprintln!("content: not rendering {}: fix the errors above first", lesson_dir.display());
        return ExitCode::from(EXIT_ERRORS);
    }
    let json = to_json(&render_lesson(&checked.lesson));
    // Write beside the target and rename, so a server watching the file never
    // reads half a document while the build rewrites it.
    let temporary = out.with_extension("json.partial");
    let written = fs::write(&temporary, &json).and_then(|()| fs::rename(&temporary, out));
    if let Err(error) = written {
        let _ = fs::remove_file(&temporary);
        eprintln!("content: cannot write {}: {error}", out.display());
        return ExitCode::from(EXIT_USAGE);
    }
    println!(
        "rendered {} sections, {} quizzes, {} exercises to {} ({} bytes)",
        report.sections,
        report.quizzes,
        report.exercises,
        out.display(),
        json.len()
    );
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let command = match parse_arguments(&arguments) {
        Ok(command) => command,
        Err(message) => return usage_error(&message),
    };
    match command {
        Command::Help => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Command::Check { lesson_dir, .. } | Command::Render { lesson_dir, .. } if !lesson_dir.is_dir() => {
            usage_error(&format!("`{}` is not a directory", lesson_dir.display()))
        }
        Command::Check { lesson_dir, format } => check(&lesson_dir, format),
        Command::Render { lesson_dir, out } => render(&lesson_dir, &out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Command, String> {
        let arguments: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse_arguments(&arguments)
    }

    #[test]
    fn parses_commands_and_options() {
        let lesson_dir = PathBuf::from("dir");
        assert_eq!(parse("check dir"), Ok(Command::Check { lesson_dir: lesson_dir.clone(), format: Format::Text }));
        assert_eq!(
            parse("check --format json dir"),
            Ok(Command::Check { lesson_dir: lesson_dir.clone(), format: Format::Json })
        );
        assert_eq!(
            parse("check dir --format=json"),
            Ok(Command::Check { lesson_dir: lesson_dir.clone(), format: Format::Json })
        );
        assert_eq!(parse("render dir --out x.json"), Ok(Command::Render { lesson_dir, out: PathBuf::from("x.json") }));
        assert_eq!(parse("render dir --help"), Ok(Command::Help));
    }

    #[test]
    fn rejects_bad_usage() {
        for line in [
            "",
            "lint dir",
            "check",
            "check a b",
            "check dir --format yaml",
            "check dir --out x",
            "render dir",
            "render dir --out",
            "check dir --verbose",
        ] {
            assert!(parse(line).is_err(), "{line:?} should be rejected");
        }
    }
}
