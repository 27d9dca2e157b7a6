//! The deterministic simulation kernel.
//!
//! Several processes share one simulated store ([`kv::Store`]) while the
//! kernel injects faults: pauses longer than a TTL, crashes, late requests
//! and replies, drifting and jumping clocks. The design decision: a run is a
//! pure function of its [`Plan`], which a seed generates and shrinking
//! edits, so every failure can be replayed from a short token and cut down
//! to a minimal story. The kernel is driven by a host (see [`kernel`]): the
//! Rust executor in [`host`] here, the JavaScript runner in the browser.
//!
//! No real time, no I/O, no randomness but [`rng`].

pub mod call;
pub mod clock;
pub mod host;
pub mod kernel;
pub mod plan;
pub mod rng;
pub mod shrink;
pub mod token;
pub mod trace;

pub use call::{Call, Listed, Record, Reply, WatchEvent};
pub use host::{run_processes, Ctx};
pub use kernel::{Ending, HostError, Limit, Next, Sim, SimLimits};
pub use plan::{process_name, Fault, FaultKind, FaultProfile, Plan, ProcessIndex, ProcessName, Scheduler};
pub use trace::{CallId, Happening, Note, TraceEvent};
