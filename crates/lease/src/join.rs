//! Running several futures of one process at once, as `Promise.all` does.
//!
//! The simulation's executor polls a process only when one of its calls
//! completed. `join_all` polls every unfinished future, in order, on each
//! poll, so exactly the future whose reply arrived moves on; the others see
//! their calls still pending. That keeps concurrent code inside one process
//! deterministic, and the JavaScript runner gets the same order from
//! `Promise.all` over the same list.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A boxed future borrowing from its surroundings, for lists of mixed futures.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

enum Slot<F: Future> {
    Running(Pin<Box<F>>),
    Done(Option<F::Output>),
}

/// The future returned by [`join_all`].
pub struct JoinAll<F: Future> {
    slots: Vec<Slot<F>>,
}

// Outputs are moved out, never pinned, and each future is boxed, so the
// combinator itself may move.
impl<F: Future> Unpin for JoinAll<F> {}

/// Waits for every future and returns their outputs in the list's order.
pub fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> JoinAll<F> {
    JoinAll { slots: futures.into_iter().map(|future| Slot::Running(Box::pin(future))).collect() }
}

impl<F: Future> Future for JoinAll<F> {
    type Output = Vec<F::Output>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mut all_done = true;
        for slot in &mut this.slots {
            if let Slot::Running(future) = slot {
                match future.as_mut().poll(context) {
                    Poll::Ready(output) => *slot = Slot::Done(Some(output)),
                    Poll::Pending => all_done = false,
                }
            }
        }
        if !all_done {
            return Poll::Pending;
        }
        let outputs = this
            .slots
            .iter_mut()
            .map(|slot| match slot {
                Slot::Done(output) => output.take().expect("a joined output is taken once"),
                Slot::Running(_) => unreachable!("all futures are done"),
            })
            .collect();
        Poll::Ready(outputs)
    }
}

/// The future returned by [`until_done`].
pub struct UntilDone<'a, T> {
    main: LocalFuture<'a, T>,
    background: Option<LocalFuture<'a, ()>>,
}

/// Runs `main` with `background` beside it, and returns `main`'s output as
/// soon as `main` is done, dropping `background` wherever it is: a call it
/// was waiting for stays in flight, its reply unread, as with a JavaScript
/// promise nobody awaits. Polls `main` first, then `background`.
pub fn until_done<'a, T>(main: LocalFuture<'a, T>, background: LocalFuture<'a, ()>) -> UntilDone<'a, T> {
    UntilDone { main, background: Some(background) }
}

impl<T> Future for UntilDone<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        if let Poll::Ready(output) = this.main.as_mut().poll(context) {
            this.background = None;
            return Poll::Ready(output);
        }
        if let Some(background) = this.background.as_mut() {
            if background.as_mut().poll(context).is_ready() {
                this.background = None;
            }
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    /// Pending for `polls` polls, then ready with `value`.
    struct Countdown {
        polls: u32,
        value: u32,
    }

    impl Future for Countdown {
        type Output = u32;
        fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
            if self.polls == 0 {
                Poll::Ready(self.value)
            } else {
                self.polls -= 1;
                Poll::Pending
            }
        }
    }

    #[test]
    fn outputs_come_back_in_list_order_once_all_are_done() {
        let mut joined = join_all(vec![Countdown { polls: 2, value: 10 }, Countdown { polls: 0, value: 20 }]);
        let mut context = Context::from_waker(Waker::noop());
        assert_eq!(Pin::new(&mut joined).poll(&mut context), Poll::Pending);
        assert_eq!(Pin::new(&mut joined).poll(&mut context), Poll::Pending);
        assert_eq!(Pin::new(&mut joined).poll(&mut context), Poll::Ready(vec![10, 20]));
        let mut empty = join_all(Vec::<Countdown>::new());
        assert_eq!(Pin::new(&mut empty).poll(&mut context), Poll::Ready(vec![]));
    }
}
