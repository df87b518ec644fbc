//! The token budget: what the window leaves for the prompt, the policy knobs, and the ledger the
//! selection passes draw from.

use serde::{Deserialize, Serialize};

use super::AssembleError;

/// Tunable parts of the assembly. [`AssemblePolicy::default`] is what the engine uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AssemblePolicy {
    /// The history threshold and cap, as a fraction of the available tokens (0 to 1).
    ///
    /// While the conversation's non-system messages together fit in this share, they are all
    /// sent and the rolling summary is not used. Once they exceed it, the summary stands in for
    /// the messages it covers. Either way the messages are chosen newest first within this share
    /// before the non-`must` blocks, so blocks can never evict the recent conversation and the
    /// conversation can never take more than its share from `high` blocks; tokens left after the
    /// blocks extend the history further back (see `backfill` in the explanation).
    pub history_share: f64,
    /// Also use the summary once there are more than this many non-system messages, whatever
    /// their size. `None`: tokens decide alone.
    pub max_history_messages: Option<usize>,
    /// Tokens each prompt item costs besides its content (role and framing; OpenAI's chat format
    /// costs 3 per message plus the role's token).
    pub per_item_overhead: u64,
    /// Tokens the whole prompt costs once (the reply primer, `<|start|>assistant<|message|>`).
    pub priming_overhead: u64,
    /// Treat the newest message (normally the turn's user input) like a `must` block: without it
    /// the prompt would not ask anything.
    pub keep_latest_message: bool,
}

impl Default for AssemblePolicy {
    fn default() -> Self {
        Self {
            history_share: 0.5,
            max_history_messages: None,
            per_item_overhead: 4,
            priming_overhead: 3,
            keep_latest_message: true,
        }
    }
}

impl AssemblePolicy {
    pub(crate) fn validate(&self) -> Result<(), AssembleError> {
        if !(0.0..=1.0).contains(&self.history_share) {
            return Err(AssembleError::InvalidPolicy {
                message: format!("history_share {} is not within 0..=1", self.history_share),
            });
        }
        Ok(())
    }

    /// The history cap in tokens for `available` tokens.
    pub(crate) fn history_cap(&self, available: u64) -> u64 {
        // Within 0..=1 (validated), so the product fits; floor keeps it under `available`.
        ((available as f64) * self.history_share).floor() as u64
    }
}

/// The budget figures of one assembly, as stored in the explanation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct BudgetReport {
    /// The model's context window.
    pub window: u64,
    /// Tokens kept free for the answer.
    pub reserved: u64,
    /// `window - reserved`: what the prompt may use.
    pub available: u64,
    /// What the prompt uses: every included item's tokens plus `priming_overhead`; never more
    /// than `available`.
    pub used: u64,
    /// Tokens of `must` items (the system prompt, the tool declarations, system messages,
    /// `must` blocks, the newest message).
    pub must: u64,
    /// Tokens of the agent's system prompt (with its per-item overhead); 0 in explanations
    /// written before it was counted.
    #[serde(default)]
    #[ts(optional, as = "Option<u64>")]
    pub system_prompt: u64,
    /// Tokens of the tool declarations sent with the prompt; 0 in explanations written before
    /// they were counted.
    #[serde(default)]
    #[ts(optional, as = "Option<u64>")]
    pub tools: u64,
    /// The history cap (`history_share` of `available`).
    pub history_cap: u64,
    /// Tokens of included messages and the summary (system messages excluded).
    pub history_used: u64,
    /// Per-item overhead included in each item's tokens.
    pub per_item_overhead: u64,
    /// Counted once in `used`.
    pub priming_overhead: u64,
}

/// What is left to spend.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ledger {
    available: u64,
    used: u64,
}

impl Ledger {
    pub(crate) fn new(window: u64, reserved: u64) -> Result<Self, AssembleError> {
        if reserved >= window {
            return Err(AssembleError::InvalidBudget { window, reserved });
        }
        Ok(Self {
            available: window - reserved,
            used: 0,
        })
    }

    pub(crate) fn available(&self) -> u64 {
        self.available
    }

    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    pub(crate) fn remaining(&self) -> u64 {
        self.available.saturating_sub(self.used)
    }

    pub(crate) fn fits(&self, tokens: u64) -> bool {
        tokens <= self.remaining()
    }

    /// Spends `tokens` if they fit.
    pub(crate) fn take(&mut self, tokens: u64) -> bool {
        if self.fits(tokens) {
            self.used += tokens;
            true
        } else {
            false
        }
    }

    /// Spends unconditionally (the `must` pass checks the total itself).
    pub(crate) fn force(&mut self, tokens: u64) {
        self.used = self.used.saturating_add(tokens);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn ledger_never_overspends() {
        let mut ledger = Ledger::new(100, 30).unwrap();
        assert_eq!(ledger.available(), 70);
        assert!(ledger.take(60));
        assert!(!ledger.take(11));
        assert!(ledger.take(10));
        assert_eq!(ledger.remaining(), 0);
        assert!(matches!(
            Ledger::new(10, 10),
            Err(AssembleError::InvalidBudget { .. })
        ));
    }

    #[test]
    fn policy_bounds() {
        let policy = AssemblePolicy {
            history_share: 1.5,
            ..AssemblePolicy::default()
        };
        assert!(policy.validate().is_err());
        let nan = AssemblePolicy {
            history_share: f64::NAN,
            ..AssemblePolicy::default()
        };
        assert!(nan.validate().is_err());
        assert_eq!(AssemblePolicy::default().history_cap(1001), 500);
    }
}
