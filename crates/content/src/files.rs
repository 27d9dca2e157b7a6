//! The lesson folder on disk: reading files with a size limit, naming them in
//! messages, and keeping paths inside the folder.
//!
//! Paths in messages are relative to the lesson folder's parent (for example
//! `ownership-election/quizzes/x.toml`), so a report reads the same wherever
//! the checker is run from and snapshot tests are stable.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostics, Location, SourceFile};

/// The largest content file the checker reads. Lesson files are a few KiB; a
/// file past this is almost certainly a mistake (a build output, a video) and
/// would make the rendered lesson slow to load.
pub const FILE_BYTES_MAX: u64 = 1024 * 1024;

/// The lesson folder.
#[derive(Debug, Clone)]
pub struct LessonFiles {
    dir: PathBuf,
    name: String,
}

impl LessonFiles {
    /// The lesson at `dir`; its folder name prefixes every path in messages.
    pub fn new(dir: &Path) -> Self {
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let name =
            canonical.file_name().map_or_else(|| dir.display().to_string(), |name| name.to_string_lossy().into_owned());
        Self { dir: dir.to_path_buf(), name }
    }

    /// The folder, as given.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How a file in the lesson is named in messages.
    pub fn display(&self, relative: &str) -> String {
        format!("{}/{relative}", self.name)
    }

    /// The start of a lesson file, for problems that concern the whole file.
    pub fn start_of(&self, relative: &str) -> Location {
        Location::file_start(self.display(relative))
    }

    /// True if the lesson has a file at this relative path.
    pub fn is_file(&self, relative: &str) -> bool {
        self.dir.join(relative).is_file()
    }

    /// Reads a lesson file. A missing file is reported at `referenced_at`,
    /// the place an author would fix, with `missing_fix` as the advice.
    pub fn read(
        &self,
        relative: &str,
        referenced_at: &Location,
        missing_fix: &str,
        diagnostics: &mut Diagnostics,
    ) -> Option<SourceFile> {
        let path = self.dir.join(relative);
        let display_path = self.display(relative);
        match fs::metadata(&path) {
            Ok(metadata) if metadata.is_file() => {
                if metadata.len() > FILE_BYTES_MAX {
                    diagnostics.error(
                        "file-too-large",
                        Location::file_start(&display_path),
                        format!("the file is {} bytes, more than the limit of {FILE_BYTES_MAX}", metadata.len()),
                        "split it, or move large assets out of the lesson",
                    );
                    return None;
                }
            }
            Ok(_) | Err(_) => {
                diagnostics.error(
                    "missing-file",
                    referenced_at.clone(),
                    format!("`{display_path}` does not exist"),
                    missing_fix,
                );
                return None;
            }
        }
        match fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Some(SourceFile::new(display_path, text)),
                Err(error) => {
                    let offset = error.utf8_error().valid_up_to();
                    let valid = String::from_utf8_lossy(&error.as_bytes()[..offset]).into_owned();
                    let location = SourceFile::new(&display_path, valid).location(offset);
                    diagnostics.error("not-utf8", location, "the file is not valid UTF-8 text", "save it as UTF-8");
                    None
                }
            },
            Err(error) => {
                let problem = match error.kind() {
                    ErrorKind::PermissionDenied => "the file cannot be read: permission denied".to_string(),
                    _ => format!("the file cannot be read: {error}"),
                };
                diagnostics.error(
                    "unreadable-file",
                    Location::file_start(display_path),
                    problem,
                    "check the file's permissions",
                );
                None
            }
        }
    }

    /// The relative paths of the files directly in `subdir` whose names end
    /// with `extension`, sorted. A missing folder has no files.
    pub fn list(&self, subdir: &str, extension: &str) -> Vec<String> {
        let Ok(entries) = fs::read_dir(self.dir.join(subdir)) else {
            return Vec::new();
        };
        let mut found: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|entry| entry.path().is_file())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(extension))
            .map(|name| if subdir.is_empty() { name } else { format!("{subdir}/{name}") })
            .collect();
        found.sort();
        found
    }

    /// The names of the sub-folders that hold an `exercise.toml`, sorted.
    pub fn exercise_folders(&self) -> Vec<String> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|entry| entry.path().join("exercise.toml").is_file())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        found.sort();
        found
    }
}

/// Checks that a path written in the lesson stays inside the lesson folder:
/// the renderer reads these files and puts them in the page, so `../` or an
/// absolute path must never reach the file system.
pub fn check_inside_lesson(path: &str, location: &Location, diagnostics: &mut Diagnostics) -> bool {
    let escapes = path.starts_with('/')
        || path.contains('\\')
        || path.contains(':')
        || path.split('/').any(|part| part == ".." || part.is_empty());
    if escapes {
        diagnostics.error(
            "path-outside-lesson",
            location.clone(),
            format!("`{path}` is not a plain path inside the lesson folder"),
            "write it relative to the lesson folder, without `..`, `//` or a leading `/`, e.g. `quizzes/locks-and-ttl.toml`",
        );
    }
    !escapes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_stay_inside() {
        let at = Location::file_start("x");
        for (path, inside) in [
            ("quizzes/a.toml", true),
            ("a.md", true),
            ("../a.md", false),
            ("/etc/passwd", false),
            ("quizzes//a.toml", false),
            ("C:\\a.toml", false),
        ] {
            let mut diagnostics = Diagnostics::default();
            assert_eq!(check_inside_lesson(path, &at, &mut diagnostics), inside, "{path}");
            assert_eq!(diagnostics.is_empty(), inside, "{path}");
        }
    }
}
