//! The one thread that owns the model and its context (llama.cpp's context is not `Send`):
//! it takes generation jobs one at a time, keeps the tokens of the last prompt and answer in
//! the KV cache so a follow-up in the same conversation decodes only what is new, and stops a
//! job at once when it is cancelled or its client is gone. Embeddings run on a thread of their
//! own beside it (crate::embed), sharing the loaded weights.

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use anyhow::{anyhow, Context as _};
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{AddBos, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::TokenToStringError;
use tokio::sync::mpsc::UnboundedSender;

use crate::clock::Clock;
use crate::context_size::{
    available_memory, default_ctx, micro_batch, too_big_for_memory, CacheShape,
};
use crate::embed::{self, EmbedJob};

/// Prompt tokens decoded per call: small enough that a cancel is seen within a chunk.
const PREFILL_CHUNK: usize = 256;

/// Flash attention. `Auto`, the worker's default, is off on this CPU build: decoding a token
/// with it off took 21–29 % less time at 2,400 tokens of context, in every run (bench/llama,
/// llama.cpp b9553, AVX2 and AVX-512 builds), and reading a prompt took as long. Its one cost,
/// the attention scores of a whole micro-batch in memory, is bounded by [`micro_batch`].
/// A build with a GPU back-end leaves `Auto` to llama.cpp (on wherever the device supports it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlashAttn {
    Auto,
    On,
    Off,
}

/// A build with a GPU back-end, where llama.cpp's own choice of attention stands.
const GPU_BUILD: bool = cfg!(any(
    feature = "cuda",
    feature = "vulkan",
    feature = "rocm",
    feature = "metal"
));

/// llama.cpp's flash-attention policy (-1 auto, 0 off, 1 on) and micro-batch for `asked`.
fn attention(
    asked: FlashAttn,
    n_ctx: u32,
    n_head: u32,
) -> (llama_cpp_sys_2::llama_flash_attn_type, u32) {
    use llama_cpp_sys_2::{
        LLAMA_FLASH_ATTN_TYPE_AUTO as AUTO, LLAMA_FLASH_ATTN_TYPE_DISABLED as OFF,
        LLAMA_FLASH_ATTN_TYPE_ENABLED as ON,
    };
    match asked {
        FlashAttn::Auto if GPU_BUILD => (AUTO, 512),
        FlashAttn::Off | FlashAttn::Auto => (OFF, micro_batch(n_ctx, n_head)),
        FlashAttn::On => (ON, 512),
    }
}

/// What the model file says of itself.
#[derive(Debug, Clone)]
pub struct ModelInfo {
    pub name: String,
    pub n_ctx: u32,
    pub n_ctx_train: u32,
    pub chat_template: Option<String>,
    pub bos_token: String,
    pub eos_token: String,
    /// The embeddings context, which is also the most tokens of one input to embed.
    pub embed_ctx: u32,
}

/// How the next token is chosen.
#[derive(Debug, Clone, Default)]
pub struct Sampling {
    /// 0 (or none) is greedy.
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub seed: Option<u32>,
    /// GBNF the answer must follow.
    pub grammar: Option<Grammar>,
}

/// A grammar, and when it starts to apply.
#[derive(Debug, Clone)]
pub struct Grammar {
    pub gbnf: String,
    /// None: from the first token. Else the output is free until one of these regular
    /// expressions matches it; the grammar applies from the start of the first group.
    pub lazy_patterns: Option<Vec<String>>,
}

/// One answer to generate.
pub struct Job {
    pub prompt: String,
    pub max_tokens: u32,
    pub sampling: Sampling,
    /// Set by the client's side when it goes away: the job stops before its next token.
    pub cancel: Arc<AtomicBool>,
    pub out: UnboundedSender<Out>,
}

/// What a job sends back, in order.
#[derive(Debug)]
pub enum Out {
    /// The prompt's size once tokenized, and how many of its tokens the cache already held.
    Started {
        prompt_tokens: u32,
        cached_tokens: u32,
    },
    Text(String),
    /// The end: why, and how many tokens were generated.
    Done {
        reason: Finish,
        completion_tokens: u32,
    },
    Failed(Failure),
}

/// Why a job failed, as the OpenAI wire's error `type` and its message.
#[derive(Debug)]
pub struct Failure {
    /// `context_length_exceeded` (the client should not retry: the conversation is too long),
    /// or `server_error`.
    pub kind: &'static str,
    pub message: String,
}

/// The prompt does not fit the context: said as OpenAI says it, so clients know not to retry.
#[derive(Debug)]
struct ContextFull(String);

impl std::fmt::Display for ContextFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ContextFull {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The model ended its turn.
    Stop,
    /// `max_tokens`, or the context was full.
    Length,
    Cancelled,
}

pub struct Engine {
    pub info: ModelInfo,
    jobs: mpsc::Sender<Job>,
    /// To the embeddings thread (crate::embed), which runs beside this one.
    embeds: mpsc::Sender<EmbedJob>,
}

impl Engine {
    /// Loads `model_file` and starts the thread that runs jobs. `n_ctx` None takes the
    /// model's training context, capped at `max_ctx`.
    pub fn start(
        model_file: &Path,
        n_ctx: Option<u32>,
        threads: Option<i32>,
        flash_attn: FlashAttn,
    ) -> anyhow::Result<Self> {
        let (ready_tx, ready_rx) = mpsc::channel::<anyhow::Result<ModelInfo>>();
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let (embeds, embed_rx) = mpsc::channel::<EmbedJob>();
        let path = model_file.to_owned();
        std::thread::Builder::new()
            .name("tessera-llama-model".into())
            .spawn(move || {
                let backend = match LlamaBackend::init() {
                    Ok(backend) => Arc::new(backend),
                    Err(err) => {
                        let _ = ready_tx.send(Err(anyhow!("cannot start llama.cpp: {err}")));
                        return;
                    }
                };
                // Read before the weights fill the page cache (which MemAvailable counts).
                let available = available_memory();
                let model =
                    match LlamaModel::load_from_file(&backend, &path, &LlamaModelParams::default())
                    {
                        Ok(model) => Arc::new(model),
                        Err(err) => {
                            let _ = ready_tx
                                .send(Err(anyhow!("cannot load {}: {err}", path.display())));
                            return;
                        }
                    };
                let info = match model_info(&model, &path, n_ctx, available) {
                    Ok(info) => info,
                    Err(err) => {
                        let _ = ready_tx.send(Err(err));
                        return;
                    }
                };
                let threads = threads.unwrap_or_else(default_threads);
                let (policy, n_ubatch) = attention(flash_attn, info.n_ctx, model.n_head());
                tracing::info!(flash_attention = policy, n_ubatch, "attention chosen");
                let params = LlamaContextParams::default()
                    .with_n_ctx(NonZeroU32::new(info.n_ctx))
                    .with_n_batch(512)
                    .with_n_ubatch(n_ubatch)
                    .with_n_threads(threads)
                    .with_n_threads_batch(threads)
                    .with_flash_attention_policy(policy);
                let ctx = match model.new_context(&backend, params) {
                    Ok(ctx) => ctx,
                    Err(err) => {
                        let _ = ready_tx.send(Err(anyhow!(
                            "cannot make a context of {} tokens: {err}",
                            info.n_ctx
                        )));
                        return;
                    }
                };
                let (embed_policy, _) = attention(flash_attn, info.embed_ctx, model.n_head());
                if let Err(err) = embed::spawn(
                    backend.clone(),
                    model.clone(),
                    threads,
                    info.embed_ctx,
                    embed_policy,
                    embed_rx,
                ) {
                    tracing::warn!(%err, "cannot start the embeddings thread");
                }
                let _ = ready_tx.send(Ok(info));
                let mut runner = Runner {
                    model: &model,
                    ctx,
                    cached: Vec::new(),
                };
                while let Ok(job) = job_rx.recv() {
                    runner.run(job);
                }
            })
            .context("cannot start the model thread")?;
        let info = ready_rx
            .recv()
            .map_err(|_| anyhow!("the model thread stopped while loading"))??;
        Ok(Self { info, jobs, embeds })
    }

    /// Queues a job; its output arrives on `job.out`.
    pub fn submit(&self, job: Job) -> anyhow::Result<()> {
        self.jobs
            .send(job)
            .map_err(|_| anyhow!("the model thread has stopped"))
    }

    /// Queues strings to embed, on a thread of their own: a chat never waits for them.
    pub fn embed(&self, job: EmbedJob) -> anyhow::Result<()> {
        self.embeds
            .send(job)
            .map_err(|_| anyhow!("the embeddings thread has stopped"))
    }
}

fn default_threads() -> i32 {
    std::thread::available_parallelism()
        .map(|n| i32::try_from(n.get()).unwrap_or(4))
        .unwrap_or(4)
}

fn model_info(
    model: &LlamaModel,
    path: &Path,
    n_ctx: Option<u32>,
    available: Option<u64>,
) -> anyhow::Result<ModelInfo> {
    let n_ctx_train = model.n_ctx_train();
    let shape = CacheShape {
        n_layer: model.n_layer(),
        n_head: model.n_head(),
        n_head_kv: model.n_head_kv(),
        n_embd: u32::try_from(model.n_embd()).unwrap_or(0),
    };
    let per_token = if model.is_recurrent() {
        None
    } else {
        shape.bytes_per_token()
    };
    let spare = available.map(|bytes| bytes.saturating_sub(model.size()));
    let n_ctx = match n_ctx {
        Some(asked) => {
            let asked = asked.max(256);
            // Said now: if the system ends this process for its memory, this line is the last
            // the app shows of it.
            if let Some(warning) = too_big_for_memory(asked, per_token, spare) {
                tracing::warn!("{warning}");
            }
            asked
        }
        None => {
            let chosen = default_ctx(n_ctx_train, per_token, spare);
            tracing::info!(
                n_ctx_train,
                cache_bytes_per_token = per_token,
                spare_bytes = spare,
                chosen,
                "context chosen for the model and this machine's memory"
            );
            chosen
        }
    };
    let piece = |token: LlamaToken| {
        let mut decoder = encoding_rs::UTF_8.new_decoder();
        piece(model, token, &mut decoder, true)
    };
    let name = model
        .meta_val_str("general.name")
        .ok()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "local".into())
        });
    Ok(ModelInfo {
        name,
        n_ctx,
        n_ctx_train,
        chat_template: model
            .chat_template(None)
            .ok()
            .and_then(|t| t.to_str().ok().map(str::to_owned)),
        bos_token: piece(model.token_bos()),
        eos_token: piece(model.token_eos()),
        embed_ctx: embed::embed_ctx(n_ctx, n_ctx_train, model.n_head()),
    })
}

struct Runner<'m> {
    model: &'m LlamaModel,
    ctx: llama_cpp_2::context::LlamaContext<'m>,
    /// The tokens whose keys and values the cache holds for sequence 0, in order.
    cached: Vec<LlamaToken>,
}

impl Runner<'_> {
    fn run(&mut self, job: Job) {
        if let Err(err) = self.generate(&job) {
            let kind = if err.downcast_ref::<ContextFull>().is_some() {
                "context_length_exceeded"
            } else {
                "server_error"
            };
            let _ = job.out.send(Out::Failed(Failure {
                kind,
                message: format!("{err:#}"),
            }));
        }
    }

    fn generate(&mut self, job: &Job) -> anyhow::Result<()> {
        let mut clock = Clock::new();
        let tokens = self
            .model
            .str_to_token(&job.prompt, AddBos::Always)
            .context("cannot tokenize the prompt")?;
        let n_ctx = self.ctx.n_ctx() as usize;
        if tokens.len() + 1 >= n_ctx {
            return Err(ContextFull(format!(
                "the conversation takes {} tokens, more than this model's context of {n_ctx}: start a new conversation, or give the model a larger context (Settings → Models on this computer → Context; --ctx of tessera local serve)",
                tokens.len()
            ))
            .into());
        }
        // Keep what the cache holds of this prompt; the last token is decoded again so that
        // its logits are there to sample from.
        let mut keep = common_prefix(&self.cached, &tokens);
        if keep == tokens.len() {
            keep -= 1;
        }
        if self
            .ctx
            .kv_cache_seq_rm(0, Some(keep as u32), None)
            .is_err()
        {
            self.ctx.clear_kv_cache();
            keep = 0;
        }
        self.cached.truncate(keep);
        let _ = job.out.send(Out::Started {
            prompt_tokens: tokens.len() as u32,
            cached_tokens: keep as u32,
        });

        let mut batch = LlamaBatch::new(PREFILL_CHUNK.max(1), 1);
        let rest = &tokens[keep..];
        for (c, chunk) in rest.chunks(PREFILL_CHUNK).enumerate() {
            if cancelled(job) {
                return self.finish(job, Finish::Cancelled, 0, &clock);
            }
            batch.clear();
            let last_chunk = (c + 1) * PREFILL_CHUNK >= rest.len();
            for (i, token) in chunk.iter().enumerate() {
                let pos = (keep + c * PREFILL_CHUNK + i) as i32;
                let logits = last_chunk && i + 1 == chunk.len();
                batch.add(*token, pos, &[0], logits)?;
            }
            self.ctx
                .decode(&mut batch)
                .context("llama.cpp could not read the prompt")?;
            self.cached.extend_from_slice(chunk);
        }
        clock.prefilled(rest.len());

        let mut sampler = self.sampler(&job.sampling)?;
        let mut decoder = encoding_rs::UTF_8.new_decoder();
        let mut generated = 0u32;
        let mut logits_at = batch.n_tokens() - 1;
        loop {
            if cancelled(job) {
                return self.finish(job, Finish::Cancelled, generated, &clock);
            }
            if generated >= job.max_tokens {
                return self.finish(job, Finish::Length, generated, &clock);
            }
            if self.cached.len() + 1 >= n_ctx {
                return self.finish(job, Finish::Length, generated, &clock);
            }
            // `sample` accepts the token into the chain (a grammar advances) itself.
            let sampling = Instant::now();
            let token = sampler.sample(&self.ctx, logits_at);
            clock.sample += sampling.elapsed();
            if self.model.is_eog_token(token) {
                return self.finish(job, Finish::Stop, generated, &clock);
            }
            generated += 1;
            let piece = piece(self.model, token, &mut decoder, false);
            if !piece.is_empty() && job.out.send(Out::Text(piece)).is_err() {
                return self.finish(job, Finish::Cancelled, generated, &clock);
            }
            batch.clear();
            batch.add(token, self.cached.len() as i32, &[0], true)?;
            let decoding = Instant::now();
            self.ctx
                .decode(&mut batch)
                .context("llama.cpp could not go on")?;
            clock.decode += decoding.elapsed();
            self.cached.push(token);
            logits_at = 0;
        }
    }

    fn finish(
        &mut self,
        job: &Job,
        reason: Finish,
        completion_tokens: u32,
        clock: &Clock,
    ) -> anyhow::Result<()> {
        clock.log(reason, completion_tokens);
        let _ = job.out.send(Out::Done {
            reason,
            completion_tokens,
        });
        Ok(())
    }

    fn sampler(&self, sampling: &Sampling) -> anyhow::Result<LlamaSampler> {
        let mut chain = Vec::new();
        if let Some(grammar) = &sampling.grammar {
            match &grammar.lazy_patterns {
                None => chain.push(
                    LlamaSampler::grammar(self.model, &grammar.gbnf, "root").map_err(|err| {
                        anyhow!("llama.cpp refused the grammar of the tools' parameters ({err:?})")
                    })?,
                ),
                Some(patterns) => {
                    match LlamaSampler::grammar_lazy_patterns(
                        self.model,
                        &grammar.gbnf,
                        "root",
                        patterns,
                        &[],
                    ) {
                        Ok(sampler) => chain.push(sampler),
                        // The model may still call tools; the parser reads them unconstrained.
                        Err(err) => tracing::warn!(
                            ?err,
                            "the lazy tool-call grammar was refused; calls are not constrained"
                        ),
                    }
                }
            }
        }
        match sampling.temperature {
            Some(t) if t > 0.0 => {
                if let Some(p) = sampling.top_p.filter(|p| *p > 0.0 && *p < 1.0) {
                    chain.push(LlamaSampler::top_p(p, 1));
                }
                chain.push(LlamaSampler::temp(t));
                chain.push(LlamaSampler::dist(sampling.seed.unwrap_or(0)));
            }
            _ => chain.push(LlamaSampler::greedy()),
        }
        Ok(LlamaSampler::chain_simple(chain))
    }
}

/// The text `token` adds, through `decoder`, which holds the bytes of a character that tokens
/// split until its last byte comes. (llama-cpp-2's `token_to_piece` gives the decoder only as
/// much room as the token's own bytes, so a character completed by a one-byte token was lost:
/// Chinese text from a byte-fallback vocabulary lost characters.)
fn piece(
    model: &LlamaModel,
    token: LlamaToken,
    decoder: &mut encoding_rs::Decoder,
    special: bool,
) -> String {
    let bytes = match model.token_to_piece_bytes(token, 64, special, None) {
        Err(TokenToStringError::InsufficientBufferSpace(needed)) => model.token_to_piece_bytes(
            token,
            usize::try_from(needed.unsigned_abs()).unwrap_or(64),
            special,
            None,
        ),
        other => other,
    }
    .unwrap_or_default();
    let room = decoder
        .max_utf8_buffer_length(bytes.len())
        .unwrap_or(bytes.len() * 3 + 16);
    let mut text = String::with_capacity(room);
    let _ = decoder.decode_to_string(&bytes, &mut text, false);
    text
}

fn cancelled(job: &Job) -> bool {
    job.cancel.load(Ordering::Relaxed) || job.out.is_closed()
}

fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// Chinese and emoji in a vocabulary with no such pieces come as one byte per token: every
    /// character is whole again once its last byte has come.
    #[test]
    fn characters_split_across_tokens_come_out_whole() {
        let path = std::env::var("TESSERA_TEST_GGUF").expect("TESSERA_TEST_GGUF");
        let backend = LlamaBackend::init().unwrap();
        let params = LlamaModelParams::default();
        let model = LlamaModel::load_from_file(&backend, path, &params).unwrap();
        let text = "你好，世界 🎉 ok";
        let tokens = model.str_to_token(text, AddBos::Never).unwrap();
        assert!(
            tokens.len() > text.chars().count(),
            "split into bytes: {tokens:?}"
        );
        let mut decoder = encoding_rs::UTF_8.new_decoder();
        let out: String = tokens
            .iter()
            .map(|t| piece(&model, *t, &mut decoder, false))
            .collect();
        assert_eq!(out, text);
    }

    #[test]
    fn a_cpu_build_turns_flash_attention_off_unless_asked_and_bounds_the_batch() {
        use llama_cpp_sys_2::{LLAMA_FLASH_ATTN_TYPE_DISABLED, LLAMA_FLASH_ATTN_TYPE_ENABLED};
        if GPU_BUILD {
            return;
        }
        assert_eq!(
            attention(FlashAttn::Auto, 16_384, 28),
            (LLAMA_FLASH_ATTN_TYPE_DISABLED, 32)
        );
        assert_eq!(
            attention(FlashAttn::Off, 4_096, 32),
            (LLAMA_FLASH_ATTN_TYPE_DISABLED, 128)
        );
        assert_eq!(
            attention(FlashAttn::On, 16_384, 28),
            (LLAMA_FLASH_ATTN_TYPE_ENABLED, 512)
        );
    }
}
