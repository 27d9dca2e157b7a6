//! The lowest stack pointer a probe build saw (`cargo xtask stack-budget`):
//! xtask's `host_stack` pass calls `leaselab_stack_probe` after it lowers
//! the stack pointer on entry to each C function, so the lowest value seen
//! is how deep the estimated host stack went. After V8's native stack ran
//! out, the module is left mid-call, but these two still answer: they use
//! no stack of their own.

use std::sync::atomic::{AtomicU32, Ordering};

use wasm_bindgen::prelude::*;

static LOWEST: AtomicU32 = AtomicU32::new(u32::MAX);

#[unsafe(no_mangle)]
pub extern "C" fn leaselab_stack_probe(stack_pointer: i32) {
    LOWEST.fetch_min(stack_pointer as u32, Ordering::Relaxed);
}

/// The lowest stack pointer seen since `stackProbeReset`.
#[wasm_bindgen(js_name = stackProbeLowest)]
pub fn stack_probe_lowest() -> u32 {
    LOWEST.load(Ordering::Relaxed)
}

#[wasm_bindgen(js_name = stackProbeReset)]
pub fn stack_probe_reset() {
    LOWEST.store(u32::MAX, Ordering::Relaxed);
}
