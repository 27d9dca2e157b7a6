//! The WebAssembly bindings: the one crate that knows wasm-bindgen, js-sys
//! and serde-wasm-bindgen.
//!
//! The design decision: long-lived state stays in Rust behind an opaque
//! handle ([`WasmStore`], `Store` in JS), and JavaScript makes coarse calls
//! that return small plain objects. The shapes that cross the boundary are
//! defined here in [`js_types`] and converted from the core types, so `kv`
//! never has to think about JavaScript naming or number limits.
//!
//! Naming follows the lesson, not etcd: a record's `version` is the
//! store-wide number of its last write (etcd's mod revision, the fencing
//! token), `keyVersion` is etcd's per-key counter that restarts at 1.
//!
//! Every exported `Result` turns into a thrown JS `Error` whose message says
//! what was wrong and what to do instead.

// The failover simulator and the fencing race each live in their widget's
// module only: the failover module, and the store module.
#[cfg(feature = "grader")]
mod engine_api;
#[cfg(feature = "failover")]
pub mod failover;
#[cfg(not(any(feature = "failover", feature = "grader")))]
pub mod fencing_race;
#[cfg(feature = "grader")]
mod grading;
mod js_types;
#[cfg(feature = "grader")]
mod lab;
#[cfg(feature = "stack-probe")]
mod stack_probe;
mod store_handle;

#[cfg(feature = "grader")]
pub use grading::{case_from_token, render_counterexample};
pub use store_handle::WasmStore;

use wasm_bindgen::prelude::*;

/// The crate's version, so the page can show which build it runs.
#[wasm_bindgen(js_name = buildVersion)]
pub fn build_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
