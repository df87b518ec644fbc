//! Whether the person's message can be answered at all. A message whose tokens alone pass the
//! model's window, less what is kept for the answer, is refused before its run starts, naming
//! the window: otherwise it would be stored and the run would fail once begun. Local models'
//! 4–16k windows make this common.

use tessera_providers::ProviderConfig;

use super::TurnError;
use crate::assembler::encoding_for_model;

/// The window assumed for a model whose settings name none.
pub(crate) const DEFAULT_WINDOW: u64 = 128_000;
/// Tokens kept for the answer when the turn sets no `max_tokens`.
pub(crate) const DEFAULT_RESERVE: u64 = 8_000;

/// A long text is counted piece by piece: the tokenizer's cost grows faster than linearly
/// within one unbroken word, and a count can stop once the window is passed.
const PIECE_BYTES: usize = 1024;
/// How far back from a piece's end a cut looks for a space, so words stay whole.
const CUT_LOOKBACK: usize = 128;

/// The model's window and the tokens of it kept for the answer (`max_tokens`, at most half).
pub(crate) fn budget(config: &ProviderConfig, model: &str, max_tokens: Option<u32>) -> (u64, u64) {
    let window = config
        .model(model)
        .and_then(|m| m.context_window)
        .unwrap_or(DEFAULT_WINDOW);
    let reserve = max_tokens
        .map_or(DEFAULT_RESERVE, u64::from)
        .min(window / 2);
    (window, reserve)
}

/// Refuses `text` when it cannot fit `model`'s window even alone, with
/// [`TurnError::MessageTooLong`] naming the tokens it needs and the window.
pub fn check_message_fits(
    config: &ProviderConfig,
    model: &str,
    text: &str,
    max_tokens: Option<u32>,
) -> Result<(), TurnError> {
    let (window, reserved) = budget(config, model, max_tokens);
    let available = window.saturating_sub(reserved);
    // A token is at least one byte: most messages are shorter than the window in bytes and
    // need no count.
    if text.len() as u64 <= available {
        return Ok(());
    }
    let encoding = encoding_for_model(model).encoding;
    let mut counted_bytes = 0usize;
    let mut tokens = 0u64;
    let mut rest = text;
    while !rest.is_empty() {
        let cut = cut_at(rest);
        let (piece, after) = rest.split_at(cut);
        tokens += encoding
            .count(piece)
            .map_err(|err| TurnError::Internal(err.to_string()))?;
        counted_bytes += piece.len();
        rest = after;
        if tokens > available {
            break;
        }
    }
    if tokens <= available {
        return Ok(());
    }
    // What was not counted is estimated at the rate of what was.
    let needed = if counted_bytes < text.len() {
        (tokens as f64 * text.len() as f64 / counted_bytes.max(1) as f64).ceil() as u64
    } else {
        tokens
    };
    Err(TurnError::MessageTooLong {
        needed,
        window,
        reserved,
        model: model.to_owned(),
    })
}

/// Where the next piece of `text` ends: before a space near [`PIECE_BYTES`] when there is one,
/// else at a character boundary.
fn cut_at(text: &str) -> usize {
    if text.len() <= PIECE_BYTES {
        return text.len();
    }
    let mut end = PIECE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut start = end.saturating_sub(CUT_LOOKBACK);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    match text[start..end].rfind(char::is_whitespace) {
        Some(at) if start + at > 0 => start + at,
        _ => end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_providers::config::{ModelSettings, WireKind};

    fn config(window: u64) -> ProviderConfig {
        let mut config = ProviderConfig::new("p", WireKind::Openai, "http://127.0.0.1:1");
        config.models.insert(
            "m".into(),
            ModelSettings {
                context_window: Some(window),
                ..ModelSettings::default()
            },
        );
        config
    }

    #[test]
    fn a_message_within_the_window_passes_and_one_past_it_is_refused_naming_it() {
        let words = "the quick brown fox jumps over the lazy dog ".repeat(2_000);
        assert!(check_message_fits(&config(1_000_000), "m", &words, None).is_ok());
        let refused = check_message_fits(&config(4_096), "m", &words, None);
        let Err(err @ TurnError::MessageTooLong { .. }) = refused else {
            panic!("{refused:?}");
        };
        if let TurnError::MessageTooLong {
            needed,
            window,
            reserved,
            ..
        } = &err
        {
            assert_eq!((*window, *reserved), (4_096, 2_048));
            // 9 words a sentence, about one token each.
            assert!((17_000..=19_000).contains(needed), "{needed}");
        }
        let text = err.to_string();
        assert!(
            text.contains("the model's window is 4096 tokens, 2048 of them kept"),
            "{text}"
        );
    }

    #[test]
    fn pieces_end_before_a_space_or_at_a_character_boundary() {
        let text = format!("{} tail", "a".repeat(1_500));
        let cut = cut_at(&text);
        assert_eq!(cut, PIECE_BYTES);
        let spaced = format!("{} {}", "b".repeat(1_000), "c".repeat(600));
        assert_eq!(cut_at(&spaced), 1_000);
        for wide in ["界".repeat(1_000), format!("a{}", "界".repeat(1_000))] {
            let cut = cut_at(&wide);
            assert!(cut > 0 && wide.is_char_boundary(cut), "{cut}");
        }
    }
}
