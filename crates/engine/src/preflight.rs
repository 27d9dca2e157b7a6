//! The preflight: does the source load, and does it export the functions
//! the exercise needs? Each problem is one sentence naming the file and
//! what to do.

use rquickjs_sys as q;

use crate::js;
use crate::limits::Limits;
use crate::module::{load_module, ModuleError};
use crate::sandbox::{Clock, Sandbox};

/// Problems that keep `source` from being graded as `file` exporting `exports`; empty if none.
pub fn preflight(source: &str, file: &str, exports: &[&str], limits: Limits, clock: Clock) -> Vec<String> {
    let mut sandbox = Sandbox::new(limits, clock);
    sandbox.begin_run();
    let namespace = match load_module(&mut sandbox, source, file) {
        Ok(namespace) => namespace,
        Err(ModuleError(message)) => return vec![message],
    };
    let ctx = sandbox.context();
    // Export names are the learner's text: read them in the VM, well-formed.
    let keys_of = "(namespace) => JSON.stringify(Object.keys(namespace).map((name) => name.toWellFormed ? name.toWellFormed() : name))";
    // SAFETY: the sandbox's context is live.
    let names: Option<Vec<String>> = unsafe {
        js::eval(ctx, keys_of, "preflight.js", q::JS_EVAL_TYPE_GLOBAL)
            .ok()
            .and_then(|function| js::call(ctx, function.raw(), js::UNDEFINED, &[namespace.raw()]).ok())
            .and_then(|json| js::text(ctx, json.raw()))
            .and_then(|json| serde_json::from_str(&json).ok())
    };
    let Some(names) = names else {
        return vec![format!("{file}: its top-level code {}", sandbox.stopped().unwrap_or("could not be read"))];
    };
    export_problems(file, exports, &names, |wanted| {
        let name = std::ffi::CString::new(wanted).expect("export names have no NUL");
        // Reading an export that was never initialised throws (its `let` was never reached).
        // SAFETY: as above.
        match unsafe { js::get(ctx, &namespace, &name) } {
            Ok(value) => value.type_of().to_string(),
            Err(_) => "value that cannot be read".to_string(),
        }
    })
}

/// The problems with a module that exports `names` (its own words, well
/// formed) as `file`, for an exercise that needs `exports`, all functions:
/// each missing one, with the name the learner probably meant, and each
/// present one that is not a function (`kind_of(name)`: its `typeof`, read
/// only for the exports needed and present).
fn export_problems(
    file: &str,
    exports: &[&str],
    names: &[String],
    mut kind_of: impl FnMut(&str) -> String,
) -> Vec<String> {
    let mut problems = Vec::new();
    for &wanted in exports {
        if !names.iter().any(|name| name == wanted) {
            let found = match closest_name(wanted, names) {
                Some(close) => format!("found `{close}`"),
                None if names.is_empty() => "it exports nothing".to_string(),
                None => format!(
                    "it exports {}",
                    names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
                ),
            };
            problems.push(format!("{file} must export `{wanted}`; {found}"));
            continue;
        }
        let kind = kind_of(wanted);
        if kind != "function" {
            problems.push(format!("{file} exports `{wanted}` as a {kind}; it must be a function"));
        }
    }
    problems
}

fn edit_distance(a: &[u16], b: &[u16]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut diagonal = row[0];
        row[0] = i;
        for j in 1..=b.len() {
            let above = row[j];
            row[j] = (row[j] + 1).min(row[j - 1] + 1).min(diagonal + usize::from(a[i - 1] != b[j - 1]));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The export a learner probably meant, for "found `trylock`".
pub fn closest_name(wanted: &str, names: &[String]) -> Option<String> {
    // JavaScript compares UTF-16 code units; so does this.
    let wanted_units: Vec<u16> = wanted.encode_utf16().collect();
    let mut best: Option<(&String, usize)> = None;
    for name in names {
        let distance = if name.to_lowercase() == wanted.to_lowercase() {
            0
        } else {
            edit_distance(&name.encode_utf16().collect::<Vec<_>>(), &wanted_units)
        };
        if distance <= 2 && best.is_none_or(|(_, best)| distance < best) {
            best = Some((name, distance));
        }
    }
    best.map(|(name, _)| name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_name_is_suggested() {
        let names = vec!["trylock".to_string(), "unlock".to_string()];
        assert_eq!(closest_name("tryLock", &names).as_deref(), Some("trylock"));
        assert_eq!(closest_name("lock", &names).as_deref(), Some("unlock"));
        assert_eq!(closest_name("campaign", &names), None);
    }
}
