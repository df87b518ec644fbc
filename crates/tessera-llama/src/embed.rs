//! Embeddings (`POST /v1/embeddings`): a thread of their own, beside the one that answers chats,
//! so a project's chunks being embedded never queue a person's question behind them. It shares
//! the loaded weights, and makes its llama.cpp context (embeddings on, the model's pooling) on
//! its first job: a worker that is never asked for a vector never pays for one.
//!
//! Inputs are packed several to a decode, each its own sequence, after the cache is cleared:
//! every sequence is read whole within one micro-batch (llama.cpp pools a sequence per
//! micro-batch, and a non-causal model must see it all at once). Vectors come back as llama.cpp
//! pools them, not normalised: the client normalises.

use std::num::NonZeroU32;
use std::sync::{mpsc, Arc};

use anyhow::{anyhow, Context as _};
use llama_cpp_2::context::params::{LlamaContextParams, LlamaPoolingType};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::{AddBos, LlamaModel};
use llama_cpp_2::token::LlamaToken;
use tokio::sync::oneshot;

/// The most strings one request may hold (OpenAI takes 2,048; a request of 256 chunks of a
/// thousand tokens already keeps a CPU busy for minutes).
pub const MAX_INPUTS: usize = 256;

/// The most tokens of one input, and of one decode, whatever the model allows: llama.cpp
/// keeps the attention scores of a whole micro-batch against the whole context.
const MAX_EMBED_CTX: u32 = 8_192;

/// What those scores (a token of the micro-batch × a token of the context × a head, 4 bytes
/// each, one layer at a time) may take: a 1B model of 32 heads reads 1,024 tokens at once.
const SCORES_BUDGET: u64 = 128 << 20;

/// The most inputs decoded at once (distinct sequence ids of one batch).
const MAX_SEQS: u32 = 64;

/// The context embeddings are made in, which is also the most tokens of one input: the
/// worker's context and the model's own, at most what [`SCORES_BUDGET`] allows for `n_head`
/// heads (a power of two, at least 256) and [`MAX_EMBED_CTX`].
pub fn embed_ctx(n_ctx: u32, n_ctx_train: u32, n_head: u32) -> u32 {
    let per_token_squared = u64::from(n_head.max(1)) * 4;
    let mut fits = MAX_EMBED_CTX;
    while fits > 256 && u64::from(fits) * u64::from(fits) * per_token_squared > SCORES_BUDGET {
        fits /= 2;
    }
    let model = if n_ctx_train == 0 {
        u32::MAX
    } else {
        n_ctx_train
    };
    fits.min(n_ctx).min(model).max(1)
}

/// One request's strings, and where their vectors go.
pub struct EmbedJob {
    pub inputs: Vec<String>,
    pub out: oneshot::Sender<Result<Embedded, EmbedFailure>>,
}

/// One vector per input, in order, and how many tokens they took.
#[derive(Debug)]
pub struct Embedded {
    pub vectors: Vec<Vec<f32>>,
    pub prompt_tokens: u32,
}

#[derive(Debug)]
pub enum EmbedFailure {
    /// The request asks for what this worker does not do (400).
    Invalid(String),
    /// llama.cpp failed (500).
    Failed(String),
}

/// The pooling the model file names (`{arch}.pooling_type`); mean when it names none (a chat
/// model's, whose per-token embeddings cannot answer a sequence's vector) or a reranker's.
fn pooling(model: &LlamaModel) -> LlamaPoolingType {
    let named = model
        .meta_val_str("general.architecture")
        .ok()
        .and_then(|arch| model.meta_val_str(&format!("{arch}.pooling_type")).ok())
        .and_then(|v| v.trim().parse::<i32>().ok())
        .map(LlamaPoolingType::from);
    match named {
        Some(p @ (LlamaPoolingType::Mean | LlamaPoolingType::Cls | LlamaPoolingType::Last)) => p,
        _ => LlamaPoolingType::Mean,
    }
}

/// Starts the embeddings thread: it takes jobs from `jobs` until the engine is dropped.
pub fn spawn(
    backend: Arc<LlamaBackend>,
    model: Arc<LlamaModel>,
    threads: i32,
    n_ctx: u32,
    flash_attn: llama_cpp_sys_2::llama_flash_attn_type,
    jobs: mpsc::Receiver<EmbedJob>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("tessera-llama-embed".into())
        .spawn(move || {
            let mut embedder = Embedder {
                backend: &backend,
                model: &model,
                ctx: None,
                n_ctx,
                threads,
                flash_attn,
            };
            while let Ok(job) = jobs.recv() {
                if job.out.is_closed() {
                    continue;
                }
                let result = embedder.embed(&job);
                let _ = job.out.send(result);
            }
        })
        .map(|_| ())
}

struct Embedder<'m> {
    backend: &'m LlamaBackend,
    model: &'m LlamaModel,
    /// Made on the first job.
    ctx: Option<LlamaContext<'m>>,
    n_ctx: u32,
    threads: i32,
    flash_attn: llama_cpp_sys_2::llama_flash_attn_type,
}

impl<'m> Embedder<'m> {
    fn embed(&mut self, job: &EmbedJob) -> Result<Embedded, EmbedFailure> {
        let limit = self.n_ctx as usize;
        let mut tokenized = Vec::with_capacity(job.inputs.len());
        for (i, text) in job.inputs.iter().enumerate() {
            let tokens = self
                .model
                .str_to_token(text, AddBos::Always)
                .map_err(|err| {
                    EmbedFailure::Invalid(format!("input {i} cannot be tokenized: {err}"))
                })?;
            if tokens.is_empty() {
                return Err(EmbedFailure::Invalid(format!("input {i} is empty")));
            }
            if tokens.len() > limit {
                return Err(EmbedFailure::Invalid(format!(
                    "input {i} is {} tokens long, more than the {limit} tokens this model embeds at once: split it into smaller pieces",
                    tokens.len()
                )));
            }
            tokenized.push(tokens);
        }
        let prompt_tokens = tokenized.iter().map(Vec::len).sum::<usize>();
        let vectors = self
            .vectors(&tokenized, &job.out)
            .map_err(|err| EmbedFailure::Failed(format!("{err:#}")))?;
        Ok(Embedded {
            vectors,
            prompt_tokens: u32::try_from(prompt_tokens).unwrap_or(u32::MAX),
        })
    }

    fn context(&mut self) -> anyhow::Result<&mut LlamaContext<'m>> {
        if self.ctx.is_none() {
            let pooling = pooling(self.model);
            let params = LlamaContextParams::default()
                .with_embeddings(true)
                .with_pooling_type(pooling)
                .with_n_ctx(NonZeroU32::new(self.n_ctx))
                .with_n_batch(self.n_ctx)
                .with_n_ubatch(self.n_ctx)
                .with_n_seq_max(MAX_SEQS)
                .with_kv_unified(true)
                .with_n_threads(self.threads)
                .with_n_threads_batch(self.threads)
                .with_flash_attention_policy(self.flash_attn);
            let ctx = self
                .model
                .new_context(self.backend, params)
                .with_context(|| {
                    format!("cannot make an embeddings context of {} tokens", self.n_ctx)
                })?;
            tracing::info!(n_ctx = self.n_ctx, ?pooling, "embeddings context made");
            self.ctx = Some(ctx);
        }
        self.ctx
            .as_mut()
            .ok_or_else(|| anyhow!("no embeddings context"))
    }

    /// One vector per input: as many inputs to a decode as [`MAX_SEQS`] and the context hold.
    fn vectors<T>(
        &mut self,
        inputs: &[Vec<LlamaToken>],
        out: &oneshot::Sender<T>,
    ) -> anyhow::Result<Vec<Vec<f32>>> {
        let budget = self.n_ctx as usize;
        let ctx = self.context()?;
        let mut batch = LlamaBatch::new(budget, 1);
        let mut vectors = Vec::with_capacity(inputs.len());
        let mut start = 0;
        while start < inputs.len() {
            // The client went away: nobody reads the rest.
            if out.is_closed() {
                return Err(anyhow!("the client went away"));
            }
            let mut end = start;
            let mut tokens = 0;
            while end < inputs.len()
                && end - start < MAX_SEQS as usize
                && tokens + inputs[end].len() <= budget
            {
                tokens += inputs[end].len();
                end += 1;
            }
            batch.clear();
            for (seq, input) in (0..).zip(&inputs[start..end]) {
                // Every token is an output: llama.cpp pools them.
                batch.add_sequence(input, seq, true)?;
            }
            ctx.clear_kv_cache();
            ctx.decode(&mut batch)
                .context("llama.cpp could not read the inputs")?;
            for seq in 0..(end - start) {
                let seq = i32::try_from(seq)?;
                let vector = ctx
                    .embeddings_seq_ith(seq)
                    .with_context(|| format!("llama.cpp gave no vector for sequence {seq}"))?;
                vectors.push(vector.to_vec());
            }
            start = end;
        }
        Ok(vectors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embeddings_context_is_bounded_by_the_model_the_worker_and_the_scores() {
        // Llama-3.2-1B's 32 heads: 1,024² scores × 32 × 4 bytes = 128 MiB.
        assert_eq!(embed_ctx(16_384, 131_072, 32), 1_024);
        // The test model's 4 heads.
        assert_eq!(embed_ctx(2_048, 16_384, 4), 2_048);
        assert_eq!(embed_ctx(16_384, 16_384, 4), 2_048);
        // A BERT of 512 positions.
        assert_eq!(embed_ctx(16_384, 512, 12), 512);
        // A model that names no context.
        assert_eq!(embed_ctx(4_096, 0, 1), 4_096);
        // Never below 256 for the scores' sake.
        assert_eq!(embed_ctx(16_384, 16_384, 100_000), 256);
    }
}
