//! The models Tessera recommends: instruct models that call tools, in GGUF files anyone can
//! download without an account, small to large. A model pinned to a commit of its repository
//! comes from that commit and must have the SHA-256 pinned here, whatever the hub (or a
//! mirror) says; an unpinned one comes from `main` and must have the hub's SHA-256
//! ([`crate::download::Hub::remote`]). The sizes here are for choosing.

use serde::Serialize;

use crate::download::HubFile;

/// How large a model is, and so what it asks of the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Small,
    Medium,
    Large,
}

/// One recommended model.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogueModel {
    /// Tessera's name for it: `tessera local pull ID`.
    pub id: &'static str,
    pub name: &'static str,
    pub tier: Tier,
    pub repo: &'static str,
    pub file: &'static str,
    /// The file's size, about (the hub's figure is checked at download).
    pub approx_bytes: u64,
    pub licence: &'static str,
    /// What it is good at, in English and in Chinese.
    pub good_at: &'static str,
    pub good_at_zh: &'static str,
    /// The commit and hash the file is downloaded at and checked against.
    pub pin: Option<Pin>,
}

/// A file of a repository at one commit, and its SHA-256 there.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Pin {
    /// A commit of the repository (40 hex digits), never a branch that moves.
    pub revision: &'static str,
    /// Lower-case hex, as the hub gives it.
    pub sha256: &'static str,
}

impl CatalogueModel {
    pub fn hub_file(&self) -> HubFile {
        HubFile {
            repo: self.repo.to_owned(),
            revision: self.pin.map_or("main", |p| p.revision).to_owned(),
            file: self.file.to_owned(),
        }
    }
}

/// Small, medium and large, in that order.
pub const CATALOGUE: &[CatalogueModel] = &[
    CatalogueModel {
        id: "qwen2.5-1.5b-instruct",
        name: "Qwen2.5 1.5B Instruct (Q4_K_M)",
        tier: Tier::Small,
        repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
        file: "qwen2.5-1.5b-instruct-q4_k_m.gguf",
        approx_bytes: 1_120_000_000,
        licence: "Apache-2.0",
        good_at: "Quick answers and simple tool calls on any machine with 4 GB of memory; \
                  English, Chinese and 27 more languages.",
        good_at_zh: "任何有 4 GB 内存的电脑都能跑：回答快，能做简单的工具调用；支持中文、英文等 29 种语言。",
        pin: Some(Pin {
            revision: "91cad51170dc346986eccefdc2dd33a9da36ead9",
            sha256: "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
        }),
    },
    CatalogueModel {
        id: "qwen2.5-7b-instruct",
        name: "Qwen2.5 7B Instruct (Q4_K_M)",
        tier: Tier::Medium,
        repo: "bartowski/Qwen2.5-7B-Instruct-GGUF",
        file: "Qwen2.5-7B-Instruct-Q4_K_M.gguf",
        approx_bytes: 4_680_000_000,
        licence: "Apache-2.0",
        good_at: "Everyday agent work: reliable tool calls and forms, code, long documents \
                  (128k context), Chinese and English; needs about 8 GB of memory.",
        good_at_zh: "日常代理工作：工具调用和表单稳定，能写代码、读长文档（128k 上下文），中英文俱佳；约需 8 GB 内存。",
        pin: None,
    },
    CatalogueModel {
        id: "mistral-small-24b-instruct",
        name: "Mistral Small 24B Instruct 2501 (Q4_K_M)",
        tier: Tier::Large,
        repo: "bartowski/Mistral-Small-24B-Instruct-2501-GGUF",
        file: "Mistral-Small-24B-Instruct-2501-Q4_K_M.gguf",
        approx_bytes: 14_300_000_000,
        licence: "Apache-2.0",
        good_at: "The best answers and multi-step tool use of the three, close to hosted models; \
                  needs about 20 GB of memory and is slow without a GPU.",
        good_at_zh: "三者中回答和多步工具调用最好，接近云端模型；约需 20 GB 内存，没有显卡时较慢。",
        pin: None,
    },
];

/// The catalogue's model named `id`.
pub fn find(id: &str) -> Option<&'static CatalogueModel> {
    CATALOGUE.iter().find(|m| m.id == id)
}

/// The SHA-256 the catalogue pins for `file`: only for a catalogue model's file at its pinned
/// commit (another revision asked for by name is another file, checked by the hub's hash).
pub fn pinned_sha256(file: &HubFile) -> Option<&'static str> {
    CATALOGUE
        .iter()
        .filter(|m| m.repo == file.repo && m.file == file.file)
        .filter_map(|m| m.pin)
        .find(|p| p.revision == file.revision)
        .map(|p| p.sha256)
}

/// The largest model whose file takes at most 40 % of the machine's memory (the rest is the
/// context's cache, the app and everything else the person runs); the small one when memory
/// is unknown or below every threshold.
pub fn recommended(total_memory: Option<u64>) -> &'static CatalogueModel {
    let fits = |m: &&CatalogueModel| {
        total_memory
            .is_some_and(|memory| m.approx_bytes.saturating_mul(5) <= memory.saturating_mul(2))
    };
    CATALOGUE
        .iter()
        .filter(fits)
        .max_by_key(|m| m.tier)
        .unwrap_or(&CATALOGUE[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1_000_000_000;

    #[test]
    fn the_default_follows_the_machines_memory() {
        assert_eq!(recommended(None).tier, Tier::Small);
        assert_eq!(recommended(Some(4 * GB)).tier, Tier::Small);
        assert_eq!(recommended(Some(16 * GB)).tier, Tier::Medium);
        assert_eq!(recommended(Some(24 * GB)).tier, Tier::Medium);
        assert_eq!(recommended(Some(64 * GB)).tier, Tier::Large);
    }

    #[test]
    fn ids_are_unique_and_files_are_gguf() {
        for (i, m) in CATALOGUE.iter().enumerate() {
            assert!(m.file.ends_with(".gguf"), "{}", m.id);
            assert!(CATALOGUE[i + 1..].iter().all(|o| o.id != m.id), "{}", m.id);
            assert_eq!(find(m.id).map(|f| f.file), Some(m.file));
        }
    }

    #[test]
    fn a_pin_is_a_commit_and_a_sha256() {
        for m in CATALOGUE {
            let Some(pin) = m.pin else { continue };
            let hex = |s: &str, len| {
                s.len() == len
                    && s.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            };
            assert!(hex(pin.revision, 40), "{}: revision {}", m.id, pin.revision);
            assert!(hex(pin.sha256, 64), "{}: sha256 {}", m.id, pin.sha256);
            let file = m.hub_file();
            assert_eq!(file.revision, pin.revision, "{}", m.id);
            assert_eq!(pinned_sha256(&file), Some(pin.sha256), "{}", m.id);
            let moved = HubFile {
                revision: "main".into(),
                ..file
            };
            assert_eq!(
                pinned_sha256(&moved),
                None,
                "{}: main is not the pinned file",
                m.id
            );
        }
    }
}
