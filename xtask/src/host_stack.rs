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

use std::collections::{HashMap, HashSet};
use std::path::Path;

use walrus::ir::{BinaryOp, Br, Instr, InstrLocId, InstrSeq, InstrSeqId, InstrSeqType, Value, VisitorMut};
use walrus::{FunctionId, GlobalId, LocalFunction, Module, ValType};

/// How far below the shadow stack's start a run may go before the module
/// traps: the engine's stack budget (`engine::limits::STACK_BYTES`, 384 KiB)
/// plus 64 KiB for the frames above QuickJS's own (the host's call into the
/// engine, the grader's loop). QuickJS's check fires first on every path
/// that has one; this catches a path that has none (`FLOOR_BYTES` is held to
/// the budget by a test in crates/engine). Every host reaches it at the
/// same depth, below any host's native stack (BENCHMARKS.md, "The stack budget").
pub const FLOOR_BYTES: u32 = 448 * 1024;

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
    let guard = match probe {
        Some(probe) => Guard::Probe(probe),
        None => Guard::Floor(initial_value(&module, stack_pointer)?.checked_sub(FLOOR_BYTES).ok_or_else(|| {
            format!(
                "{}: the shadow stack is smaller than the {FLOOR_BYTES} bytes the stack floor needs",
                input.display()
            )
        })?),
    };
    let mut count = 0;
    let mut weight_max = 0;
    let recursive = recursive_functions(&module);
    let ids: Vec<FunctionId> = module.funcs.iter_local().map(|(id, _)| id).collect();
    for id in ids {
        let function = module.funcs.get(id);
        if !is_c_function(function.name.as_deref()) || Some(id) == probe || !recursive.contains(&id) {
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
        if wrap_body(local, body_type, stack_pointer, weight, guard)? {
            count += 1;
            weight_max = weight_max.max(weight);
        }
    }
    module.emit_wasm_file(output).map_err(|error| format!("cannot write {}: {error}", output.display()))?;
    Ok(Instrumented { functions: count, weight_max })
}

/// What each weighed function does right after it lowers the stack pointer.
#[derive(Clone, Copy)]
enum Guard {
    /// Traps below this address: a deterministic end on every host, where
    /// a host's own stack would run out at a depth of its own.
    Floor(u32),
    /// Calls this function with the stack pointer (a probe build, which
    /// measures how deep hosts go: it has no floor).
    Probe(FunctionId),
}

/// A global's initial value: the shadow stack's start, for `__stack_pointer`.
fn initial_value(module: &Module, global: GlobalId) -> Result<u32, String> {
    match &module.globals.get(global).kind {
        walrus::GlobalKind::Local(walrus::ConstExpr::Value(Value::I32(value))) => Ok(*value as u32),
        _ => Err("__stack_pointer has no constant initial value".to_string()),
    }
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
    guard: Guard,
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
    match guard {
        Guard::Probe(probe) => {
            wrapped.push(Instr::GlobalGet(walrus::ir::GlobalGet { global: stack_pointer }));
            wrapped.push(Instr::Call(walrus::ir::Call { func: probe }));
        }
        Guard::Floor(floor) => {
            // block $above; sp >= floor; br_if $above; unreachable; end
            let above = function.builder_mut().dangling_instr_seq(InstrSeqType::Simple(None)).id();
            function.block_mut(above).instrs = [
                Instr::GlobalGet(walrus::ir::GlobalGet { global: stack_pointer }),
                Instr::Const(walrus::ir::Const { value: Value::I32(floor as i32) }),
                Instr::Binop(walrus::ir::Binop { op: BinaryOp::I32GeU }),
                Instr::BrIf(walrus::ir::BrIf { block: above }),
                Instr::Unreachable(walrus::ir::Unreachable {}),
            ]
            .into_iter()
            .map(|instr| (instr, InstrLocId::default()))
            .collect();
            wrapped.push(Instr::Block(walrus::ir::Block { seq: above }));
        }
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

/// The functions that can be part of a recursion: those on a cycle of the
/// call graph, where a call through the table may reach any function of
/// its type in the table. Only their frames can pile up without bound; any
/// other function appears at most once between two of theirs (at the
/// stack's top or bottom), which the budget's margin covers, so it is not
/// weighed (most calls go to small helpers, which would pay the most).
fn recursive_functions(module: &Module) -> HashSet<FunctionId> {
    let mut in_table: HashMap<walrus::TypeId, Vec<FunctionId>> = HashMap::new();
    for element in module.elements.iter() {
        let ids: Vec<FunctionId> = match &element.items {
            walrus::ElementItems::Functions(ids) => ids.clone(),
            walrus::ElementItems::Expressions(_, items) => items
                .iter()
                .filter_map(|item| match item {
                    walrus::ConstExpr::RefFunc(id) => Some(*id),
                    _ => None,
                })
                .collect(),
        };
        for id in ids {
            in_table.entry(module.funcs.get(id).ty()).or_default().push(id);
        }
    }
    let callees: HashMap<FunctionId, Vec<FunctionId>> = module
        .funcs
        .iter_local()
        .map(|(id, function)| {
            struct Calls<'a> {
                in_table: &'a HashMap<walrus::TypeId, Vec<FunctionId>>,
                found: Vec<FunctionId>,
            }
            impl<'instr> walrus::ir::Visitor<'instr> for Calls<'_> {
                fn visit_instr(&mut self, instr: &'instr Instr, _: &'instr InstrLocId) {
                    match instr {
                        Instr::Call(call) => self.found.push(call.func),
                        Instr::CallIndirect(call) => {
                            self.found.extend(self.in_table.get(&call.ty).into_iter().flatten().copied());
                        }
                        _ => {}
                    }
                }
            }
            let mut calls = Calls { in_table: &in_table, found: Vec::new() };
            walrus::ir::dfs_in_order(&mut calls, function, function.entry_block());
            (id, calls.found)
        })
        .collect();
    strongly_connected(&callees)
}

/// The nodes on a cycle of `edges`: in a strongly connected component of
/// more than one node, or calling themselves (Tarjan's algorithm, without
/// recursion: the graph has thousands of nodes).
fn strongly_connected(edges: &HashMap<FunctionId, Vec<FunctionId>>) -> HashSet<FunctionId> {
    let mut index_of: HashMap<FunctionId, usize> = HashMap::new();
    let mut low: HashMap<FunctionId, usize> = HashMap::new();
    let mut on_stack: HashSet<FunctionId> = HashSet::new();
    let mut stack: Vec<FunctionId> = Vec::new();
    let mut cyclic = HashSet::new();
    let none = Vec::new();
    let mut roots: Vec<FunctionId> = edges.keys().copied().collect();
    roots.sort_by_key(|id| id.index());
    for root in roots {
        if index_of.contains_key(&root) {
            continue;
        }
        // Each frame: the node and how many of its edges were followed.
        let mut work: Vec<(FunctionId, usize)> = vec![(root, 0)];
        while let Some(&mut (node, ref mut next)) = work.last_mut() {
            if *next == 0 && !index_of.contains_key(&node) {
                let index = index_of.len();
                index_of.insert(node, index);
                low.insert(node, index);
                stack.push(node);
                on_stack.insert(node);
            }
            let out = edges.get(&node).unwrap_or(&none);
            if let Some(&target) = out.get(*next) {
                *next += 1;
                if !index_of.contains_key(&target) {
                    work.push((target, 0));
                } else if on_stack.contains(&target) {
                    let lowest = low[&node].min(index_of[&target]);
                    low.insert(node, lowest);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                let lowest = low[&parent].min(low[&node]);
                low.insert(parent, lowest);
            }
            if low[&node] == index_of[&node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack.remove(&member);
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                if component.len() > 1 || out.contains(&node) {
                    cyclic.extend(component);
                }
            }
        }
    }
    cyclic
}
