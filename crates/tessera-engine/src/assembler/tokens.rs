//! Token counting: the model family's BPE encoding (tiktoken-rs, tables compiled in), built once
//! per process, and a [`TokenCache`] of counts the caller owns and reuses across turns.
//!
//! Family mapping (`encoding_for_model`):
//! - `o200k_base` for gpt-4o, chatgpt-4o, gpt-4.1, gpt-4.5, gpt-5, o-series (`o1`, `o3`, `o4-mini`,
//!   …), gpt-oss and codex models: exact.
//! - `cl100k_base` for gpt-4 (classic and turbo), gpt-3.5 and the OpenAI embedding models: exact.
//! - `cl100k_base` for every other family (DeepSeek, Qwen, Claude, Llama, Mistral, GLM, pangu, …):
//!   an **estimate** (`exact: false`). Those models use their own tokenizers; cl100k counts of
//!   English are usually within ~10-20% of theirs, and for Chinese cl100k tends to count *more*
//!   tokens than Qwen's or DeepSeek's vocabularies, which errs on the side of a smaller prompt.
//!   Keep a margin in `reserved_for_answer` for such models.
//!
//! Text is encoded as ordinary text: special-token spellings such as `<|endoftext|>` inside a
//! message count as the plain characters they are.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

/// A BPE encoding used for counting.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5, o-series.
    O200kBase,
    /// GPT-4, GPT-3.5, and the estimate for non-OpenAI families.
    Cl100kBase,
}

impl Encoding {
    /// The encoding's tiktoken name.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    fn slot(self) -> &'static OnceLock<Result<CoreBPE, String>> {
        static O200K: OnceLock<Result<CoreBPE, String>> = OnceLock::new();
        static CL100K: OnceLock<Result<CoreBPE, String>> = OnceLock::new();
        match self {
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kBase => &CL100K,
        }
    }

    /// The BPE tables, built on first use and kept for the life of the process.
    fn bpe(self) -> Result<&'static CoreBPE, TokenizerError> {
        let slot = match self {
            Encoding::O200kBase => self
                .slot()
                .get_or_init(|| tiktoken_rs::o200k_base().map_err(|e| e.to_string())),
            Encoding::Cl100kBase => self
                .slot()
                .get_or_init(|| tiktoken_rs::cl100k_base().map_err(|e| e.to_string())),
        };
        slot.as_ref().map_err(|message| TokenizerError {
            encoding: self,
            message: message.clone(),
        })
    }

    /// Builds the tables now (they are otherwise built on first count). Idempotent.
    pub fn load(self) -> Result<(), TokenizerError> {
        self.bpe().map(|_| ())
    }

    /// Counts `text` without any cache.
    pub fn count(self, text: &str) -> Result<u64, TokenizerError> {
        Ok(self.bpe()?.encode_ordinary(text).len() as u64)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The tables of an encoding could not be built (never expected: they are compiled in).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tokenizer {encoding} could not be built: {message}")]
pub struct TokenizerError {
    pub encoding: Encoding,
    pub message: String,
}

/// Which encoding counts a model's tokens, and whether the count is exact for that model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EncodingChoice {
    pub encoding: Encoding,
    /// `false` when the model has its own tokenizer and the count is an estimate.
    pub exact: bool,
}

/// The encoding for a model name. Case-insensitive; a provider prefix (`openai/gpt-4o`,
/// `azure/…`) and a fine-tune wrapper (`ft:gpt-4o-mini:org::id`) are looked through.
pub(crate) fn encoding_for_model(model: &str) -> EncodingChoice {
    let lower = model.trim().to_ascii_lowercase();
    let mut name = lower.rsplit('/').next().unwrap_or(&lower);
    if let Some(rest) = name.strip_prefix("ft:") {
        name = rest.split(':').next().unwrap_or(rest);
    }
    let o200k_prefixes = [
        "gpt-4o",
        "chatgpt-4o",
        "gpt-4.1",
        "gpt-4.5",
        "gpt-5",
        "gpt-oss",
        "codex-",
        "computer-use",
    ];
    let cl100k_prefixes = [
        "gpt-4",
        "gpt-3.5",
        "gpt-35",
        "text-embedding-3",
        "text-embedding-ada-002",
    ];
    let exact = |encoding| EncodingChoice {
        encoding,
        exact: true,
    };
    if o200k_prefixes.iter().any(|p| name.starts_with(p)) || is_o_series(name) {
        exact(Encoding::O200kBase)
    } else if cl100k_prefixes.iter().any(|p| name.starts_with(p)) {
        exact(Encoding::Cl100kBase)
    } else {
        EncodingChoice {
            encoding: Encoding::Cl100kBase,
            exact: false,
        }
    }
}

/// `o1`, `o3-mini`, `o4-mini-2025-04-16`, …: `o`, digits, then the end or `-`.
fn is_o_series(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('o') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && matches!(rest.as_bytes().get(digits), None | Some(b'-'))
}

/// A 128-bit hash of a text, the cache key together with the encoding.
pub(crate) fn content_hash(text: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// Token counts keyed by (content hash, encoding), shared across turns and threads.
///
/// Thread-safe (`Send + Sync`; one mutex, held only for a map lookup or insert, never while
/// encoding). Bounded: it holds at most `capacity` entries in two generations; when the newer
/// generation fills half the capacity the older one is discarded, and an entry found in the older
/// generation is moved to the newer one. That approximates least-recently-used eviction at the
/// cost of a hash map lookup. An entry is about 40 bytes, so the default (262,144 entries) stays
/// near 10 MiB. Counts are a pure function of their key, so eviction only costs time, never
/// correctness; a 128-bit XXH3 key makes collisions negligible.
pub struct TokenCache {
    capacity: usize,
    generations: Mutex<Generations>,
    hits: AtomicU64,
    misses: AtomicU64,
}

#[derive(Default)]
struct Generations {
    current: HashMap<(u128, Encoding), u64>,
    previous: HashMap<(u128, Encoding), u64>,
}

/// Counters of a [`TokenCache`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub entries: usize,
    pub capacity: usize,
}

impl TokenCache {
    /// The default capacity, in entries.
    pub(crate) const DEFAULT_CAPACITY: usize = 1 << 18;

    /// A cache with `Self::DEFAULT_CAPACITY`.
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// A cache holding at most `capacity` entries (at least 2).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(2),
            generations: Mutex::new(Generations::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Generations> {
        crate::sync::lock(&self.generations)
    }

    fn get(&self, key: (u128, Encoding)) -> Option<u64> {
        let mut generations = self.lock();
        if let Some(&count) = generations.current.get(&key) {
            return Some(count);
        }
        let count = generations.previous.remove(&key)?;
        self.insert_locked(&mut generations, key, count);
        Some(count)
    }

    fn insert_locked(&self, generations: &mut Generations, key: (u128, Encoding), count: u64) {
        generations.current.insert(key, count);
        if generations.current.len() >= self.capacity / 2 {
            generations.previous = std::mem::take(&mut generations.current);
        }
    }

    /// Counts `text` in `encoding`, from the cache when it has it.
    pub fn count(&self, encoding: Encoding, text: &str) -> Result<u64, TokenizerError> {
        self.count_hashed(encoding, text, content_hash(text))
    }

    pub(crate) fn count_hashed(
        &self,
        encoding: Encoding,
        text: &str,
        hash: u128,
    ) -> Result<u64, TokenizerError> {
        let key = (hash, encoding);
        if let Some(count) = self.get(key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(count);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let count = encoding.count(text)?;
        let mut generations = self.lock();
        self.insert_locked(&mut generations, key, count);
        Ok(count)
    }

    /// Hits, misses and size so far.
    pub fn stats(&self) -> CacheStats {
        let generations = self.lock();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            entries: generations.current.len() + generations.previous.len(),
            capacity: self.capacity,
        }
    }

    /// Forgets every count (the counters are kept).
    pub fn clear(&self) {
        *self.lock() = Generations::default();
    }
}

impl Default for TokenCache {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenCache")
            .field("stats", &self.stats())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn family_mapping() {
        let o200k = [
            "gpt-4o",
            "gpt-4o-mini-2024-07-18",
            "GPT-4.1",
            "gpt-4.1-nano",
            "gpt-5",
            "gpt-5-mini",
            "o1",
            "o3-mini",
            "o4-mini-2025-04-16",
            "openai/gpt-4o",
            "ft:gpt-4o-mini:acme::abc",
            "chatgpt-4o-latest",
            "gpt-oss-20b",
        ];
        for m in o200k {
            assert_eq!(
                encoding_for_model(m),
                EncodingChoice {
                    encoding: Encoding::O200kBase,
                    exact: true
                },
                "{m}"
            );
        }
        for m in [
            "gpt-4",
            "gpt-4-turbo",
            "gpt-4-0613",
            "gpt-3.5-turbo",
            "gpt-35-turbo",
        ] {
            assert_eq!(
                encoding_for_model(m),
                EncodingChoice {
                    encoding: Encoding::Cl100kBase,
                    exact: true
                },
                "{m}"
            );
        }
        for m in [
            "deepseek-chat",
            "qwen-max",
            "claude-sonnet-4-5",
            "omni-moderation",
            "o",
            "llama3",
        ] {
            assert_eq!(
                encoding_for_model(m),
                EncodingChoice {
                    encoding: Encoding::Cl100kBase,
                    exact: false
                },
                "{m}"
            );
        }
    }

    #[test]
    fn counts_known_strings() {
        assert_eq!(Encoding::O200kBase.count("hello world").unwrap(), 2);
        assert_eq!(Encoding::Cl100kBase.count("hello world").unwrap(), 2);
        assert_eq!(Encoding::Cl100kBase.count("").unwrap(), 0);
        // Special-token spellings are ordinary text.
        assert!(Encoding::Cl100kBase.count("<|endoftext|>").unwrap() > 1);
    }

    #[test]
    fn cache_hits_and_bounds() {
        let cache = TokenCache::with_capacity(4);
        let a = cache.count(Encoding::Cl100kBase, "alpha beta").unwrap();
        assert_eq!(cache.count(Encoding::Cl100kBase, "alpha beta").unwrap(), a);
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses), (1, 1));
        // Same text, other encoding: another key.
        cache.count(Encoding::O200kBase, "alpha beta").unwrap();
        assert_eq!(cache.stats().misses, 2);
        for i in 0..100 {
            cache.count(Encoding::Cl100kBase, &format!("t{i}")).unwrap();
            assert!(cache.stats().entries <= 4);
        }
        cache.clear();
        assert_eq!(cache.stats().entries, 0);
    }

    #[test]
    fn cache_is_send_and_sync() {
        fn assert_sync<T: Send + Sync>() {}
        assert_sync::<TokenCache>();
    }
}
