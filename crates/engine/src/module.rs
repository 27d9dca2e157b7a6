//! Evaluating the learner's module in a sandbox, and saying in the
//! learner's terms why it could not be (a syntax error with its line,
//! top-level code that threw, never finished, waited, or ran out of memory).

use rquickjs_sys as q;

use crate::js::{self, Value};
use crate::sandbox::{Sandbox, ThrownInfo};

/// A problem with the submission itself (syntax, exports, top-level code), as one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleError(pub String);

/// Evaluates `source` as module `file`: its namespace, or why not.
pub fn load_module(sandbox: &mut Sandbox, source: &str, file: &str) -> Result<Value, ModuleError> {
    let ctx = sandbox.context();
    let flags = q::JS_EVAL_TYPE_MODULE | q::JS_EVAL_FLAG_COMPILE_ONLY | q::JS_EVAL_FLAG_STRICT;
    // SAFETY: the sandbox's context is live; the compiled module is consumed by JS_EvalFunction.
    let (module, evaluated) = unsafe {
        let compiled = match js::eval(ctx, source, file, flags) {
            Ok(compiled) => compiled,
            Err(thrown) => return Err(thrown_at_top_level(sandbox, &thrown, file, true)),
        };
        let module = q::JS_VALUE_GET_PTR(compiled.raw()).cast::<q::JSModuleDef>();
        let raw = q::JS_EvalFunction(ctx, compiled.leak());
        if q::JS_IsException(raw) {
            let thrown = Value::own(ctx, q::JS_GetException(ctx));
            return Err(thrown_at_top_level(sandbox, &thrown, file, true));
        }
        (module, Value::own(ctx, raw))
    };
    // Evaluating a module gives a promise of its completion: settled at once
    // unless the top level awaits. Rejected at once is a top-level throw
    // (or a limit that stopped it).
    let namespace = || unsafe { Value::own(ctx, q::JS_GetModuleNamespace(ctx, module)) };
    if !evaluated.is_promise() {
        return Ok(namespace());
    }
    match promise_state(&evaluated) {
        q::JSPromiseStateEnum_JS_PROMISE_FULFILLED => return Ok(namespace()),
        q::JSPromiseStateEnum_JS_PROMISE_REJECTED => {
            let reason = promise_result(&evaluated);
            return Err(thrown_at_top_level(sandbox, &reason, file, true));
        }
        _ => {}
    }
    // A top-level `await`: it may finish within the jobs it queues, or never.
    sandbox.drain_jobs();
    if let Some(stopped) = sandbox.stopped() {
        return Err(ModuleError(format!("{file}: its top-level code never finished: it {stopped}")));
    }
    match promise_state(&evaluated) {
        q::JSPromiseStateEnum_JS_PROMISE_FULFILLED => Ok(namespace()),
        q::JSPromiseStateEnum_JS_PROMISE_REJECTED => {
            let reason = promise_result(&evaluated);
            Err(thrown_at_top_level(sandbox, &reason, file, false))
        }
        _ => Err(ModuleError(format!(
            "{file} waits (await) at the top level of the module for something that never happens, so its top-level code never finished; move that code into your functions"
        ))),
    }
}

fn promise_state(promise: &Value) -> q::JSPromiseStateEnum {
    // SAFETY: a live value of a live context.
    unsafe { q::JS_PromiseState(promise_context(promise), promise.raw()) }
}

fn promise_result(promise: &Value) -> Value {
    let ctx = promise_context(promise);
    // SAFETY: as above; JS_PromiseResult returns a new reference.
    unsafe { Value::own(ctx, q::JS_PromiseResult(ctx, promise.raw())) }
}

fn promise_context(value: &Value) -> *mut q::JSContext {
    value.context()
}

/// The sentence for a value thrown by the top-level code; `with_stop` says
/// whether a limit that stopped the sandbox is the reason (it is for code
/// that threw as it ran, not for a promise that rejected later).
fn thrown_at_top_level(sandbox: &mut Sandbox, thrown: &Value, file: &str, with_stop: bool) -> ModuleError {
    let info = sandbox.describe_thrown(thrown);
    let stopped = if with_stop { sandbox.stopped().map(str::to_string) } else { None };
    ModuleError(describe_module_error(&info, file, stopped.as_deref()))
}

/// "lock.js:3:14: SyntaxError: unexpected token in expression: ')'", from
/// what `describe_thrown` said about the thrown value; `stopped` is the
/// sandbox's reason when a limit ended the top-level code.
pub fn describe_module_error(info: &ThrownInfo, file: &str, stopped: Option<&str>) -> String {
    if let Some(stopped) = stopped {
        return format!("{file}: its top-level code never finished: it {stopped}");
    }
    if let Some(limit) = &info.limit {
        return format!("{file}: its top-level code {limit}");
    }
    if !info.error {
        return format!(
            "{file}: its top-level code threw {}, which is not an Error; throw new Error(\"…\") so the message and the line can be shown",
            info.text
        );
    }
    let place = location_in(&info.stack, file).map_or_else(
        || file.to_string(),
        |(line, column)| match column {
            Some(column) => format!("{file}:{line}:{column}"),
            None => format!("{file}:{line}"),
        },
    );
    let message = format!("{}: {}", info.name, info.message);
    let lowered = message.to_lowercase();
    if lowered.contains("cannot load module")
        || lowered.contains("could not load module")
        || lowered.contains("module not found")
    {
        return format!(
            "{place}: {}. Your solution must be one file with no imports.",
            message.replacen(" (cannot load module)", "", 1)
        );
    }
    format!("{place}: {message}")
}

/// The first "<file>:<line>[:<column>]" in a stack trace.
fn location_in(stack: &str, file: &str) -> Option<(String, Option<String>)> {
    let marker = format!("{file}:");
    let mut from = 0;
    while let Some(found) = stack[from..].find(&marker) {
        let after = &stack[from + found + marker.len()..];
        let line: String = after.chars().take_while(char::is_ascii_digit).collect();
        if !line.is_empty() {
            let rest = &after[line.len()..];
            let column = rest
                .strip_prefix(':')
                .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect::<String>())
                .filter(|column| !column.is_empty());
            return Some((line, column));
        }
        from += found + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(name: &str, message: &str, stack: &str) -> ThrownInfo {
        ThrownInfo {
            error: true,
            name: name.into(),
            message: message.into(),
            stack: stack.into(),
            ..ThrownInfo::default()
        }
    }

    #[test]
    fn a_syntax_error_names_its_line_and_column() {
        let info = error("SyntaxError", "unexpected token", "    at lock.js:3:14\n");
        assert_eq!(describe_module_error(&info, "lock.js", None), "lock.js:3:14: SyntaxError: unexpected token");
        let info = error("Error", "boom", "    at f (lock.js:7)\n");
        assert_eq!(describe_module_error(&info, "lock.js", None), "lock.js:7: Error: boom");
        let info = error("Error", "boom", "no place");
        assert_eq!(describe_module_error(&info, "lock.js", None), "lock.js: Error: boom");
    }

    #[test]
    fn an_import_is_refused_in_words_that_say_what_to_do() {
        let info =
            error("Error", "imports are not available: a solution is one file (cannot load module)", "at lock.js:1:1");
        assert_eq!(
            describe_module_error(&info, "lock.js", None),
            "lock.js:1:1: Error: imports are not available: a solution is one file. Your solution must be one file with no imports."
        );
    }

    #[test]
    fn a_stop_or_a_limit_comes_first() {
        let info = error("InternalError", "interrupted", "");
        assert_eq!(
            describe_module_error(&info, "a.js", Some("ran too long")),
            "a.js: its top-level code never finished: it ran too long"
        );
        let info = ThrownInfo { limit: Some("used more than 32 MiB of memory".into()), ..info };
        assert_eq!(
            describe_module_error(&info, "a.js", None),
            "a.js: its top-level code used more than 32 MiB of memory"
        );
        let info = ThrownInfo { text: "42".into(), ..ThrownInfo::default() };
        assert!(describe_module_error(&info, "a.js", None)
            .starts_with("a.js: its top-level code threw 42, which is not an Error"));
    }
}
