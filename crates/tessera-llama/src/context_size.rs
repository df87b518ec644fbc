//! How many tokens of context the worker makes when none was asked for (`--ctx`): the model's
//! own, at most [`DEFAULT_MAX_CTX`], and less where the machine's memory would not hold the
//! cache of that many. llama.cpp allocates the whole cache when it makes the context, so a
//! context too big for the machine is paid for at load, in swap or in the out-of-memory killer,
//! before a person has said a word.

/// The largest context the worker makes when the model allows more and none was asked for:
/// the KV cache of a 128k context would take gigabytes a person never asked to spend. The
/// app's tools and instructions take 3,000–4,000 tokens of it, so 8,192 left a person about
/// half for the conversation; 16,384 costs a 7B model (Qwen2.5, 4 KV heads) 0.9 GB of cache.
pub const DEFAULT_MAX_CTX: u32 = 16_384;

/// The least the worker makes by itself, memory or not (when the model allows it): less would
/// not hold the app's tools and a question.
pub const MIN_DEFAULT_CTX: u32 = 4_096;

/// What the cache may take of the memory left once the model is loaded: half, so the app, the
/// page and the person's other programs keep the rest.
const CACHE_SHARE: u64 = 2;

/// The shape of a model's attention that sizes its cache.
#[derive(Debug, Clone, Copy)]
pub struct CacheShape {
    pub n_layer: u32,
    pub n_head: u32,
    pub n_head_kv: u32,
    pub n_embd: u32,
}

impl CacheShape {
    /// Bytes of keys and values one token takes (f16, llama.cpp's default cache type); None
    /// when the shape says nothing usable (a recurrent model keeps no cache per token).
    pub fn bytes_per_token(&self) -> Option<u64> {
        if self.n_head == 0 || self.n_layer == 0 || self.n_head_kv == 0 {
            return None;
        }
        let head_dim = u64::from(self.n_embd / self.n_head);
        let per_layer = 2 * u64::from(self.n_head_kv) * head_dim * 2;
        Some(per_layer * u64::from(self.n_layer)).filter(|&b| b > 0)
    }
}

/// The context to make: `n_ctx_train` capped at [`DEFAULT_MAX_CTX`], then at what half of
/// `spare` (the memory available less the model's weights, when known) holds, in whole
/// thousands of tokens, never below [`MIN_DEFAULT_CTX`] (or the model's own, if smaller).
pub fn default_ctx(n_ctx_train: u32, bytes_per_token: Option<u64>, spare: Option<u64>) -> u32 {
    let wanted = if n_ctx_train == 0 {
        DEFAULT_MAX_CTX
    } else {
        n_ctx_train.min(DEFAULT_MAX_CTX)
    };
    let fits = match (bytes_per_token, spare) {
        (Some(per_token), Some(spare)) => {
            let tokens = spare / CACHE_SHARE / per_token;
            let tokens = u32::try_from(tokens).unwrap_or(u32::MAX);
            (tokens / 1024 * 1024).max(MIN_DEFAULT_CTX)
        }
        _ => u32::MAX,
    };
    wanted.min(fits).max(256)
}

/// What the attention scores of one micro-batch may take when flash attention is off: llama.cpp
/// keeps a score per (token of the batch, token of the context, head), 4 bytes each, for one
/// layer at a time. 64 MiB is what its flash-attention compute buffer took for the bench's
/// model at 512 a batch; 512 tokens a batch at 16,384 of context would take 1 GB for a 7B model.
const SCORES_BUDGET: u64 = 64 << 20;

/// The tokens llama.cpp decodes at once (`n_ubatch`) with flash attention off: the most, as a
/// power of two from 32 to 512, whose scores fit [`SCORES_BUDGET`]. Reading a prompt 32 or
/// 128 at a time instead of 512 was as fast on two cores (bench/llama).
pub fn micro_batch(n_ctx: u32, n_head: u32) -> u32 {
    let per_token = u64::from(n_ctx) * u64::from(n_head.max(1)) * 4;
    let mut batch = 512u32;
    while batch > 32 && u64::from(batch) * per_token > SCORES_BUDGET {
        batch /= 2;
    }
    batch
}

/// What to say when a context asked for (`--ctx`) takes more cache than the memory left beside
/// the model (`spare`): llama.cpp allocates it all at once, and the system may end the worker.
pub fn too_big_for_memory(
    asked: u32,
    bytes_per_token: Option<u64>,
    spare: Option<u64>,
) -> Option<String> {
    let cache = bytes_per_token?.saturating_mul(u64::from(asked));
    let spare = spare?;
    (cache > spare).then(|| {
        format!(
            "a context of {asked} tokens takes {:.1} GB of cache, more than the {:.1} GB of memory left beside the model: choose a smaller context if the model stops",
            cache as f64 / 1e9,
            spare as f64 / 1e9
        )
    })
}

/// `MemAvailable` of /proc/meminfo, in bytes (None where there is none to read).
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_available(&meminfo)
}

fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find(|line| line.starts_with("MemAvailable:"))?;
    let kib: u64 = line
        .trim_start_matches("MemAvailable:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    /// Qwen2.5-7B: 28 layers, 28 heads, 4 KV heads, 3,584 wide (56 KiB a token).
    const QWEN_7B: CacheShape = CacheShape {
        n_layer: 28,
        n_head: 28,
        n_head_kv: 4,
        n_embd: 3584,
    };

    #[test]
    fn a_token_of_a_7b_model_takes_56_kib_of_cache() {
        assert_eq!(QWEN_7B.bytes_per_token(), Some(57_344));
        let recurrent = CacheShape {
            n_head_kv: 0,
            ..QWEN_7B
        };
        assert_eq!(recurrent.bytes_per_token(), None);
    }

    #[test]
    fn a_machine_with_room_gets_the_models_context_up_to_the_cap() {
        let per_token = QWEN_7B.bytes_per_token();
        assert_eq!(default_ctx(32_768, per_token, Some(16 * GIB)), 16_384);
        assert_eq!(default_ctx(8_192, per_token, Some(16 * GIB)), 8_192);
        // Nothing known of the memory: the cap alone.
        assert_eq!(default_ctx(131_072, per_token, None), 16_384);
        assert_eq!(default_ctx(0, per_token, None), 16_384);
    }

    #[test]
    fn a_small_machine_gets_what_half_its_spare_memory_holds() {
        let per_token = QWEN_7B.bytes_per_token();
        // 8 GB laptop, 4.4 GB model: ~0.75 GB spare; half holds 6,857 tokens: 6,144.
        let spare = 750 * (1 << 20);
        assert_eq!(default_ctx(32_768, per_token, Some(spare)), 6_144);
        // Hardly any memory: the least that holds the app's tools, all the same.
        assert_eq!(default_ctx(32_768, per_token, Some(0)), MIN_DEFAULT_CTX);
        // A model whose own context is smaller keeps it.
        assert_eq!(default_ctx(2_048, per_token, Some(0)), 2_048);
    }

    #[test]
    fn the_micro_batch_keeps_the_scores_of_a_long_context_small() {
        // The bench's model (32 heads) at 4,096: 128 a batch, 64 MiB.
        assert_eq!(micro_batch(4_096, 32), 128);
        // A 7B model at 16,384 tokens: 32 a batch (56 MiB), not 512 (896 MiB).
        assert_eq!(micro_batch(16_384, 28), 32);
        // A short context keeps llama.cpp's 512.
        assert_eq!(micro_batch(1_024, 16), 512);
        // Never below 32, whatever the context.
        assert_eq!(micro_batch(131_072, 64), 32);
        assert_eq!(micro_batch(4_096, 0), 512);
    }

    #[test]
    fn a_context_too_big_for_the_memory_is_named_with_its_figures() {
        let per_token = QWEN_7B.bytes_per_token();
        // 131,072 tokens of a 7B model: 7.5 GB of cache, with 4 GB left.
        assert_eq!(
            too_big_for_memory(131_072, per_token, Some(4_000_000_000)).as_deref(),
            Some("a context of 131072 tokens takes 7.5 GB of cache, more than the 4.0 GB of memory left beside the model: choose a smaller context if the model stops")
        );
        assert_eq!(
            too_big_for_memory(16_384, per_token, Some(4_000_000_000)),
            None
        );
        assert_eq!(too_big_for_memory(131_072, per_token, None), None);
        assert_eq!(too_big_for_memory(131_072, None, Some(0)), None);
    }

    #[test]
    fn reads_the_available_memory_of_meminfo() {
        let meminfo =
            "MemTotal:       24577412 kB\nMemFree:         1000 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(20_000_000 * 1024));
        assert_eq!(meminfo_available("MemTotal: 1 kB\n"), None);
        assert_eq!(meminfo_available("MemAvailable: lots\n"), None);
    }
}
