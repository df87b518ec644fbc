//! A model call's stream read on a task of its own, so that reading and decoding the provider's
//! answer runs beside shaping and recording its events instead of taking turns with them on one
//! thread (decoding was half of the turn's thread while an answer streamed).
//!
//! The task reads ahead into a queue the turn empties in one go; it never waits for the turn
//! unless the queue is full. The stream's own `next` is always awaited to the end (never dropped
//! half-way, which could abort a request being sent and send it again), and the turn checks the
//! cancel before each item it takes, so no item is handed out after the call's cancel returned,
//! as with the stream itself. Dropping the reader stops the task, which closes the connection.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tessera_providers::cancel_flag::CancelFlag;
use tessera_providers::stream::StreamItem;
use tessera_providers::{ProviderError, ResponseStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::sync::lock;

/// Items read ahead at most: beyond it the task waits for the turn (memory stays bounded when
/// the provider outpaces the store).
const MAX_AHEAD: usize = 4096;

type Item = Option<Result<StreamItem, ProviderError>>;

#[derive(Default)]
struct Shared {
    queue: Mutex<VecDeque<Item>>,
    /// The task put items in the queue.
    filled: Notify,
    /// The turn took items out.
    emptied: Notify,
}

pub(super) struct ReadAhead {
    shared: Arc<Shared>,
    /// Taken from the queue, handed out one by one.
    taken: VecDeque<Item>,
    cancel: CancelFlag,
    ended: bool,
    task: Option<JoinHandle<ResponseStream>>,
}

impl ReadAhead {
    /// Starts reading `stream` (from provider `provider`) on a task of its own.
    pub(super) fn start(
        mut stream: ResponseStream,
        cancel: CancellationToken,
        provider: &str,
    ) -> Self {
        let shared = Arc::new(Shared::default());
        let task = tokio::spawn({
            let shared = Arc::clone(&shared);
            let guard = PanicGuard {
                shared: Arc::clone(&shared),
                provider: provider.to_owned(),
            };
            async move {
                let _guard = guard;
                loop {
                    let item = stream.next().await;
                    let last = !matches!(item, Some(Ok(_)));
                    let full = {
                        let mut queue = lock(&shared.queue);
                        queue.push_back(item);
                        queue.len() >= MAX_AHEAD
                    };
                    shared.filled.notify_one();
                    if last {
                        break;
                    }
                    if full {
                        wait_for_room(&shared).await;
                    }
                }
                stream
            }
        });
        Self {
            shared,
            taken: VecDeque::new(),
            cancel: CancelFlag::new(cancel),
            ended: false,
            task: Some(task),
        }
    }

    /// The next item, an error (after which the stream ends), or None at the end, as
    /// [`ResponseStream::next`] gives them. Cancel-safe: dropping the wait loses nothing.
    pub(super) async fn next(&mut self) -> Option<Result<StreamItem, ProviderError>> {
        loop {
            if self.ended {
                return None;
            }
            if self.cancel.is_cancelled() {
                self.ended = true;
                self.taken.clear();
                return Some(Err(ProviderError::Cancelled));
            }
            if let Some(item) = self.taken.pop_front() {
                if !matches!(item, Some(Ok(_))) {
                    self.ended = true;
                }
                return item;
            }
            let was_full = {
                let mut queue = lock(&self.shared.queue);
                let was_full = queue.len() >= MAX_AHEAD;
                std::mem::swap(&mut *queue, &mut self.taken);
                was_full
            };
            if was_full {
                self.shared.emptied.notify_one();
            }
            if self.taken.is_empty() {
                // A fill between the look and here left a permit: no wake-up is lost.
                tokio::select! {
                    biased;
                    () = self.shared.filled.notified() => {}
                    () = self.cancel.cancelled() => {}
                }
            }
        }
    }

    /// The stream back once it has ended (for its figures), or None if its task failed. Call
    /// it after [`ReadAhead::next`] gave an error or the end.
    pub(super) async fn finish(mut self) -> Option<ResponseStream> {
        let task = self.task.take()?;
        // After a cancel, items read meanwhile are not wanted, and the task may wait for room
        // to put the stream's last word (the cancel) in.
        lock(&self.shared.queue).clear();
        self.shared.emptied.notify_one();
        task.await.ok()
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Ends the queue with an error if the task panics (a bug in decoding an answer), so that the
/// turn ends with it instead of waiting for items that never come.
struct PanicGuard {
    shared: Arc<Shared>,
    provider: String,
}

impl Drop for PanicGuard {
    fn drop(&mut self) {
        if std::thread::panicking() {
            lock(&self.shared.queue).push_back(Some(Err(ProviderError::Decode {
                provider: std::mem::take(&mut self.provider),
                message: "reading the answer failed unexpectedly".into(),
            })));
            self.shared.filled.notify_one();
        }
    }
}

/// Waits until the turn has emptied the queue below [`MAX_AHEAD`].
async fn wait_for_room(shared: &Shared) {
    loop {
        let emptied = shared.emptied.notified();
        tokio::pin!(emptied);
        // Registered before the look, so an emptying between the two is not missed.
        emptied.as_mut().enable();
        if lock(&shared.queue).len() < MAX_AHEAD {
            return;
        }
        emptied.await;
    }
}
