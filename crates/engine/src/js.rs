//! The few QuickJS C functions the engine uses, wrapped so that ownership
//! of values is explicit: a [`Value`] owns one reference and frees it when
//! dropped; functions that take a `&Value` borrow it.

use std::ffi::{c_int, CStr, CString};

use rquickjs_sys as q;

pub use q::JSContext as Context;

/// One owned reference to a QuickJS value in `ctx`.
pub struct Value {
    ctx: *mut Context,
    raw: q::JSValue,
}

impl Value {
    /// Takes ownership of `raw`.
    ///
    /// # Safety
    /// `raw` is a value of `ctx` that the caller owned.
    pub unsafe fn own(ctx: *mut Context, raw: q::JSValue) -> Value {
        Value { ctx, raw }
    }

    pub fn raw(&self) -> q::JSValue {
        self.raw
    }

    /// The context the value belongs to.
    pub fn context(&self) -> *mut Context {
        self.ctx
    }

    /// A second reference to the same value.
    pub fn dup(&self) -> Value {
        // SAFETY: the value is live while `self` is.
        unsafe { Value::own(self.ctx, q::JS_DupValue(self.ctx, self.raw)) }
    }

    /// Gives up ownership without freeing (the arena goes back whole: reset, or dropped).
    pub fn leak(self) -> q::JSValue {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }

    pub fn is_function(&self) -> bool {
        // SAFETY: as above.
        unsafe { q::JS_IsFunction(self.ctx, self.raw) }
    }

    pub fn is_promise(&self) -> bool {
        // SAFETY: as above.
        unsafe { q::JS_IsPromise(self.raw) }
    }

    /// `typeof value`, as JavaScript says it.
    pub fn type_of(&self) -> &'static str {
        // SAFETY: as above.
        unsafe {
            let raw = self.raw;
            if q::JS_IsFunction(self.ctx, raw) {
                "function"
            } else if q::JS_IsNumber(raw) {
                "number"
            } else if q::JS_IsString(raw) {
                "string"
            } else if q::JS_IsBool(raw) {
                "boolean"
            } else if q::JS_IsUndefined(raw) || q::JS_IsUninitialized(raw) {
                "undefined"
            } else if q::JS_IsSymbol(raw) {
                "symbol"
            } else if q::JS_IsBigInt(raw) {
                "bigint"
            } else {
                "object"
            }
        }
    }
}

impl Drop for Value {
    fn drop(&mut self) {
        // SAFETY: `self` owns one reference.
        unsafe { q::JS_FreeValue(self.ctx, self.raw) }
    }
}

/// An exception the VM threw, already taken out of the context.
pub type Thrown = Value;

/// A call or evaluation's result.
pub type Outcome = Result<Value, Thrown>;

/// # Safety
/// `ctx` is a live context; `raw` was just returned by QuickJS.
unsafe fn outcome(ctx: *mut Context, raw: q::JSValue) -> Outcome {
    if q::JS_IsException(raw) {
        Err(Value::own(ctx, q::JS_GetException(ctx)))
    } else {
        Ok(Value::own(ctx, raw))
    }
}

/// Evaluates `source` as a script, or as a module when `flags` say so.
///
/// # Safety
/// `ctx` is a live context.
pub unsafe fn eval(ctx: *mut Context, source: &str, file: &str, flags: u32) -> Outcome {
    // QuickJS reads the source up to its length but wants a terminating NUL.
    let mut text = Vec::with_capacity(source.len() + 1);
    text.extend_from_slice(source.as_bytes());
    text.push(0);
    let file = CString::new(file.replace('\0', "")).expect("no NUL left");
    let raw = q::JS_Eval(ctx, text.as_ptr().cast(), source.len() as q::size_t, file.as_ptr(), flags as c_int);
    outcome(ctx, raw)
}

/// Calls `function` with `this` and `args`, all borrowed.
///
/// # Safety
/// `ctx` is a live context and the values are its own, live.
pub unsafe fn call(ctx: *mut Context, function: q::JSValue, this: q::JSValue, args: &[q::JSValue]) -> Outcome {
    // QuickJS reads the arguments (JSValueConst) and never writes them: no copy is needed.
    let raw = q::JS_Call(ctx, function, this, args.len() as c_int, args.as_ptr().cast_mut());
    outcome(ctx, raw)
}

/// `object[name]`.
///
/// # Safety
/// `ctx` is a live context.
pub unsafe fn get(ctx: *mut Context, object: &Value, name: &CStr) -> Outcome {
    outcome(ctx, q::JS_GetPropertyStr(ctx, object.raw, name.as_ptr()))
}

/// A new string value holding `text`.
///
/// # Safety
/// `ctx` is a live context.
pub unsafe fn string(ctx: *mut Context, text: &str) -> Outcome {
    outcome(ctx, q::JS_NewStringLen(ctx, text.as_ptr().cast(), text.len() as q::size_t))
}

/// A small integer, which needs no allocation.
pub fn int(value: i32) -> q::JSValue {
    q::JS_MKVAL(q::JS_TAG_INT, value)
}

pub const UNDEFINED: q::JSValue = q::JS_UNDEFINED;

/// The value as text (`String(value)`, which may run code), or None if that threw.
///
/// # Safety
/// `ctx` is a live context.
pub unsafe fn text(ctx: *mut Context, value: q::JSValue) -> Option<String> {
    with_text(ctx, value, str::to_string)
}

/// `read` of the value as text (see [`text`]), read where QuickJS wrote it:
/// no copy (the harness's outbox is read this way at every step).
///
/// # Safety
/// `ctx` is a live context.
pub unsafe fn with_text<R>(ctx: *mut Context, value: q::JSValue, read: impl FnOnce(&str) -> R) -> Option<R> {
    let mut length: q::size_t = 0;
    let pointer = q::JS_ToCStringLen2(ctx, &mut length, value, false);
    if pointer.is_null() {
        // Converting threw: drop that exception.
        q::JS_FreeValue(ctx, q::JS_GetException(ctx));
        return None;
    }
    let bytes = std::slice::from_raw_parts(pointer.cast::<u8>(), length as usize);
    // QuickJS writes UTF-8; only a lone surrogate comes out as something else.
    let result = match std::str::from_utf8(bytes) {
        Ok(text) => read(text),
        Err(_) => read(&String::from_utf8_lossy(bytes)),
    };
    q::JS_FreeCString(ctx, pointer);
    Some(result)
}
