//! Waiting on a future without polling it on every wait.
//!
//! A stream waits, per delta, on its events and also on its cancel and its timer. Polling
//! those two each time registers the waiting task with each (an atomic compare-and-swap, a
//! waker compared or cloned) although neither has changed since the last wait. Here the future
//! is polled with a waker of this module's own, which raises a flag and wakes the task: until
//! the flag is raised, the future has nothing new to say, and a wait is one atomic load. The
//! task's waker is registered again only when another task waits, or after a wake took it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;

pub struct WakeFlag {
    shared: Arc<Shared>,
    /// The future was polled with `shared` as its waker since it last changed.
    armed: bool,
    /// The task registered in `shared.task`, while no wake has taken it.
    registered: Option<Waker>,
}

#[derive(Default)]
struct Shared {
    /// The future woke us: it is to be polled again.
    woken: AtomicBool,
    /// The task waiting on it.
    task: AtomicWaker,
}

impl Wake for Shared {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // The task's waker is taken before the flag is raised: a task that sees the flag looks
        // again and registers anew after the take, and one that does not is woken by it. Taken
        // after, it could take a registration made since (the task saw the flag, polled, and
        // registered), leaving none for the next wake.
        let task = self.task.take();
        self.woken.store(true, Ordering::Release);
        if let Some(task) = task {
            task.wake();
        }
    }
}

impl Default for WakeFlag {
    fn default() -> Self {
        Self::new()
    }
}

impl WakeFlag {
    pub fn new() -> Self {
        Self {
            shared: Arc::default(),
            armed: false,
            registered: None,
        }
    }

    /// `future`'s output if it is ready; it is polled only when it woke us since its last poll
    /// (or was never polled, or changed). No task is woken when it becomes ready: see `poll`.
    #[inline]
    pub fn check<F: Future + ?Sized>(&mut self, future: Pin<&mut F>) -> Poll<F::Output> {
        if self.armed && !self.shared.woken.load(Ordering::Acquire) {
            return Poll::Pending;
        }
        self.look(future)
    }

    fn look<F: Future + ?Sized>(&mut self, future: Pin<&mut F>) -> Poll<F::Output> {
        self.shared.woken.store(false, Ordering::Release);
        // A wake that takes the task's waker comes with the flag: register it again.
        self.registered = None;
        self.armed = true;
        let waker = Waker::from(Arc::clone(&self.shared));
        future.poll(&mut Context::from_waker(&waker))
    }

    /// As `check`, and `cx`'s task is woken when `future` has something new.
    #[inline]
    pub fn poll<F: Future + ?Sized>(
        &mut self,
        future: Pin<&mut F>,
        cx: &mut Context<'_>,
    ) -> Poll<F::Output> {
        // The usual wait: this task is registered (no wake has taken it since: a wake raises the
        // flag, and a look forgets the registration) and nothing woke us.
        if self.armed
            && !self.shared.woken.load(Ordering::Acquire)
            && self
                .registered
                .as_ref()
                .is_some_and(|w| w.will_wake(cx.waker()))
        {
            return Poll::Pending;
        }
        self.poll_again(future, cx)
    }

    fn poll_again<F: Future + ?Sized>(
        &mut self,
        future: Pin<&mut F>,
        cx: &mut Context<'_>,
    ) -> Poll<F::Output> {
        if self.armed && !self.shared.woken.load(Ordering::Acquire) {
            // Another task waits, and nothing woke us: it takes the registration. A wake since
            // the load took the waker before it (or this one) and raised the flag: look then.
            self.register(cx);
            if !self.shared.woken.load(Ordering::Acquire) {
                return Poll::Pending;
            }
        }
        // A look. The flag is lowered, then the task registered, then the future polled: a wake
        // before the registration is seen by this poll of the future, one after it finds the
        // task. (A wake takes the waker it finds: a registration kept from before the wake that
        // raised the flag is gone, whatever `registered` says.)
        self.shared.woken.store(false, Ordering::Release);
        self.register(cx);
        self.armed = true;
        let waker = Waker::from(Arc::clone(&self.shared));
        future.poll(&mut Context::from_waker(&waker))
    }

    /// The future was replaced or changed (a timer reset): the next look polls it.
    pub fn disarm(&mut self) {
        self.armed = false;
    }

    fn register(&mut self, cx: &Context<'_>) {
        self.shared.task.register(cx.waker());
        if !self
            .registered
            .as_ref()
            .is_some_and(|w| w.will_wake(cx.waker()))
        {
            self.registered = Some(cx.waker().clone());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_timer_looked_at_through_the_flag_wakes_its_task_and_fires_once_reset() {
        let mut flag = WakeFlag::new();
        let mut timer = Box::pin(tokio::time::sleep(Duration::from_millis(30)));
        let started = tokio::time::Instant::now();
        std::future::poll_fn(|cx| flag.poll(timer.as_mut(), cx)).await;
        assert!(started.elapsed() >= Duration::from_millis(30));
        // Reset: not ready until the new deadline, and the task is woken then.
        timer
            .as_mut()
            .reset(tokio::time::Instant::now() + Duration::from_millis(30));
        flag.disarm();
        let reset = tokio::time::Instant::now();
        std::future::poll_fn(|cx| flag.poll(timer.as_mut(), cx)).await;
        assert!(reset.elapsed() >= Duration::from_millis(30));
    }

    #[tokio::test]
    async fn a_future_not_woken_is_not_polled_again() {
        struct Counted(usize);
        impl Future for Counted {
            type Output = ();
            fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
                self.0 += 1;
                Poll::Pending
            }
        }
        let mut flag = WakeFlag::new();
        let mut future = Counted(0);
        for _ in 0..5 {
            assert!(flag.check(Pin::new(&mut future)).is_pending());
        }
        assert_eq!(future.0, 1);
        flag.disarm();
        assert!(flag.check(Pin::new(&mut future)).is_pending());
        assert_eq!(future.0, 2);
    }

    /// A waker counting its wakes.
    struct Counter(std::sync::atomic::AtomicUsize);
    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_wake_while_the_future_is_looked_at_after_another_wake_finds_the_task() {
        // The future wakes whoever polled it from inside its second poll: a timer firing on
        // another thread just as it is looked at, after a wake that took the task's waker.
        struct WakesWhenPolled {
            polls: usize,
            waker: Option<Waker>,
        }
        impl Future for WakesWhenPolled {
            type Output = ();
            fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
                self.polls += 1;
                self.waker = Some(cx.waker().clone());
                if self.polls == 2 {
                    cx.waker().wake_by_ref();
                }
                Poll::Pending
            }
        }
        let counter = Arc::new(Counter(std::sync::atomic::AtomicUsize::new(0)));
        let task = Waker::from(Arc::clone(&counter));
        let mut cx = Context::from_waker(&task);
        let mut flag = WakeFlag::new();
        let mut future = WakesWhenPolled {
            polls: 0,
            waker: None,
        };
        assert!(flag.poll(Pin::new(&mut future), &mut cx).is_pending());
        // A wake with nothing behind it takes the task's waker.
        future.waker.clone().unwrap().wake();
        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        // The task looks again; the future wakes during that look: the task is woken again.
        assert!(flag.poll(Pin::new(&mut future), &mut cx).is_pending());
        assert_eq!(future.polls, 2);
        assert_eq!(
            counter.0.load(Ordering::SeqCst),
            2,
            "the second wake was lost"
        );
    }

    #[tokio::test]
    async fn another_task_waiting_is_the_one_woken() {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let mut rx = Box::pin(rx);
        let mut flag = WakeFlag::new();
        // A first task looks, then goes away.
        let first = futures_util::task::noop_waker();
        assert!(flag
            .poll(rx.as_mut(), &mut Context::from_waker(&first))
            .is_pending());
        let waiter = tokio::spawn(async move {
            std::future::poll_fn(|cx| flag.poll(rx.as_mut(), cx))
                .await
                .is_ok()
        });
        tokio::task::yield_now().await;
        tx.send(()).unwrap();
        assert!(tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .unwrap()
            .unwrap());
    }
}
