//! Which lesson the build, the checker and the tests work on: one folder,
//! named once, in package.json's `leaselab.lesson` (JavaScript reads the
//! same field: web/build/lesson-folder.mjs). `LEASELAB_LESSON` overrides it,
//! so a second lesson is a second folder, not a fork.

use crate::cmd::root;

/// The lesson folder, relative to the repository root.
pub fn dir() -> Result<String, String> {
    if let Ok(dir) = std::env::var("LEASELAB_LESSON") {
        if !dir.is_empty() {
            return Ok(dir);
        }
    }
    let manifest = root().join("package.json");
    let text =
        std::fs::read_to_string(&manifest).map_err(|error| format!("cannot read {}: {error}", manifest.display()))?;
    field(&text).ok_or_else(|| {
        format!(
            "{} has no `\"leaselab\": {{ \"lesson\": \"exercises/<folder>\" }}`; add it (it names the lesson to build)",
            manifest.display()
        )
    })
}

/// The lesson's id: its folder's name (the rendered JSON's file name).
pub fn id(dir: &str) -> String {
    std::path::Path::new(dir).file_name().map_or_else(|| dir.to_string(), |name| name.to_string_lossy().into_owned())
}

/// `leaselab.lesson` from package.json's text. A full JSON parser would be
/// a dependency for one string; the field is written by us, on one line.
fn field(manifest: &str) -> Option<String> {
    let section = &manifest[manifest.find("\"leaselab\"")?..];
    let after = &section[section.find("\"lesson\"")? + "\"lesson\"".len()..];
    let start = after.find('"')? + 1;
    let end = start + after[start..].find('"')?;
    Some(after[start..end].to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_lesson_field() {
        let manifest = "{\n  \"name\": \"leaselab\",\n  \"leaselab\": { \"lesson\": \"exercises/other\" }\n}";
        assert_eq!(super::field(manifest).as_deref(), Some("exercises/other"));
        assert_eq!(super::field("{ \"name\": \"x\" }"), None);
        assert_eq!(super::id("exercises/other"), "other");
    }
}
