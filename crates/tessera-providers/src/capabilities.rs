//! What well-known models can do, for models whose settings do not say.

use crate::config::WireKind;

/// Whether a model of this name takes images, guessed from its family.
pub fn guess_image_input(kind: WireKind, model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    if kind == WireKind::Anthropic {
        // Every Claude 3+ model takes images.
        return !m.starts_with("claude-2") && !m.starts_with("claude-instant");
    }
    const VISION: &[&str] = &[
        "gpt-4o",
        "gpt-4.1",
        "gpt-4-turbo",
        "gpt-5",
        "o1",
        "o3",
        "o4",
        "claude",
        "gemini",
        "qwen-vl",
        "qwen2-vl",
        "qwen2.5-vl",
        "qwen3-vl",
        "qvq",
        "llava",
        "vision",
        "pixtral",
        "glm-4v",
        "moonshot-v1-8k-vision",
        "kimi-k2.5",
        "gemma3",
        "llama3.2-vision",
        "minicpm-v",
    ];
    VISION.iter().any(|v| m.contains(v))
}
