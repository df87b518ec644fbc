//! Serving HTTP/1.1 on a port anyone on the machine can reach, within limits: `tessera serve`
//! and the local-model worker both serve through [`serve`] (issue 48).
//!
//! - A connection must finish a request's headers within [`Limits::header_timeout`] of waiting
//!   for one (its first, or the next on a kept-alive connection): a client that sends half a
//!   request, or nothing, is closed then. A response being sent (an event stream between
//!   events) is not waiting for headers, and is never cut.
//! - At most [`Limits::max_connections`] are open at once, sized from the descriptor limit
//!   (raised to the hard limit first, [`raise_descriptor_limit`]) less what the process needs
//!   for its own files. A connection past the cap takes the place of the one idle longest (no
//!   request in progress); when every one is busy it is closed at once. Connections given up
//!   but not yet closed count too (a quarter more at most), so a burst of them never runs the
//!   process out of descriptors. Idle connections, however many, never starve `/healthz` nor
//!   the process's own files.
//!
//! HTTP/1.1 only: browsers speak it to a plain `http://` address, and every limit above is
//! HTTP/1's.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};

/// How long a connection may take to send a request's headers, or stay idle between requests.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The limits one server keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub header_timeout: Duration,
    pub max_connections: usize,
}

impl Limits {
    /// Raises the soft descriptor limit to the hard one, then allows as many connections as it
    /// leaves beside `reserved` descriptors for the process's own work (at least half of it
    /// stays reserved), and never more than `most`.
    pub fn for_this_process(reserved: u64, most: usize) -> Self {
        let soft = match raise_descriptor_limit() {
            Ok(soft) => soft,
            Err(err) => {
                tracing::warn!("cannot read the open-files limit: {err}");
                1024
            }
        };
        Self {
            header_timeout: HEADER_TIMEOUT,
            max_connections: connection_cap(soft, reserved, most),
        }
    }
}

/// Connections allowed under a soft descriptor limit of `soft` with `reserved` kept.
pub fn connection_cap(soft: u64, reserved: u64, most: usize) -> usize {
    let room = soft.saturating_sub(reserved).min(soft / 2);
    usize::try_from(room)
        .unwrap_or(usize::MAX)
        .clamp(1, most.max(1))
}

/// Raises the soft limit on open descriptors to the hard limit (the usual soft 1,024 is a
/// few hundred idle connections); returns the soft limit now in force.
#[allow(unsafe_code)]
pub fn raise_descriptor_limit() -> std::io::Result<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a writable rlimit the call fills in; nothing else is read or kept.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: `raised` is a valid rlimit, only read by the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return Ok(raised.rlim_cur);
        }
        tracing::debug!(
            "cannot raise the open-files limit: {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(limit.rlim_cur)
}

/// Serves each connection `listener` accepts with the service `make` builds for it, within
/// `limits`, until `shutdown` completes; then stops accepting, lets the requests in progress
/// finish and returns.
pub async fn serve<M, S, B, F>(
    listener: TcpListener,
    limits: Limits,
    mut make: M,
    shutdown: F,
) -> std::io::Result<()>
where
    M: FnMut(&TcpStream) -> S,
    S: tower_service::Service<Request<Incoming>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Body + Unpin + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    F: Future<Output = ()> + Send,
{
    let table = Arc::new(Table::default());
    // A connection given up for a newer one holds its descriptor until its task has run: the
    // permits bound those too, so a burst of connections never runs the process out.
    let permits = Arc::new(tokio::sync::Semaphore::new(
        limits.max_connections + limits.max_connections / 4 + 1,
    ));
    let stopping = tokio_util::sync::CancellationToken::new();
    // Each connection holds a receiver: when none is left, every connection has ended.
    let (all_done, done) = watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit,
            () = &mut shutdown => break,
        };
        let Ok(permit) = permit else { break };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // One client's connection that went before it was taken: nothing to wait for.
            Err(err)
                if matches!(
                    err.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) =>
            {
                continue
            }
            Err(err) => {
                // Out of descriptors, with the cap below the limit, means the process's own
                // files took them: wait for some to close rather than spin.
                tracing::warn!("cannot accept a connection: {err}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some((id, evicted)) = table.admit(limits.max_connections) else {
            tracing::debug!("every connection is busy: one more was closed");
            continue;
        };
        let service = Tracked {
            inner: make(&stream),
            table: table.clone(),
            id,
        };
        let stopping = stopping.clone();
        let done = done.clone();
        let table = table.clone();
        tokio::spawn(async move {
            {
                let mut builder = hyper::server::conn::http1::Builder::new();
                builder
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.header_timeout)
                    .keep_alive(true);
                let conn = builder.serve_connection(TokioIo::new(stream), service);
                let mut conn = std::pin::pin!(conn);
                let mut evicted = std::pin::pin!(evicted);
                let mut closing = false;
                loop {
                    tokio::select! {
                        result = conn.as_mut() => {
                            if let Err(err) = result {
                                tracing::debug!("connection ended: {err}");
                            }
                            break;
                        }
                        // Idle, and its place given to a newer one: dropping it closes it.
                        _ = &mut evicted => break,
                        () = stopping.cancelled(), if !closing => {
                            closing = true;
                            conn.as_mut().graceful_shutdown();
                        }
                    }
                }
            }
            table.leave(id);
            drop(permit);
            drop(done);
        });
    }
    drop(listener);
    stopping.cancel();
    drop(done);
    all_done.closed().await;
    Ok(())
}

/// The open connections, and which of them are between requests.
#[derive(Default)]
struct Table {
    slots: Mutex<HashMap<u64, Slot>>,
    next: AtomicU64,
    warned: AtomicBool,
}

struct Slot {
    /// Requests in progress (received, their response not yet all sent).
    busy: usize,
    idle_since: Instant,
    evict: Option<oneshot::Sender<()>>,
}

impl Table {
    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a new connection, made by closing the one idle longest when all `cap` are
    /// taken; None when every one is busy.
    fn admit(&self, cap: usize) -> Option<(u64, oneshot::Receiver<()>)> {
        let mut slots = self.slots();
        if slots.len() >= cap {
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    cap,
                    "the connection cap is reached: the connections idle longest are closed to make room"
                );
            }
            let oldest = slots
                .iter()
                .filter(|(_, slot)| slot.busy == 0)
                .min_by_key(|(_, slot)| slot.idle_since)
                .map(|(id, _)| *id)?;
            if let Some(evict) = slots.remove(&oldest).and_then(|mut slot| slot.evict.take()) {
                let _ = evict.send(());
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (evict, evicted) = oneshot::channel();
        slots.insert(
            id,
            Slot {
                busy: 0,
                idle_since: Instant::now(),
                evict: Some(evict),
            },
        );
        Some((id, evicted))
    }

    fn leave(&self, id: u64) {
        self.slots().remove(&id);
    }

    fn busy(&self, id: u64, by: isize) {
        if let Some(slot) = self.slots().get_mut(&id) {
            slot.busy = slot.busy.saturating_add_signed(by);
            if slot.busy == 0 {
                slot.idle_since = Instant::now();
            }
        }
    }
}

/// A request in progress on connection `id`, until its response is all sent (or dropped).
struct Busy {
    table: Arc<Table>,
    id: u64,
}

impl Busy {
    fn new(table: Arc<Table>, id: u64) -> Self {
        table.busy(id, 1);
        Self { table, id }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.table.busy(self.id, -1);
    }
}

/// The connection's service, marking it busy from a request's headers to its response's end.
#[derive(Clone)]
struct Tracked<S> {
    inner: S,
    table: Arc<Table>,
    id: u64,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> hyper::service::Service<Request<Incoming>> for Tracked<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Body + Unpin + Send + 'static,
{
    type Response = Response<TrackedBody<B>>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let busy = Busy::new(self.table.clone(), self.id);
        let mut inner = self.inner.clone();
        Box::pin(async move {
            futures_util::future::poll_fn(|cx| inner.poll_ready(cx)).await?;
            let response = inner.call(request).await?;
            Ok(response.map(|body| TrackedBody { body, _busy: busy }))
        })
    }
}

/// A response body that keeps its connection marked busy until it is all sent.
pub struct TrackedBody<B> {
    body: B,
    _busy: Busy,
}

impl<B: Body + Unpin> Body for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_cap_leaves_the_reserve_and_half_the_limit() {
        assert_eq!(connection_cap(1024, 256, 1024), 512);
        assert_eq!(connection_cap(300, 256, 1024), 44);
        assert_eq!(connection_cap(65_536, 256, 1024), 1024);
        assert_eq!(connection_cap(100, 256, 1024), 1, "never none");
    }

    #[test]
    fn a_new_connection_takes_the_place_of_the_one_idle_longest() {
        let table = Table::default();
        let (first, mut first_gone) = table.admit(2).unwrap();
        let (_, mut second_gone) = table.admit(2).unwrap();
        table.busy(first, 1);
        let (third, _) = table.admit(2).unwrap();
        assert!(first_gone.try_recv().is_err(), "a busy connection stays");
        assert!(second_gone.try_recv().is_ok(), "the idle one made room");
        table.busy(first, -1);
        table.busy(third, 1);
        let (fourth, _) = table.admit(2).unwrap();
        assert!(first_gone.try_recv().is_ok(), "idle again, it goes next");
        table.busy(fourth, 1);
        assert!(table.admit(2).is_none(), "every one busy: no room");
    }
}
