//! The sandbox: a QuickJS runtime in its own arena, serving many runs of
//! one submission, with limits and a realm sealed by the prelude
//! (`vm/prelude.js`). See ARCHITECTURE.md, "The sandbox's threat model".
//!
//! - No Date (the context is made without it), Math.random throws, and there
//!   is no timer, network, file system or module to import.
//! - A deterministic step budget (interrupt-handler calls), a job budget, a
//!   memory cap (the arena), a stack limit; a wall-clock backstop that
//!   well-behaved code never reaches.
//! - `seal()` copies the arena once the harness and the learner's module
//!   instances are in it; `begin_run()` puts it back, so every run starts
//!   from the same bytes and nothing of a run reaches the next.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::mem::ManuallyDrop;

use rquickjs_sys as q;
use serde::Deserialize;

use crate::arena::{self, Arena, Snapshot};
use crate::js::{self, Value};
use crate::limits::{reasons, Limits, JOBS_PER_BATCH, MEMORY_BYTES};

const PRELUDE: &str = include_str!("../vm/prelude.js");

/// The embedder's real clock, in milliseconds (only the backstop reads it).
pub type Clock = fn() -> f64;

/// What the runtime's callbacks (allocator, interrupt handler, host
/// functions) reach through its opaque pointer. Boxed: its address is fixed.
struct Host {
    arena: Arena,
    limits: Limits,
    clock: Clock,
    /// Interrupt-handler calls in this step, and in this run.
    step_interrupts: u32,
    run_interrupts: u32,
    /// Drains of the job queue this run (the clock is read every few).
    drains: u32,
    stopped: Option<String>,
    deadline: f64,
    /// Allocations the arena had refused when the run began.
    refused_before: u64,
    /// Bytes asked of the allocator in this run, however many were given back.
    run_allocated: u64,
}

impl Host {
    fn memory_exhausted(&self) -> bool {
        self.arena.refused() > self.refused_before
    }

    /// Fresh budgets and deadline, and no stop: a run (or a spare's new use) starts.
    /// Counts `bytes` against the run's allocation budget: work inside a
    /// built-in (`repeat`, `concat`, `join`, …) runs few of QuickJS's
    /// operations, but each byte it makes is counted here, the same on
    /// every host. The code stops at its next operation.
    fn allocating(&mut self, bytes: usize) {
        self.run_allocated = self.run_allocated.saturating_add(bytes as u64);
        if self.run_allocated > self.limits.run_allocation_bytes && self.stopped.is_none() {
            self.stopped = Some(reasons::allocation(&self.limits));
        }
    }

    fn start(&mut self) {
        self.step_interrupts = 0;
        self.run_interrupts = 0;
        self.run_allocated = 0;
        self.drains = 0;
        self.stopped = None;
        self.refused_before = self.arena.refused();
        self.deadline = (self.clock)() + f64::from(self.limits.wall_ms);
    }
}

/// A thrown value as the prelude's `inspect` describes it.
#[derive(Debug, Default, Deserialize)]
pub struct ThrownInfo {
    #[serde(default)]
    pub error: bool,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub stack: String,
    #[serde(default)]
    pub text: String,
    /// Set when the value says a limit was hit (memory, stack).
    #[serde(skip)]
    pub limit: Option<String>,
}

/// Values made by the sandbox live as long as it does and are never freed
/// one by one: dropping the sandbox puts its whole arena back as it was made
/// (or drops it), the heap at once (nothing to free value by value, and
/// nothing a hostile heap could make fail).
pub struct Sandbox {
    rt: *mut q::JSRuntime,
    ctx: *mut q::JSContext,
    tools: q::JSValue,
    inspect: q::JSValue,
    sealed: Option<Snapshot>,
    /// The arena as `Sandbox::new` left it: what the sandbox becomes again
    /// when it is dropped and kept as a spare.
    fresh: Snapshot,
    /// Taken when the sandbox is dropped (kept as a spare, or dropped after
    /// everything that points into its arena).
    host: ManuallyDrop<Box<Host>>,
}

/// A dropped sandbox put back as `Sandbox::new` made it, byte for byte, for
/// the next sandbox with the same limits: a restore instead of a new
/// runtime and its prelude (about 3.7 ms natively, and a grading makes two:
/// the preflight's and the runner's; BENCHMARKS.md, a tenth pass).
struct Spare {
    host: Box<Host>,
    rt: *mut q::JSRuntime,
    ctx: *mut q::JSContext,
    tools: q::JSValue,
    inspect: q::JSValue,
    fresh: Snapshot,
}

/// At most this many spares per thread (a spare holds the memory its arena
/// ever used): gradings use the default limits, the preflight and the
/// runner one after the other, so one spare serves both; a second serves a
/// host that asks for other limits.
const SPARES_KEPT: usize = 2;

thread_local! {
    static SPARES: RefCell<Vec<Spare>> = const { RefCell::new(Vec::new()) };
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // SAFETY: taken once, here; nothing uses the sandbox after its drop.
        let mut host = unsafe { ManuallyDrop::take(&mut self.host) };
        let fresh = std::mem::take(&mut self.fresh);
        // Every byte a run wrote goes: below the fresh state restored, above it zeros.
        host.arena.reset_to(&fresh);
        let spare = Spare { host, rt: self.rt, ctx: self.ctx, tools: self.tools, inspect: self.inspect, fresh };
        let mut spare = Some(spare);
        let _ = SPARES.try_with(|spares| {
            let mut spares = spares.borrow_mut();
            if spares.len() < SPARES_KEPT {
                spares.extend(spare.take());
            }
        });
        // Not kept: the arena goes whole (its region back, zeroed).
        drop(spare);
    }
}

unsafe fn host_of(opaque: *mut c_void) -> &'static mut Host {
    &mut *opaque.cast::<Host>()
}

unsafe fn host_of_context(ctx: *mut q::JSContext) -> &'static mut Host {
    host_of(q::JS_GetRuntimeOpaque(q::JS_GetRuntime(ctx)))
}

unsafe extern "C" fn arena_calloc(opaque: *mut c_void, count: q::size_t, size: q::size_t) -> *mut c_void {
    let Some(total) = (count as usize).checked_mul(size as usize) else { return std::ptr::null_mut() };
    let host = host_of(opaque);
    host.allocating(total);
    let block = host.arena.malloc(total);
    if !block.is_null() {
        std::ptr::write_bytes(block, 0, total);
    }
    block.cast()
}

unsafe extern "C" fn arena_malloc(opaque: *mut c_void, size: q::size_t) -> *mut c_void {
    let host = host_of(opaque);
    host.allocating(size as usize);
    host.arena.malloc(size as usize).cast()
}

unsafe extern "C" fn arena_free(opaque: *mut c_void, pointer: *mut c_void) {
    host_of(opaque).arena.free(pointer.cast())
}

unsafe extern "C" fn arena_realloc(opaque: *mut c_void, pointer: *mut c_void, size: q::size_t) -> *mut c_void {
    let host = host_of(opaque);
    host.allocating((size as usize).saturating_sub(arena::usable_size(pointer.cast())));
    host.arena.realloc(pointer.cast(), size as usize).cast()
}

unsafe extern "C" fn arena_usable_size(pointer: *const c_void) -> q::size_t {
    arena::usable_size(pointer.cast()) as q::size_t
}

static ARENA_FUNCTIONS: q::JSMallocFunctions = q::JSMallocFunctions {
    js_calloc: Some(arena_calloc),
    js_malloc: Some(arena_malloc),
    js_free: Some(arena_free),
    js_realloc: Some(arena_realloc),
    js_malloc_usable_size: Some(arena_usable_size),
};

/// A SharedArrayBuffer's memory, from the arena like every other block
/// (QuickJS-ng asks a runtime for hooks before it makes a growable one, and
/// refuses one without them). A header holds how many buffers share the
/// block: one, since nothing here hands a buffer to another runtime.
const SHARED_HEADER: usize = 16;

unsafe extern "C" fn shared_alloc(opaque: *mut c_void, size: q::size_t) -> *mut c_void {
    let Some(total) = (size as usize).checked_add(SHARED_HEADER) else { return std::ptr::null_mut() };
    let block = host_of(opaque).arena.malloc(total);
    if block.is_null() {
        return std::ptr::null_mut();
    }
    *(block as *mut usize) = 1;
    block.add(SHARED_HEADER).cast()
}

unsafe extern "C" fn shared_free(opaque: *mut c_void, pointer: *mut c_void) {
    let block = pointer.cast::<u8>().sub(SHARED_HEADER);
    *(block as *mut usize) -= 1;
    if *(block as *const usize) == 0 {
        host_of(opaque).arena.free(block);
    }
}

unsafe extern "C" fn shared_dup(_: *mut c_void, pointer: *mut c_void) {
    *(pointer.cast::<u8>().sub(SHARED_HEADER) as *mut usize) += 1;
}

unsafe extern "C" fn interrupt(_: *mut q::JSRuntime, opaque: *mut c_void) -> c_int {
    let host = host_of(opaque);
    host.step_interrupts += 1;
    host.run_interrupts += 1;
    if host.stopped.is_some() {
        return 1;
    }
    if host.step_interrupts > host.limits.step_budget {
        host.stopped = Some(reasons::steps(&host.limits));
        return 1;
    }
    if host.run_interrupts > host.limits.run_budget {
        host.stopped = Some(reasons::run(&host.limits));
        return 1;
    }
    // The backstop: never used by well-behaved runs, so it cannot change a verdict that the budgets decide.
    if host.run_interrupts & 15 == 0 && (host.clock)() > host.deadline {
        host.stopped = Some(reasons::wall(&host.limits));
        return 1;
    }
    0
}

/// The harness calls `halt` when it ends a run itself (console flood), so
/// the learner's code is interrupted at once instead of running on unheard.
unsafe extern "C" fn halt(ctx: *mut q::JSContext, _: q::JSValue, argc: c_int, argv: *mut q::JSValue) -> q::JSValue {
    let host = host_of_context(ctx);
    if host.stopped.is_none() {
        let reason = if argc > 0 { js::text(ctx, *argv) } else { None };
        host.stopped = Some(reason.unwrap_or_default());
    }
    q::JS_UNDEFINED
}

/// Lets the harness tell the sandbox's own interrupt from an error the learner made up to look like one.
unsafe extern "C" fn is_stopped(ctx: *mut q::JSContext, _: q::JSValue, _: c_int, _: *mut q::JSValue) -> q::JSValue {
    if host_of_context(ctx).stopped.is_some() {
        q::JS_TRUE
    } else {
        q::JS_FALSE
    }
}

/// A harness that drives the learner's code itself, call after call (the
/// cas harness: a store never waits), starts each call as a step of its own.
unsafe extern "C" fn begin_step(ctx: *mut q::JSContext, _: q::JSValue, _: c_int, _: *mut q::JSValue) -> q::JSValue {
    host_of_context(ctx).step_interrupts = 0;
    q::JS_UNDEFINED
}

/// Out of memory, QuickJS may throw null or a value of its own: the harness
/// asks this before calling a thrown value that is not an Error a mistake.
unsafe extern "C" fn memory_full(ctx: *mut q::JSContext, _: q::JSValue, _: c_int, _: *mut q::JSValue) -> q::JSValue {
    if host_of_context(ctx).memory_exhausted() {
        q::JS_TRUE
    } else {
        q::JS_FALSE
    }
}

const NO_MODULE: &CStr = c"(no module can be imported)";

/// No module can be imported, not even the learner's own file: every name
/// resolves to one no module has, so `import("lock.js")` cannot hand one
/// process (or run) the module instance of another.
unsafe extern "C" fn normalize_module(
    ctx: *mut q::JSContext,
    _: *const c_char,
    _: *const c_char,
    _: *mut c_void,
) -> *mut c_char {
    q::js_strdup(ctx, NO_MODULE.as_ptr())
}

unsafe extern "C" fn load_module(ctx: *mut q::JSContext, _: *const c_char, _: *mut c_void) -> *mut q::JSModuleDef {
    q::JS_ThrowPlainError(
        ctx,
        c"%s".as_ptr(),
        c"imports are not available: a solution is one file, and everything it needs arrives through ctx (cannot load module)"
            .as_ptr(),
    );
    std::ptr::null_mut()
}

impl Sandbox {
    /// A fresh runtime in a fresh arena, its realm sealed by the prelude:
    /// a spare put back as it was made, when the thread has one with these
    /// limits.
    pub fn new(limits: Limits, clock: Clock) -> Sandbox {
        let spare = SPARES.with(|spares| {
            let mut spares = spares.borrow_mut();
            let index = spares.iter().position(|spare| spare.host.limits == limits)?;
            Some(spares.swap_remove(index))
        });
        match spare {
            Some(spare) => Sandbox::from_spare(spare, clock),
            None => Sandbox::made(limits, clock),
        }
    }

    fn from_spare(spare: Spare, clock: Clock) -> Sandbox {
        let Spare { mut host, rt, ctx, tools, inspect, fresh } = spare;
        #[cfg(test)]
        tests::SPARES_TAKEN.with(|taken| taken.set(taken.get() + 1));
        host.clock = clock;
        host.start();
        // Its stack limit counts from where the spare was made until
        // `begin_run`, which every use starts with, counts it from there.
        Sandbox { rt, ctx, tools, inspect, sealed: None, fresh, host: ManuallyDrop::new(host) }
    }

    fn made(limits: Limits, clock: Clock) -> Sandbox {
        let mut host = Box::new(Host {
            arena: Arena::new(MEMORY_BYTES),
            limits,
            clock,
            step_interrupts: 0,
            run_interrupts: 0,
            run_allocated: 0,
            drains: 0,
            stopped: None,
            deadline: clock() + f64::from(limits.wall_ms),
            refused_before: 0,
        });
        let opaque = (&mut *host as *mut Host).cast::<c_void>();
        // SAFETY: the runtime's memory and callbacks all go through `host`,
        // which lives (boxed, unmoved) as long as the sandbox.
        let (rt, ctx, tools, inspect) = unsafe {
            let rt = q::JS_NewRuntime2(&ARENA_FUNCTIONS, opaque);
            assert!(!rt.is_null(), "a new QuickJS runtime fits in an empty arena");
            q::JS_SetRuntimeOpaque(rt, opaque);
            q::JS_SetMaxStackSize(rt, limits.stack_bytes as q::size_t);
            q::JS_SetInterruptHandler(rt, Some(interrupt), opaque);
            let shared = q::JSSharedArrayBufferFunctions {
                sab_alloc: Some(shared_alloc),
                sab_free: Some(shared_free),
                sab_dup: Some(shared_dup),
                sab_opaque: opaque,
            };
            q::JS_SetSharedArrayBufferFunctions(rt, &shared);
            q::JS_SetModuleLoaderFunc(rt, Some(normalize_module), Some(load_module), std::ptr::null_mut());
            let ctx = q::JS_NewContextRaw(rt);
            q::JS_AddIntrinsicBaseObjects(ctx);
            q::JS_AddIntrinsicEval(ctx);
            q::JS_AddIntrinsicRegExp(ctx);
            q::JS_AddIntrinsicJSON(ctx);
            q::JS_AddIntrinsicProxy(ctx);
            q::JS_AddIntrinsicMapSet(ctx);
            q::JS_AddIntrinsicTypedArrays(ctx);
            q::JS_AddIntrinsicPromise(ctx);
            let function = |body: q::JSCFunction, name: &CStr, length: c_int| {
                Value::own(
                    ctx,
                    q::JS_NewCFunction2(ctx, body, name.as_ptr(), length, q::JSCFunctionEnum_JS_CFUNC_generic, 0),
                )
            };
            let prelude =
                js::eval(ctx, PRELUDE, "prelude.js", q::JS_EVAL_TYPE_GLOBAL).ok().expect("the prelude compiles");
            let args = [
                function(Some(halt), c"halt", 1),
                function(Some(is_stopped), c"isStopped", 0),
                function(Some(memory_full), c"memoryFull", 0),
                function(Some(begin_step), c"beginStep", 0),
                Value::own(ctx, js::int(limits.console_lines_max as i32)),
                Value::own(ctx, js::int(limits.console_line_chars_max as i32)),
                js::string(ctx, &reasons::memory()).ok().expect("a short string fits"),
                js::string(ctx, &reasons::stack()).ok().expect("a short string fits"),
            ];
            let raw: Vec<q::JSValue> = args.iter().map(Value::raw).collect();
            let tools = js::call(ctx, prelude.raw(), js::UNDEFINED, &raw).ok().expect("the prelude runs");
            let inspect = js::get(ctx, &tools, c"inspect").ok().expect("the prelude's tools have inspect");
            (rt, ctx, tools.leak(), inspect.leak())
        };
        // Taken once the set-up's own values are freed (and the space they
        // gave back zeroed), so a spare put back to it is the state a
        // sandbox made anew would be in.
        host.arena.zero_unused();
        let fresh = host.arena.snapshot();
        Sandbox { rt, ctx, tools, inspect, sealed: None, fresh, host: ManuallyDrop::new(host) }
    }

    pub fn context(&self) -> *mut q::JSContext {
        self.ctx
    }

    pub fn runtime(&self) -> *mut q::JSRuntime {
        self.rt
    }

    /// The tools every run's harness is given (see the prelude).
    pub fn tools(&self) -> q::JSValue {
        self.tools
    }

    pub fn limits(&self) -> &Limits {
        &self.host.limits
    }

    /// Copies the arena now: every run then starts from exactly these bytes.
    pub fn seal(&mut self) {
        self.sealed = Some(self.host.arena.snapshot());
    }

    /// Bytes a run's restore copies (0 before `seal`).
    pub fn sealed_bytes(&self) -> usize {
        self.sealed.as_ref().map_or(0, Snapshot::len)
    }

    /// Starts a run: the sealed arena back, fresh budgets and deadline.
    pub fn begin_run(&mut self) {
        if let Some(sealed) = &self.sealed {
            self.host.arena.restore(sealed);
        }
        self.host.start();
        // The stack limit counts from here, the same depth every run.
        // SAFETY: the runtime is live.
        unsafe { q::JS_UpdateStackTop(self.rt) };
    }

    /// Starts a step: the code is resumed (a process starts, a reply or a
    /// sleep's end is delivered) and runs until it waits again, under a
    /// fresh step budget. The run's budget and deadline go on.
    pub fn begin_step(&mut self) {
        self.host.step_interrupts = 0;
    }

    /// A new wall-clock deadline from now: lab mode's runs last as long as
    /// the store takes, so the backstop counts from each step there.
    pub fn restart_clock(&mut self) {
        self.host.deadline = (self.host.clock)() + f64::from(self.host.limits.wall_ms);
    }

    /// Why the sandbox stopped the code, or None.
    pub fn stopped(&self) -> Option<&str> {
        self.host.stopped.as_deref()
    }

    /// Stops the run, keeping the first reason.
    pub fn stop(&mut self, reason: String) {
        self.host.stopped.get_or_insert(reason);
    }

    pub fn memory_exhausted(&self) -> bool {
        self.host.memory_exhausted()
    }

    /// A value the VM threw, described by the prelude's `inspect` (which
    /// runs nothing of the learner's): bounded, single-line, well-formed
    /// text. A memory or stack failure is named as such.
    pub fn describe_thrown(&mut self, thrown: &Value) -> ThrownInfo {
        // SAFETY: the context is live.
        let json = unsafe {
            match js::call(self.ctx, self.inspect, js::UNDEFINED, &[thrown.raw()]) {
                Ok(text) => js::text(self.ctx, text.raw()),
                Err(_) => None,
            }
        };
        let mut info = json.and_then(|json| serde_json::from_str::<ThrownInfo>(&json).ok()).unwrap_or_else(|| {
            ThrownInfo { text: "a value that could not be described".into(), ..ThrownInfo::default() }
        });
        let words = if info.error { format!("{}: {}", info.name, info.message).to_lowercase() } else { String::new() };
        if words.contains("out of memory") || (!info.error && self.memory_exhausted()) {
            info.limit = Some(reasons::memory());
        } else if info.error
            && (words.contains("stack overflow")
                || words.contains("too much recursion")
                || words.contains("maximum call stack"))
        {
            info.limit = Some(reasons::stack());
        }
        info
    }

    /// Runs queued promise jobs until none are left or the code is stopped.
    /// Jobs run in batches; between batches the job budget (an `await` loop
    /// runs jobs, not loop bytecodes) and the clock are checked, and the
    /// step budget still stops a long job. One drain is one step of the
    /// simulation: the job count starts again.
    pub fn drain_jobs(&mut self) {
        let mut jobs: u32 = 0;
        while self.host.stopped.is_none() {
            let mut ran: u32 = 0;
            let mut failed: Option<Value> = None;
            while ran < JOBS_PER_BATCH {
                let mut context: *mut q::JSContext = std::ptr::null_mut();
                // SAFETY: the runtime is live; its one context is `self.ctx`.
                match unsafe { q::JS_ExecutePendingJob(self.rt, &mut context) } {
                    0 => break,
                    1 => ran += 1,
                    _ => {
                        // SAFETY: as above.
                        failed = Some(unsafe { Value::own(self.ctx, q::JS_GetException(self.ctx)) });
                        break;
                    }
                }
            }
            if let Some(thrown) = failed {
                let info = self.describe_thrown(&thrown);
                let reason = info.limit.clone().unwrap_or_else(|| {
                    if info.error {
                        format!("{}: {}", info.name, info.message)
                    } else {
                        format!("threw {}", info.text)
                    }
                });
                self.stop(reason);
                return;
            }
            jobs += ran;
            if jobs > self.host.limits.job_budget {
                let reason = reasons::jobs(&self.host.limits);
                self.stop(reason);
            }
            // Before another batch, and every eighth drain: most drains are
            // one short batch, and reading the clock crosses out of wasm (read
            // at every drain, 0.7% of a grading). Code whose time goes into
            // built-ins (few bytecodes, so few interrupts) still meets the
            // backstop within a few steps.
            self.host.drains = self.host.drains.wrapping_add(1);
            if (ran == JOBS_PER_BATCH || self.host.drains & 7 == 0) && (self.host.clock)() > self.host.deadline {
                let reason = reasons::wall(&self.host.limits);
                self.stop(reason);
            }
            if ran < JOBS_PER_BATCH {
                break;
            }
        }
        if self.memory_exhausted() {
            self.stop(reasons::memory());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Spares `Sandbox::new` took in this thread.
        pub static SPARES_TAKEN: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }

    fn clock() -> f64 {
        0.0
    }

    /// Runs `source` as a script in the sandbox, whatever it throws.
    fn run(sandbox: &mut Sandbox, source: &str) {
        sandbox.begin_run();
        // SAFETY: the sandbox's context is live.
        drop(unsafe { js::eval(sandbox.context(), source, "test.js", q::JS_EVAL_TYPE_GLOBAL) });
        sandbox.drain_jobs();
    }

    #[test]
    fn a_spare_is_a_new_sandbox_byte_for_byte_and_keeps_nothing_of_its_last_use() {
        // A thread of its own: no spares yet.
        std::thread::spawn(|| {
            let mut first = Sandbox::new(Limits::default(), clock);
            let made: Vec<u8> = first.host.arena.bytes_ever_used().to_vec();
            let runtime = first.runtime();
            run(&mut first, "globalThis.kept = 'secret'.repeat(100000); Object.prototype.polluted = 1;");
            run(&mut first, "let a = []; for (;;) a.push(new Array(1000).fill(a.length));");
            assert!(first.memory_exhausted(), "the bomb filled the arena");
            first.seal();
            drop(first);

            let mut second = Sandbox::new(Limits::default(), clock);
            assert_eq!(SPARES_TAKEN.with(|taken| taken.get()), 1, "the spare was used");
            assert_eq!(second.runtime(), runtime);
            let bytes = second.host.arena.bytes_ever_used();
            assert_eq!(bytes, &made[..], "the arena is as a new sandbox's, and nothing above it was ever used");
            assert!(second.stopped().is_none() && !second.memory_exhausted());
            assert_eq!(second.sealed_bytes(), 0, "a spare is not sealed");
            run(
                &mut second,
                "if (globalThis.kept !== undefined || ({}).polluted !== undefined) throw 1; globalThis.ok = 1;",
            );
            assert!(second.stopped().is_none(), "{:?}", second.stopped());
        })
        .join()
        .expect("the test thread");
    }

    #[test]
    fn a_spare_serves_only_the_same_limits() {
        std::thread::spawn(|| {
            let other = Limits { step_budget: 7, ..Limits::default() };
            let runtime = Sandbox::new(other, clock).runtime();
            let default = Sandbox::new(Limits::default(), clock);
            assert_eq!(SPARES_TAKEN.with(|taken| taken.get()), 0, "the spare has other limits");
            assert_ne!(default.runtime(), runtime);
            drop(default);
            let mut again = Sandbox::new(other, clock);
            assert_eq!(SPARES_TAKEN.with(|taken| taken.get()), 1, "the spare with these limits");
            assert_eq!(again.runtime(), runtime);
            run(&mut again, "for (let i = 0; i < 1e9; i++) {}");
            assert!(again.stopped().is_some(), "the spare's own step budget holds");
        })
        .join()
        .expect("the test thread");
    }
}
