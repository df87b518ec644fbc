//! The local-model worker as Tessera runs it: started on the first request for a model, one
//! model at a time, stopped after it has been idle for a while and when the runtime is dropped
//! (the app quits). A worker that dies (a crash in native code, `kill -9`, out of memory) is
//! noticed and said so, with the end of what it wrote; the next request starts it again.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

use crate::worker::Ready;

/// Lines of the worker's stderr kept, to say why it stopped.
const KEPT_LINES: usize = 20;

/// How to start workers.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    pub worker: PathBuf,
    /// Stop a worker nobody has asked anything of for this long.
    pub idle: Duration,
    /// Give up on a worker that has not said it is ready after this long (a big model from a
    /// slow disk takes a while).
    pub load_timeout: Duration,
    pub ctx: Option<u32>,
    pub threads: Option<u32>,
}

impl RuntimeOptions {
    pub fn new(worker: PathBuf) -> Self {
        Self {
            worker,
            idle: Duration::from_secs(10 * 60),
            load_timeout: Duration::from_secs(300),
            ctx: None,
            threads: None,
        }
    }
}

/// Where a running worker answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    pub token: String,
    /// The model name the worker answers to.
    pub model: String,
    pub n_ctx: u32,
    pub pid: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("cannot start the local-model worker {worker}: {source}")]
    Spawn {
        worker: PathBuf,
        source: std::io::Error,
    },
    #[error("the local model {model} stopped while loading ({status}): {said}")]
    LoadFailed {
        model: PathBuf,
        status: String,
        said: String,
    },
    #[error("the local model {model} was not ready after {seconds} s")]
    LoadTimeout { model: PathBuf, seconds: u64 },
}

/// The state a person can be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerState {
    NotRunning,
    Running {
        model: PathBuf,
        pid: u32,
        /// The context it was made with, in tokens.
        n_ctx: u32,
    },
    /// It stopped by itself: `status` (an exit code or a signal) and the end of its log.
    Died {
        model: PathBuf,
        status: String,
        said: String,
    },
}

struct Running {
    model: PathBuf,
    /// The context asked for when it started (None: the worker chose).
    asked_ctx: Option<u32>,
    endpoint: Endpoint,
    child: Child,
    /// Closed to ask the worker to stop.
    _input: ChildStdin,
    said: Arc<Mutex<VecDeque<String>>>,
}

struct Inner {
    running: Option<Running>,
    died: Option<WorkerState>,
    last_use: Instant,
}

/// One worker at a time, started on demand.
pub struct LocalRuntime {
    options: RuntimeOptions,
    inner: tokio::sync::Mutex<Inner>,
}

impl LocalRuntime {
    /// Must be called inside a tokio runtime: a task watches for idleness and deaths.
    pub fn new(options: RuntimeOptions) -> Arc<Self> {
        let runtime = Arc::new(Self {
            options,
            inner: tokio::sync::Mutex::new(Inner {
                running: None,
                died: None,
                last_use: Instant::now(),
            }),
        });
        let weak = Arc::downgrade(&runtime);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let Some(runtime) = weak.upgrade() else { break };
                runtime.check().await;
            }
        });
        runtime
    }

    /// The worker serving `model` with a context of `ctx` tokens (None: the options', else the
    /// worker's choice), started, or restarted when it runs another model or context.
    pub async fn endpoint(&self, model: &Path, ctx: Option<u32>) -> Result<Endpoint, RuntimeError> {
        let ctx = ctx.or(self.options.ctx);
        let mut inner = self.inner.lock().await;
        inner.last_use = Instant::now();
        self.reap(&mut inner);
        if let Some(running) = &inner.running {
            if running.model == model && running.asked_ctx == ctx {
                return Ok(running.endpoint.clone());
            }
        }
        if let Some(old) = inner.running.take() {
            stop(old).await;
        }
        let running = self.start(model, ctx).await?;
        let endpoint = running.endpoint.clone();
        inner.running = Some(running);
        inner.died = None;
        Ok(endpoint)
    }

    /// Whether a worker runs, and if one died, why.
    pub async fn state(&self) -> WorkerState {
        let mut inner = self.inner.lock().await;
        self.reap(&mut inner);
        match (&inner.running, &inner.died) {
            (Some(running), _) => WorkerState::Running {
                model: running.model.clone(),
                pid: running.endpoint.pid,
                n_ctx: running.endpoint.n_ctx,
            },
            (None, Some(died)) => died.clone(),
            (None, None) => WorkerState::NotRunning,
        }
    }

    /// Stops the worker (its memory goes back to the system with its process).
    pub async fn unload(&self) {
        let mut inner = self.inner.lock().await;
        if let Some(running) = inner.running.take() {
            stop(running).await;
        }
        inner.died = None;
    }

    /// Idle stop, and noticing a worker that died.
    async fn check(&self) {
        let mut inner = self.inner.lock().await;
        self.reap(&mut inner);
        if inner.running.is_some() && inner.last_use.elapsed() >= self.options.idle {
            if let Some(running) = inner.running.take() {
                tracing::info!(model = %running.model.display(), "the local model was idle: stopped");
                stop(running).await;
            }
        }
    }

    /// A worker that exited by itself is taken off, its end kept for [`LocalRuntime::state`].
    fn reap(&self, inner: &mut Inner) {
        let Some(running) = inner.running.as_mut() else {
            return;
        };
        let Ok(Some(status)) = running.child.try_wait() else {
            return;
        };
        let said = tail(&running.said);
        tracing::warn!(model = %running.model.display(), %status, "the local model stopped");
        inner.died = Some(WorkerState::Died {
            model: running.model.clone(),
            status: status.to_string(),
            said,
        });
        inner.running = None;
    }

    async fn start(&self, model: &Path, ctx: Option<u32>) -> Result<Running, RuntimeError> {
        let token = random_token();
        let mut command = Command::from(crate::worker::command(
            &self.options.worker,
            model,
            0,
            ctx,
            self.options.threads,
            &token,
        ));
        command.stderr(Stdio::piped()).kill_on_drop(true);
        let mut child = command.spawn().map_err(|source| RuntimeError::Spawn {
            worker: self.options.worker.clone(),
            source,
        })?;
        let said = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(stderr) = child.stderr.take() {
            let said = said.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let mut kept = said.lock().unwrap_or_else(|e| e.into_inner());
                    if kept.len() == KEPT_LINES {
                        kept.pop_front();
                    }
                    kept.push_back(line);
                }
            });
        }
        let input = child.stdin.take();
        let ready = match child.stdout.take() {
            Some(stdout) => {
                let mut lines = BufReader::new(stdout).lines();
                tokio::time::timeout(self.options.load_timeout, lines.next_line()).await
            }
            None => Ok(Ok(None)),
        };
        let ready = match ready {
            Ok(Ok(Some(line))) => Ready::parse(&line),
            Ok(_) => None,
            Err(_) => {
                let _ = child.kill().await;
                return Err(RuntimeError::LoadTimeout {
                    model: model.to_owned(),
                    seconds: self.options.load_timeout.as_secs(),
                });
            }
        };
        let (Some(ready), Some(input)) = (ready, input) else {
            let status = match child.wait().await {
                Ok(status) => status.to_string(),
                Err(err) => err.to_string(),
            };
            // The stderr reader may still hold the last lines for a moment.
            tokio::time::sleep(Duration::from_millis(50)).await;
            return Err(RuntimeError::LoadFailed {
                model: model.to_owned(),
                status,
                said: tail(&said),
            });
        };
        Ok(Running {
            model: model.to_owned(),
            asked_ctx: ctx,
            endpoint: Endpoint {
                base_url: format!("http://127.0.0.1:{}/v1", ready.port),
                token,
                model: ready.model,
                n_ctx: ready.n_ctx,
                pid: ready.pid,
            },
            child,
            _input: input,
            said,
        })
    }
}

/// Closes the worker's input (it finishes and exits), then kills it if it lingers.
async fn stop(running: Running) {
    let Running {
        mut child,
        _input: input,
        ..
    } = running;
    drop(input);
    if tokio::time::timeout(Duration::from_secs(5), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
}

fn tail(said: &Mutex<VecDeque<String>>) -> String {
    let kept = said.lock().unwrap_or_else(|e| e.into_inner());
    kept.iter().cloned().collect::<Vec<_>>().join("\n")
}

/// A fresh token per start: 32 random bytes as hex.
fn random_token() -> String {
    rand::random::<[u8; 32]>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
