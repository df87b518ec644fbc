//! Where the time of one answer went.

use std::time::{Duration, Instant};

use crate::engine::Finish;

/// Where one answer's time went, logged at its end (info): the split the bench and a slow
/// machine's owner need between llama.cpp's own work and the worker's.
pub struct Clock {
    started: Instant,
    prefill: Duration,
    prefill_tokens: usize,
    pub decode: Duration,
    pub sample: Duration,
}

impl Clock {
    pub fn new() -> Self {
        Self {
            started: Instant::now(),
            prefill: Duration::ZERO,
            prefill_tokens: 0,
            decode: Duration::ZERO,
            sample: Duration::ZERO,
        }
    }

    pub fn prefilled(&mut self, tokens: usize) {
        self.prefill = self.started.elapsed();
        self.prefill_tokens = tokens;
    }

    pub fn log(&self, reason: Finish, completion_tokens: u32) {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let total = self.started.elapsed();
        let rest = total.saturating_sub(self.prefill + self.decode + self.sample);
        tracing::info!(
            ?reason,
            prefill_tokens = self.prefill_tokens,
            prefill_ms = ms(self.prefill),
            completion_tokens,
            decode_ms = ms(self.decode),
            sample_ms = ms(self.sample),
            other_ms = ms(rest),
            "answer done"
        );
    }
}
