//! A call's cancel, seen per delta with one atomic load instead of the token's lock.
//!
//! The token's `cancelled` future is polled with a waker of this module's own. The token wakes
//! its waiters from inside `cancel()`, so that waker raises a flag before `cancel()` returns,
//! then wakes whatever task waits on the stream. A stream therefore never hands out an item
//! after its cancel returned, as with a check of the token per item, but without the mutex
//! the token takes for every check.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

pub struct CancelFlag {
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    shared: Arc<Shared>,
    /// The token's future was polled with `shared` as its waker (and was not ready).
    armed: bool,
    /// Seen cancelled once: it stays so.
    seen: bool,
}

#[derive(Default)]
struct Shared {
    /// The token woke us: its future is to be looked at again.
    woken: AtomicBool,
    /// The task waiting on the stream.
    task: AtomicWaker,
}

impl Wake for Shared {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl CancelFlag {
    pub fn new(token: CancellationToken) -> Self {
        Self {
            cancelled: Box::pin(token.cancelled_owned()),
            shared: Arc::default(),
            armed: false,
            seen: false,
        }
    }

    /// Whether the call was cancelled: one atomic load once armed (the first call arms it).
    pub fn is_cancelled(&mut self) -> bool {
        if self.seen {
            return true;
        }
        if self.armed && !self.shared.woken.swap(false, Ordering::Acquire) {
            return false;
        }
        // Not armed yet, or woken (by the cancel, or spuriously): ask the token's future,
        // which registers our waker again if it is not done.
        let waker = Waker::from(Arc::clone(&self.shared));
        let mut cx = Context::from_waker(&waker);
        self.armed = true;
        self.seen = self.cancelled.as_mut().poll(&mut cx).is_ready();
        self.seen
    }

    /// Ready once cancelled; otherwise `cx`'s task is woken when it is.
    pub fn poll_cancelled(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        // Registered before the check, so a cancel between the two is not missed.
        self.shared.task.register(cx.waker());
        if self.is_cancelled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// Waits until cancelled.
    pub async fn cancelled(&mut self) {
        std::future::poll_fn(|cx| self.poll_cancelled(cx)).await;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_cancel_is_seen_as_soon_as_it_returns_and_stays_seen() {
        let token = CancellationToken::new();
        let mut flag = CancelFlag::new(token.clone());
        assert!(!flag.is_cancelled());
        assert!(!flag.is_cancelled());
        token.cancel();
        assert!(flag.is_cancelled());
        assert!(flag.is_cancelled());
    }

    #[test]
    fn a_token_cancelled_before_the_first_look_is_seen() {
        let token = CancellationToken::new();
        token.cancel();
        assert!(CancelFlag::new(token).is_cancelled());
    }

    #[test]
    fn a_parent_token_cancelled_is_seen_through_its_child() {
        let parent = CancellationToken::new();
        let mut flag = CancelFlag::new(parent.child_token());
        assert!(!flag.is_cancelled());
        parent.cancel();
        assert!(flag.is_cancelled());
    }

    #[tokio::test]
    async fn a_waiting_task_is_woken_by_the_cancel() {
        let token = CancellationToken::new();
        let mut flag = CancelFlag::new(token.clone());
        assert!(!flag.is_cancelled());
        let waiter = tokio::spawn(async move {
            flag.cancelled().await;
            flag.is_cancelled()
        });
        tokio::task::yield_now().await;
        token.cancel();
        assert!(
            tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
                .await
                .unwrap()
                .unwrap()
        );
    }
}
