//! `cargo xtask stack-budget`: measures how deep each kind of deep program
//! may go on the smallest host before its native stack runs out, in the
//! measure the engine's stack budget counts (`engine::limits::STACK_BYTES`).
//!
//! It builds the grader with a probe of the stack pointer and a shadow
//! stack large enough that QuickJS's own check never fires (in its own
//! target folder, so the real build is left alone), then
//! `bench/stack-budget.mjs` drives that build in Node and in Chromium's
//! Web Workers and prints, per program, the depth and the measure at which
//! the host's stack ran out. The budget must stay well below the smallest.

use crate::cmd::{self, command};
use crate::{host_stack, tools};

/// A shadow stack no deep program in the bench fills: 64 MiB.
const PROBE_SHADOW_STACK_BYTES: u32 = 64 * 1024 * 1024;

pub fn run() -> Result<(), String> {
    tools::ensure_all(tools::Needs { browser: true })?;
    let target = cmd::root().join("target/stack-budget");
    let target_text = target.to_string_lossy().into_owned();
    let link_arg = format!("link-arg=-zstack-size={PROBE_SHADOW_STACK_BYTES}");
    cmd::run(command(
        "cargo",
        &[
            "rustc",
            "--profile",
            "grader",
            "--target",
            "wasm32-unknown-unknown",
            "-p",
            "wasm",
            "--features",
            "stack-probe",
            "--lib",
            "--target-dir",
            &target_text,
            "--",
            "-C",
            &link_arg,
        ],
    ))?;
    let built = target.join("wasm32-unknown-unknown/grader/leaselab.wasm");
    let probed = target.join("leaselab-probed.wasm");
    host_stack::instrument(&built, &probed, Some("leaselab_stack_probe"))?;
    let pkg = target.join("pkg");
    crate::build::wasm_bindgen(&probed, &pkg, "leaselab")?;
    cmd::run(command("node", &["bench/stack-budget.mjs", &pkg.to_string_lossy()]))
}
