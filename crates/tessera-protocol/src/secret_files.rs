//! The secret detector's view of files: which files hold secrets by their name (`.env`, private
//! keys, key stores, credential files) and which texts hold one (a private key block, a
//! well-known key format, `API_KEY=…` with a real-looking value). What it flags is never
//! indexed, embedded or sent to a model.

use crate::secrets::{is_secret_name, looks_like_secret_value};

/// Why a file is taken for a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretFinding {
    /// Its name: `.env`, `id_rsa`, `*.pem`, a key store…
    Name,
    /// A `-----BEGIN … PRIVATE KEY-----` block.
    PrivateKey,
    /// A token in a well-known key format (`sk-…`, `ghp_…`, `AKIA…`, a JWT).
    KeyFormat,
    /// A secret-named setting given a literal value (`DB_PASSWORD=hunter2x`).
    Assignment,
}

impl std::fmt::Display for SecretFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Name => "its name is that of a secrets file",
            Self::PrivateKey => "it holds a private key",
            Self::KeyFormat => "it holds an API key or token",
            Self::Assignment => "it sets a password, token or key",
        })
    }
}

const SECRET_FILE_NAMES: &[&str] = &[
    ".env",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "credentials",
    "credentials.json",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".htpasswd",
    "secrets.json",
    "secrets.yaml",
    "secrets.yml",
    "keychain-db",
];

const SECRET_EXTENSIONS: &[&str] = &[
    "pem", "key", "p12", "pfx", "jks", "keystore", "kdbx", "gpg", "asc", "ppk", "der", "crt",
    "cer", "p8", "ovpn", "tfstate",
];

/// Whether a file is a secrets file by its name alone.
pub fn is_secret_file_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if SECRET_FILE_NAMES.contains(&lower.as_str()) {
        return true;
    }
    // `.env.local`, `.env.production`, `prod.env`; not `.envrc`-like tool files' siblings.
    if lower.starts_with(".env.") || lower.ends_with(".env") {
        return true;
    }
    lower
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && SECRET_EXTENSIONS.contains(&ext))
}

/// Values that stand in for a secret rather than being one.
fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.len() < 8
        || value.starts_with('$')
        || value.starts_with('<')
        || value.starts_with('{')
        || value.starts_with('%')
        || value.contains("${")
        || value
            .chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || [
            "example",
            "changeme",
            "your",
            "placeholder",
            "redacted",
            "dummy",
            "todo",
            "none",
            "null",
            "process.env",
            "os.environ",
            "getenv",
        ]
        .iter()
        .any(|w| lower.contains(w))
}

/// A `name = value` / `name: value` / `"name": "value"` on one line: the name and the value.
fn assignment(line: &str) -> Option<(&str, &str)> {
    let at = line.find(['=', ':'])?;
    let name = line[..at]
        .trim()
        .trim_start_matches("export ")
        .trim_matches(|c| c == '"' || c == '\'');
    if name.is_empty() || name.contains(char::is_whitespace) || name.len() > 64 {
        return None;
    }
    let value = line[at + 1..]
        .trim()
        .trim_end_matches([',', ';'])
        .trim_matches(|c| c == '"' || c == '\'');
    (!value.is_empty() && !value.contains(char::is_whitespace)).then_some((name, value))
}

/// What in `text` is a secret, if anything.
pub fn find_secret_in_text(text: &str) -> Option<SecretFinding> {
    if text.contains("PRIVATE KEY-----") && text.contains("-----BEGIN ") {
        return Some(SecretFinding::PrivateKey);
    }
    for line in text.lines() {
        let line = line.trim();
        if line.len() > 4096 {
            continue;
        }
        let words = line.split(|c: char| {
            c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '=' | ':' | ',' | '(' | ')' | ';')
        });
        if words.into_iter().any(looks_like_secret_value) {
            return Some(SecretFinding::KeyFormat);
        }
        if let Some((name, value)) = assignment(line) {
            if is_secret_name(name) && !is_placeholder(value) {
                return Some(SecretFinding::Assignment);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_files_are_known_by_name() {
        for name in [
            ".env",
            ".env.local",
            "prod.env",
            "id_rsa",
            "server.PEM",
            "a.kdbx",
            ".netrc",
        ] {
            assert!(is_secret_file_name(name), "{name}");
        }
        for name in [
            "notes.md",
            "env.rs",
            ".envrc.md",
            "keyboard.txt",
            "pem",
            "main.key.rs",
        ] {
            assert!(!is_secret_file_name(name), "{name}");
        }
    }

    #[test]
    fn secrets_in_text_are_found_and_ordinary_code_is_not() {
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----";
        assert_eq!(find_secret_in_text(key), Some(SecretFinding::PrivateKey));
        assert_eq!(
            find_secret_in_text("client = Client(api_key=\"sk-proj-abcdefghijklmnop1234\")"),
            Some(SecretFinding::KeyFormat)
        );
        assert_eq!(
            find_secret_in_text("DB_PASSWORD=hunter2-horse-battery"),
            Some(SecretFinding::Assignment)
        );
        assert_eq!(
            find_secret_in_text("  \"apiKey\": \"q8Zr7LmP2vX9wK\","),
            Some(SecretFinding::Assignment)
        );
        for fine in [
            "let token = get_token();",
            "password = os.environ[\"DB_PASSWORD\"]",
            "API_KEY=your-api-key-here",
            "max_tokens: 4096",
            "The password must be at least 8 characters.",
            "秘钥：请在设置中填写",
        ] {
            assert_eq!(find_secret_in_text(fine), None, "{fine}");
        }
    }
}
