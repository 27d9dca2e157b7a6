//! The typed model of a whole lesson, and loading it from its folder.
//!
//! Loading and checking are one pass: every reader reports problems as it
//! goes and returns what it could read, so a single run both builds the
//! model and finds every error. Checks that need the whole lesson (question
//! ids that repeat across quizzes, files nothing embeds) run at the end.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::diagnostic::{suggestion_or_list, Diagnostic, Diagnostics, Location, SourceFile};
use crate::diagram::{read_diagram, Diagram};
use crate::directive::{Directive, DirectiveKind};
use crate::exercise::{read_exercise, Exercise};
use crate::files::{check_inside_lesson, LessonFiles};
use crate::manifest::{read_manifest, Manifest};
use crate::quiz::{read_quiz, LoadedQuiz, Quiz, Strictness};
use crate::section::{read_section, Section};

/// The widgets the web page implements; `{{#widget NAME}}` must name one.
/// They are the folders of `web/src/widgets/` with a `widget.json` (see
/// `build.rs`), so adding a widget's folder is all it takes.
pub const KNOWN_WIDGETS: &[&str] = include!(concat!(env!("OUT_DIR"), "/widgets.rs"));

/// A whole lesson.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lesson {
    /// The lesson's id: its folder's name.
    pub id: String,
    /// The lesson's title, from `lesson.toml`.
    pub title: String,
    /// Its summary, from `lesson.toml`.
    pub summary: String,
    /// Where the material comes from, if adapted.
    pub source: Option<String>,
    /// Whether every quiz answer must carry an explanation.
    pub require_explanations: bool,
    /// The sections, in reading order.
    pub sections: Vec<Section>,
    /// The embedded quizzes, by path relative to the lesson folder.
    pub quizzes: BTreeMap<String, Quiz>,
    /// The embedded exercises, by folder name.
    pub exercises: BTreeMap<String, Exercise>,
    /// The embedded diagrams, by path relative to the lesson folder.
    pub diagrams: BTreeMap<String, Diagram>,
    /// The names of the embedded widgets.
    pub widgets: BTreeSet<String>,
}

/// A loaded lesson and every problem found in it.
#[derive(Debug)]
pub struct Checked {
    /// As much of the lesson as could be read.
    pub lesson: Lesson,
    /// The problems, sorted by file, line and column.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads the lesson in `dir` and checks all of it.
/// A lesson's id is its folder's name (`exercises/ownership-election` →
/// `ownership-election`): storage keys and exports use it, so a second
/// lesson is a second folder and never shares a learner's progress.
fn lesson_id(dir: &Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.file_name().map_or_else(|| "lesson".to_string(), |name| name.to_string_lossy().into_owned())
}

pub fn check_lesson(dir: &Path) -> Checked {
    let files = LessonFiles::new(dir);
    let mut loader = Loader {
        files: &files,
        diagnostics: Diagnostics::default(),
        lesson: Lesson { id: lesson_id(dir), ..Lesson::default() },
        strictness: Strictness::MdbookQuiz,
        first_embeds: BTreeMap::new(),
        loaded_quizzes: Vec::new(),
    };
    loader.load();
    Checked { lesson: loader.lesson, diagnostics: loader.diagnostics.into_sorted() }
}

struct Loader<'a> {
    files: &'a LessonFiles,
    diagnostics: Diagnostics,
    lesson: Lesson,
    strictness: Strictness,
    /// Where each (kind, argument) was first embedded.
    first_embeds: BTreeMap<(DirectiveKind, String), Location>,
    /// Quizzes in the order they are embedded, for the duplicate-id check.
    loaded_quizzes: Vec<LoadedQuiz>,
}

impl Loader<'_> {
    fn load(&mut self) {
        let manifest = self.read_manifest();
        self.lesson.title = manifest.title.clone();
        self.lesson.summary = manifest.summary.clone();
        self.lesson.source = manifest.source.clone();
        self.lesson.require_explanations = manifest.require_explanations;
        if manifest.require_explanations {
            self.strictness = Strictness::RequireExplanations;
        }
        for (relative, listed_at) in &manifest.sections {
            let fix = "create the file, or remove it from `sections` in lesson.toml";
            let Some(file) = self.files.read(relative, listed_at, fix, &mut self.diagnostics) else {
                continue;
            };
            let section = read_section(relative, &file, &mut self.diagnostics);
            for directive in &section.directives {
                self.embed(&file, directive);
            }
            self.lesson.sections.push(section);
        }
        self.check_question_ids_unique();
        self.check_unused_files(&manifest);
    }

    fn read_manifest(&mut self) -> Manifest {
        let fix = "create lesson.toml with `title`, `summary` and `sections = [\"01-intro.md\", ...]`";
        let start = self.files.start_of("lesson.toml");
        match self.files.read("lesson.toml", &start, fix, &mut self.diagnostics) {
            Some(file) => read_manifest(&file, &mut self.diagnostics),
            None => Manifest::default(),
        }
    }

    /// Resolves one directive: checks what it refers to and loads it once.
    fn embed(&mut self, section: &SourceFile, directive: &Directive) {
        let location = directive.location(section);
        let key = (directive.kind, directive.argument.clone());
        if let Some(first) = self.first_embeds.get(&key) {
            // A quiz or exercise embedded twice would share one saved state on the page.
            if matches!(directive.kind, DirectiveKind::Quiz | DirectiveKind::Exercise) {
                self.diagnostics.error(
                    "duplicate-embed",
                    location,
                    format!("the {} `{}` is already embedded at {first}", directive.kind.name(), directive.argument),
                    "embed each quiz and exercise once",
                );
            }
            return;
        }
        self.first_embeds.insert(key, location.clone());
        let argument = directive.argument.as_str();
        match directive.kind {
            DirectiveKind::Quiz => self.embed_quiz(argument, &location),
            DirectiveKind::Exercise => {
                if let Some(exercise) = read_exercise(self.files, argument, &location, &mut self.diagnostics) {
                    self.lesson.exercises.insert(argument.to_string(), exercise);
                }
            }
            DirectiveKind::Diagram => self.embed_diagram(argument, &location),
            DirectiveKind::Widget => {
                if KNOWN_WIDGETS.contains(&argument) {
                    self.lesson.widgets.insert(argument.to_string());
                } else {
                    self.diagnostics.error(
                        "unknown-widget",
                        location,
                        format!("there is no widget named `{argument}`"),
                        suggestion_or_list(argument, KNOWN_WIDGETS, "`"),
                    );
                }
            }
        }
    }

    /// Checks a path argument's form; true if it may be read.
    fn check_path(&mut self, path: &str, extension: &str, kind: DirectiveKind, location: &Location) -> bool {
        if !check_inside_lesson(path, location, &mut self.diagnostics) {
            return false;
        }
        if !path.ends_with(extension) {
            self.diagnostics.error(
                "invalid-value",
                location.clone(),
                format!("a {} must be a `{extension}` file, but `{path}` is not", kind.name(),),
                format!("write it as `{}`", kind.example()),
            );
            return false;
        }
        true
    }

    fn embed_quiz(&mut self, path: &str, location: &Location) {
        if !self.check_path(path, ".toml", DirectiveKind::Quiz, location) {
            return;
        }
        let fix = "create the quiz file, or correct the path (it is relative to the lesson folder)";
        let Some(file) = self.files.read(path, location, fix, &mut self.diagnostics) else {
            return;
        };
        if let Some(loaded) = read_quiz(&file, self.strictness, &mut self.diagnostics) {
            self.lesson.quizzes.insert(path.to_string(), loaded.quiz.clone());
            self.loaded_quizzes.push(loaded);
        }
    }

    fn embed_diagram(&mut self, path: &str, location: &Location) {
        if !self.check_path(path, ".svg", DirectiveKind::Diagram, location) {
            return;
        }
        let fix = "create the SVG file, or correct the path (it is relative to the lesson folder)";
        if let Some(file) = self.files.read(path, location, fix, &mut self.diagnostics) {
            let diagram = read_diagram(path, &file, &mut self.diagnostics);
            self.lesson.diagrams.insert(path.to_string(), diagram);
        }
    }

    /// Question ids identify saved answers across the whole lesson page, so
    /// they must be unique across quiz files, not only within one.
    fn check_question_ids_unique(&mut self) {
        let mut first_use: BTreeMap<&str, &Location> = BTreeMap::new();
        for loaded in &self.loaded_quizzes {
            for (id, location) in &loaded.id_locations {
                match first_use.get(id.as_str()) {
                    Some(first) => self.diagnostics.error(
                        "duplicate-id",
                        location.clone(),
                        format!("the question id `{id}` is already used at {first}"),
                        "give every question in the lesson its own `id`",
                    ),
                    None => {
                        first_use.insert(id, location);
                    }
                }
            }
        }
    }

    /// A quiz, diagram, exercise or section file that nothing uses is almost
    /// always a forgotten directive or a typo in a path.
    fn check_unused_files(&mut self, manifest: &Manifest) {
        // Only when `sections` was read: when lesson.toml is missing, does not
        // parse or lists no readable section, no section was loaded, so every
        // file would look unused and bury the one error that matters.
        if manifest.sections.is_empty() {
            return;
        }
        let embedded =
            |kind: DirectiveKind, argument: &str| self.first_embeds.contains_key(&(kind, argument.to_string()));
        let mut unused: Vec<(String, String)> = Vec::new();
        for path in self.files.list("quizzes", ".toml") {
            if !embedded(DirectiveKind::Quiz, &path) {
                let fix = format!("embed it in a section with `{{{{#quiz {path}}}}}`, or delete it");
                unused.push((path, fix));
            }
        }
        for path in self.files.list("diagrams", ".svg") {
            if !embedded(DirectiveKind::Diagram, &path) {
                let fix = format!("embed it in a section with `{{{{#diagram {path}}}}}`, or delete it");
                unused.push((path, fix));
            }
        }
        for name in self.files.exercise_folders() {
            if !embedded(DirectiveKind::Exercise, &name) {
                let fix = format!("embed it in a section with `{{{{#exercise {name}}}}}`, or delete the folder");
                unused.push((format!("{name}/exercise.toml"), fix));
            }
        }
        let listed: BTreeSet<&str> = manifest.sections.iter().map(|(path, _)| path.as_str()).collect();
        for path in self.files.list("", ".md") {
            if path != "README.md" && !listed.contains(path.as_str()) {
                unused.push((path, "add it to `sections` in lesson.toml, or delete it".to_string()));
            }
        }
        for (path, fix) in unused {
            self.diagnostics.error(
                "unused-file",
                self.files.start_of(&path),
                "nothing in the lesson uses this file",
                fix,
            );
        }
    }
}
