//! A call's cancel, seen per delta with one atomic load instead of the token's lock.
//!
//! The token's `cancelled` future is looked at through a [`WakeFlag`]: polled with a waker of
//! that module's own, which the token calls from inside `cancel()`, so the flag is raised before
//! `cancel()` returns, then whatever task waits on the stream is woken. A stream therefore never
//! hands out an item after its cancel returned, as with a check of the token per item, but
//! without the mutex the token takes for every check.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::wake_flag::WakeFlag;

pub struct CancelFlag {
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    flag: WakeFlag,
    /// Seen cancelled once: it stays so.
    seen: bool,
}

impl CancelFlag {
    pub fn new(token: CancellationToken) -> Self {
        Self {
            cancelled: Box::pin(token.cancelled_owned()),
            flag: WakeFlag::new(),
            seen: false,
        }
    }

    /// Whether the call was cancelled: one atomic load once armed (the first call arms it).
    #[inline]
    pub fn is_cancelled(&mut self) -> bool {
        if !self.seen {
            self.seen = self.flag.check(self.cancelled.as_mut()).is_ready();
        }
        self.seen
    }

    /// Ready once cancelled; otherwise `cx`'s task is woken when it is.
    #[inline]
    pub fn poll_cancelled(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if !self.seen {
            self.seen = self.flag.poll(self.cancelled.as_mut(), cx).is_ready();
        }
        if self.seen {
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
