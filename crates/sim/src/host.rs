//! Running Rust processes under the kernel: a tiny single-threaded executor.
//!
//! The reference solutions and the buggy variants are ordinary `async fn`s
//! against [`Ctx`], the same shape as the learner's JavaScript. Each store
//! call is a future that submits the call to the kernel on first poll and is
//! ready once the kernel has delivered its reply. The executor polls a
//! process only when one of its calls completed, exactly as the JavaScript
//! host resumes a promise, so both run the same schedule.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::call::{Call, Listed, Record, Reply, WatchEvent};
use crate::kernel::{Ending, Next, Sim};
use crate::plan::{process_name, ProcessIndex};
use crate::trace::{CallId, Note};

struct Shared {
    sim: Sim,
    /// Replies delivered but not yet picked up by their future.
    replies: HashMap<CallId, Reply>,
}

/// What a process's code is handed: its name, its clock, the store, sleep.
#[derive(Clone)]
pub struct Ctx {
    process: ProcessIndex,
    shared: Rc<RefCell<Shared>>,
}

/// A store call refused by the store (bad input or a limit).
pub type Refused = String;

impl Ctx {
    pub fn process(&self) -> ProcessIndex {
        self.process
    }

    /// "p1", "p2", ….
    pub fn name(&self) -> String {
        process_name(self.process)
    }

    /// This process's own clock, in ms.
    pub fn now(&self) -> u64 {
        self.shared.borrow().sim.local_now_ms(self.process)
    }

    /// Records a note in the trace (for checkers and the timeline).
    pub fn note(&self, note: Note) {
        // A note from a process that is no longer running is dropped on purpose.
        let _ = self.shared.borrow_mut().sim.note(self.process, note);
    }

    pub fn log(&self, text: impl Into<String>) {
        self.note(Note::Console { text: text.into() });
    }

    fn call(&self, request: Call) -> CallFuture {
        CallFuture { ctx: self.clone(), request: Some(request), id: None }
    }

    pub async fn get(&self, key: &str) -> Result<Option<Record>, Refused> {
        match self.call(Call::Get { key: key.into() }).await {
            Reply::Get { record } => Ok(record),
            other => Err(unexpected(other)),
        }
    }

    /// `compareAndSwap`: `Ok(Ok(version))` when written, `Ok(Err(current))` when not.
    pub async fn compare_and_swap(
        &self,
        key: &str,
        next_value: &str,
        current_value: Option<&str>,
        version: Option<u64>,
        ttl_ms: Option<u64>,
    ) -> Result<Result<u64, Option<Record>>, Refused> {
        let request = Call::Cas {
            key: key.into(),
            next_value: next_value.into(),
            current_value: current_value.map(str::to_string),
            version,
            ttl_ms,
        };
        match self.call(request).await {
            Reply::Cas { ok: true, version: Some(version), .. } => Ok(Ok(version)),
            Reply::Cas { ok: false, current, .. } => Ok(Err(current)),
            other => Err(unexpected(other)),
        }
    }

    pub async fn delete(&self, key: &str, version: Option<u64>) -> Result<bool, Refused> {
        match self.call(Call::Delete { key: key.into(), version }).await {
            Reply::Delete { ok } => Ok(ok),
            other => Err(unexpected(other)),
        }
    }

    pub async fn watch(&self, key: &str, after_version: u64) -> Result<WatchEvent, Refused> {
        match self.call(Call::Watch { key: key.into(), after_version }).await {
            Reply::Watch { event } => Ok(event),
            other => Err(unexpected(other)),
        }
    }

    /// `list(prefix)`: the store's version when it read, and every key under
    /// `prefix`, oldest (lowest create version) first.
    pub async fn list(&self, prefix: &str) -> Result<(u64, Vec<Listed>), Refused> {
        match self.call(Call::List { prefix: prefix.into() }).await {
            Reply::List { version, records } => Ok((version, records)),
            other => Err(unexpected(other)),
        }
    }

    /// Sleeps `ms` whole milliseconds of this process's clock. The
    /// JavaScript harness rounds a learner's fractional `ctx.sleep(ms)` up to
    /// the next whole millisecond before it reaches the kernel, so both hosts
    /// give the kernel the same whole numbers.
    pub async fn sleep(&self, ms: u64) {
        self.call(Call::Sleep { ms }).await;
    }
}

fn unexpected(reply: Reply) -> Refused {
    match reply {
        Reply::Refused { message } => message,
        other => format!("unexpected reply {other:?}"),
    }
}

struct CallFuture {
    ctx: Ctx,
    request: Option<Call>,
    id: Option<CallId>,
}

impl Future for CallFuture {
    type Output = Reply;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Reply> {
        let shared = self.ctx.shared.clone();
        let mut shared = shared.borrow_mut();
        match self.id {
            None => {
                let request = self.request.take().expect("a call is submitted once");
                // If the process is no longer running the call is refused and
                // the future stays pending: the process never resumes.
                if let Ok(id) = shared.sim.call(self.ctx.process, request) {
                    self.id = Some(id);
                }
                Poll::Pending
            }
            Some(id) => match shared.replies.remove(&id) {
                Some(reply) => Poll::Ready(reply),
                None => Poll::Pending,
            },
        }
    }
}

type ProcessFuture = Pin<Box<dyn Future<Output = ()>>>;

/// Runs a simulation with one future per process, built by `spawn`.
/// `check` runs after every step; returning true stops the run there
/// (with [`Ending::Stopped`]).
/// Returns how the run ended and the finished kernel (with its trace).
pub fn run_processes<F, Fut>(sim: Sim, mut spawn: F, mut check: impl FnMut(&Sim) -> bool) -> (Ending, Sim)
where
    F: FnMut(Ctx) -> Fut,
    Fut: Future<Output = ()> + 'static,
{
    let processes = sim.processes();
    let shared = Rc::new(RefCell::new(Shared { sim, replies: HashMap::new() }));
    let mut futures: Vec<Option<ProcessFuture>> = (0..processes)
        .map(|process| Some(Box::pin(spawn(Ctx { process, shared: shared.clone() })) as ProcessFuture))
        .collect();
    let mut context = Context::from_waker(Waker::noop());

    let mut poll = |futures: &mut Vec<Option<ProcessFuture>>, process: ProcessIndex| {
        let Some(future) = futures[process as usize].as_mut() else { return };
        if future.as_mut().poll(&mut context).is_ready() {
            futures[process as usize] = None;
            let _ = shared.borrow_mut().sim.finish(process);
        }
    };

    for process in 0..processes {
        poll(&mut futures, process);
    }
    let ending = loop {
        if check(&shared.borrow().sim) {
            shared.borrow_mut().sim.stop(Ending::Stopped);
        }
        let next = shared.borrow_mut().sim.next_step();
        match next {
            Next::Resume { process, call, reply } => {
                shared.borrow_mut().replies.insert(call, reply);
                poll(&mut futures, process);
            }
            Next::Crashed { process } => futures[process as usize] = None,
            Next::Done(ending) => break ending,
        }
    };
    drop(futures);
    let shared = Rc::try_unwrap(shared).ok().expect("no process future outlives the run").into_inner();
    (ending, shared.sim)
}
