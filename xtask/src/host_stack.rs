//! Makes QuickJS's stack check count the host's stack.
//!
//! In WebAssembly, QuickJS's stack check reads wasm's shadow stack (the
//! `__stack_pointer` global), but its recursive C functions keep their
//! locals in the host's native stack (V8's), which the shadow stack barely
//! sees: a parser nesting brackets, `JSON.stringify` of a deep value or a
//! chain of proxies could exhaust a browser worker's native stack long
//! before QuickJS's own check fired, and kill the grader mid-call.
//!
//! This pass rewrites the grader's module so that every C function lowers
//! `__stack_pointer` on entry by an estimate of the native frame the host
//! gives it, and raises it again on every way out. QuickJS's check then
//! sees the native frames too, and fires at the same depth on every host:
//! the engine's stack budget (`engine::limits`) is set below what the
//! smallest host, a Chromium Web Worker, offers.
//!
//! The estimate is V8's baseline compiler's layout: one 8-byte slot for
//! each parameter and local (16 for a vector), plus a fixed part for the
//! frame's header and the values a call spills.

use std::collections::HashSet;
use std::path::Path;

use walrus::ir::{BinaryOp, Br, Instr, InstrLocId, InstrSeq, InstrSeqId, InstrSeqType, Value, VisitorMut};
use walrus::{FunctionId, GlobalId, LocalFunction, Module, ValType};

/// The fixed part of every frame: return address, frame pointer, the
/// instance, spilled operands around calls.
const FRAME_FIXED_BYTES: u32 = 64;
/// Each parameter's and local's slot.
const SLOT_BYTES: u32 = 8;

/// What the pass did, for the build's log.
pub struct Instrumented {
    pub functions: usize,
    pub weight_max: u32,
}

/// Rewrites `input` into `output`. `probe` names a function
/// `fn(stack_pointer: i32)` to call after each lowering (for measuring the
/// depth at which a host's stack runs out); None in every real build.
pub fn instrument(input: &Path, output: &Path, probe: Option<&str>) -> Result<Instrumented, String> {
    let mut module = Module::from_file(input).map_err(|error| format!("cannot read {}: {error}", input.display()))?;
    let stack_pointer = stack_pointer(&module)?;
    let probe = match probe {
        Some(name) => Some(
            module
                .funcs
                .by_name(name)
                .ok_or_else(|| format!("{}: no function named {name} to probe with", input.display()))?,
        ),
        None => None,
    };
    let mut count = 0;
    let mut weight_max = 0;
    let ids: Vec<FunctionId> = module.funcs.iter_local().map(|(id, _)| id).collect();
    for id in ids {
        let function = module.funcs.get(id);
        if !is_c_function(function.name.as_deref()) || Some(id) == probe {
            continue;
        }
        let walrus::FunctionKind::Local(local) = &function.kind else { continue };
        if is_leaf(local) {
            continue;
        }
        let walrus::FunctionKind::Local(local) = &module.funcs.get(id).kind else { continue };
        let weight = frame_weight(local, &module.locals);
        let results = module.types.get(local.ty()).results().to_vec();
        let body_type = match results.as_slice() {
            [] => InstrSeqType::Simple(None),
            [one] => InstrSeqType::Simple(Some(*one)),
            more => InstrSeqType::MultiValue(module.types.add(&[], more)),
        };
        let walrus::FunctionKind::Local(local) = &mut module.funcs.get_mut(id).kind else { continue };
        if wrap_body(local, body_type, stack_pointer, weight, probe)? {
            count += 1;
            weight_max = weight_max.max(weight);
        }
    }
    module.emit_wasm_file(output).map_err(|error| format!("cannot write {}: {error}", output.display()))?;
    Ok(Instrumented { functions: count, weight_max })
}

fn stack_pointer(module: &Module) -> Result<GlobalId, String> {
    module
        .globals
        .iter()
        .find(|global| global.name.as_deref() == Some("__stack_pointer"))
        .map(|global| global.id())
        .ok_or_else(|| "the module has no global named __stack_pointer (was its name section stripped?)".to_string())
}

/// C functions have plain names; Rust's are mangled (`_ZN…`, `_R…`), and
/// the toolchain's own start with `__`. Rust code never recurses as deep as
/// a learner's program can make QuickJS recurse, so it is left as it is.
fn is_c_function(name: Option<&str>) -> bool {
    match name {
        Some(name) => !(name.starts_with("_ZN") || name.starts_with("_R") || name.starts_with("__")),
        None => false,
    }
}

/// The native frame V8's baseline compiler gives this function, estimated.
fn frame_weight(function: &LocalFunction, locals: &walrus::ModuleLocals) -> u32 {
    struct Locals(HashSet<walrus::LocalId>);
    impl<'instr> walrus::ir::Visitor<'instr> for Locals {
        fn visit_local_id(&mut self, id: &walrus::LocalId) {
            self.0.insert(*id);
        }
    }
    let mut used = Locals(function.args.iter().copied().collect());
    walrus::ir::dfs_in_order(&mut used, function, function.entry_block());
    let slots: u32 = used.0.iter().map(|&id| if locals.get(id).ty() == ValType::V128 { 2 } else { 1 }).sum();
    // A multiple of 16: C code relies on the stack pointer's alignment.
    (FRAME_FIXED_BYTES + SLOT_BYTES * slots).next_multiple_of(16)
}

/// `body` becomes `sp -= weight; block $inner body end; sp += weight`, every
/// `return` and every branch out of the body now a branch out of `$inner`.
/// False (and nothing changed) for a body this pass cannot wrap.
fn wrap_body(
    function: &mut LocalFunction,
    ty: InstrSeqType,
    stack_pointer: GlobalId,
    weight: u32,
    probe: Option<FunctionId>,
) -> Result<bool, String> {
    let entry = function.entry_block();
    if has_tail_call(function) {
        return Ok(false);
    }
    let inner = function.builder_mut().dangling_instr_seq(ty).id();
    let body = std::mem::take(&mut function.block_mut(entry).instrs);
    function.block_mut(inner).instrs = body;
    struct Retarget {
        entry: InstrSeqId,
        inner: InstrSeqId,
    }
    impl VisitorMut for Retarget {
        fn visit_instr_mut(&mut self, instr: &mut Instr, _: &mut InstrLocId) {
            if let Instr::Return(_) = instr {
                *instr = Instr::Br(Br { block: self.inner });
            }
        }
        fn visit_instr_seq_id_mut(&mut self, id: &mut InstrSeqId) {
            if *id == self.entry {
                *id = self.inner;
            }
        }
    }
    walrus::ir::dfs_pre_order_mut(&mut Retarget { entry, inner }, function, inner);
    let adjust = |op: BinaryOp| -> [Instr; 4] {
        [
            Instr::GlobalGet(walrus::ir::GlobalGet { global: stack_pointer }),
            Instr::Const(walrus::ir::Const { value: Value::I32(weight as i32) }),
            Instr::Binop(walrus::ir::Binop { op }),
            Instr::GlobalSet(walrus::ir::GlobalSet { global: stack_pointer }),
        ]
    };
    let mut wrapped: Vec<Instr> = adjust(BinaryOp::I32Sub).into();
    if let Some(probe) = probe {
        wrapped.push(Instr::GlobalGet(walrus::ir::GlobalGet { global: stack_pointer }));
        wrapped.push(Instr::Call(walrus::ir::Call { func: probe }));
    }
    wrapped.push(Instr::Block(walrus::ir::Block { seq: inner }));
    wrapped.extend(adjust(BinaryOp::I32Add));
    let entry_seq: &mut InstrSeq = function.block_mut(entry);
    entry_seq.instrs = wrapped.into_iter().map(|instr| (instr, InstrLocId::default())).collect();
    Ok(true)
}

/// Whether the function has an instruction `matches` picks.
fn has_instr(function: &LocalFunction, matches: fn(&Instr) -> bool) -> bool {
    struct Find {
        matches: fn(&Instr) -> bool,
        found: bool,
    }
    impl<'instr> walrus::ir::Visitor<'instr> for Find {
        fn visit_instr(&mut self, instr: &'instr Instr, _: &'instr InstrLocId) {
            self.found |= (self.matches)(instr);
        }
    }
    let mut find = Find { matches, found: false };
    walrus::ir::dfs_in_order(&mut find, function, function.entry_block());
    find.found
}

fn has_tail_call(function: &LocalFunction) -> bool {
    has_instr(function, |instr| {
        matches!(instr, Instr::ReturnCall(_) | Instr::ReturnCallIndirect(_) | Instr::ReturnCallRef(_))
    })
}

/// A function that calls nothing cannot be part of a recursion: its frame
/// is the last on the stack and is gone when it returns. The budget's
/// margin covers one such frame, so it is not weighed (most calls are to
/// small leaves, which would pay for the bookkeeping most).
fn is_leaf(function: &LocalFunction) -> bool {
    !has_instr(function, |instr| matches!(instr, Instr::Call(_) | Instr::CallIndirect(_) | Instr::CallRef(_)))
}
