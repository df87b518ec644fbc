//! The one secret detector of the project: whether a name (a settings key, an environment
//! variable, a header, a command-line flag, a form field) names a secret, whether a value
//! looks like one, and how a server's identity (its command line, its URL) is written with
//! its secrets taken out.
//!
//! Names are read as whole words (`MYSQL_PWD`, `DB_PASSWORD`, `AUTH_TOKEN`, `SESSION_COOKIE`,
//! `api-key`, `accessToken` are secrets; `max_tokens`, `SESSION_TIMEOUT`, `AUTHOR`,
//! `PASSTHROUGH`, `keyboard` are not).

/// What stands where a secret was.
pub const REDACTED: &str = "[redacted]";

/// The words of a name: `x-api-key` → x, api, key; `accessToken` → access, token;
/// `MYSQL_PWD` → mysql, pwd.
pub fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_numeric();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Words that name a secret wherever they stand.
const SECRET_WORDS: &[&str] = &[
    "secret",
    "secrets",
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "credential",
    "credentials",
    "authorization",
    "bearer",
    "apikey",
    "privatekey",
    "accesskey",
    "cookie",
];

/// Words that name a secret as the last word of a name (`GITHUB_TOKEN`, `session_cookie`,
/// `gitlab_pat`, `DB_PASS`, `SENTRY_DSN`), not before another (`token_limit`, `token_url`,
/// `pass_through`).
const SECRET_LAST_WORDS: &[&str] = &["token", "pat", "key", "auth", "pass", "dsn"];

/// Endings of a word written without separators that name a secret (`PGPASSWORD`,
/// `clientsecret`, `GITHUBAPITOKEN`): checked on the word's end only, so `passwordless` or
/// `tokenizer` are not secrets.
const SECRET_WORD_ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "apikey",
    "privatekey",
    "accesskey",
    "authtoken",
    "accesstoken",
    "apitoken",
];

/// Words before a final `key` that make it not a secret (`sort_key`, `primary_key`).
const KEY_NOT_SECRET: &[&str] = &[
    "sort",
    "primary",
    "foreign",
    "partition",
    "cache",
    "idempotency",
    "hot",
    "shortcut",
    "public",
];

/// Whether `name` names a secret.
pub fn is_secret_name(name: &str) -> bool {
    let words = words(name);
    if words.iter().any(|w| {
        SECRET_WORDS.contains(&w.as_str()) || SECRET_WORD_ENDINGS.iter().any(|e| w.ends_with(e))
    }) {
        return true;
    }
    // `api key`, `private key`, `access key` written as two words.
    if words.windows(2).any(|pair| {
        matches!(
            (pair[0].as_str(), pair[1].as_str()),
            (
                "api" | "private" | "access" | "secret" | "signing" | "encryption",
                "key"
            )
        )
    }) {
        return true;
    }
    let Some(last) = words.last().map(String::as_str) else {
        return false;
    };
    if !SECRET_LAST_WORDS.contains(&last) {
        return false;
    }
    let Some(before) = words.len().checked_sub(2).map(|i| words[i].as_str()) else {
        return true;
    };
    // `requires_key`, `has_token`: a setting about a secret, not one.
    let flag = FLAG_WORDS.contains(&before);
    let not_a_key = last == "key" && KEY_NOT_SECRET.contains(&before);
    !(flag || not_a_key)
}

/// Words before a final secret word that make the name a flag about it.
const FLAG_WORDS: &[&str] = &[
    "requires", "require", "has", "have", "needs", "need", "uses", "use", "with", "without", "no",
    "missing", "is", "show", "hide", "allow", "enable", "disable", "max", "min",
];

/// Prefixes of well-known key formats.
const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
    "hf_",
    "npm_",
    "pypi-",
];

/// Whether `value` looks like a credential whatever it is called: an `Authorization` value,
/// a well-known key format, a JSON Web Token.
pub fn looks_like_secret_value(value: &str) -> bool {
    let v = value.trim();
    if v.starts_with("Bearer ") || v.starts_with("Basic ") {
        return true;
    }
    let tokenish = v.len() >= 16
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '+' | '='));
    if !tokenish {
        return false;
    }
    KEY_PREFIXES.iter().any(|p| v.starts_with(p))
        || (v.starts_with("eyJ") && v.matches('.').count() == 2)
}

/// Whether `value` is a URL carrying a password (`postgres://app:pw@db/main`), as a
/// `DATABASE_URL` does whatever it is called.
pub fn has_url_password(value: &str) -> bool {
    let Some((_, rest)) = value.trim().split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority
        .rsplit_once('@')
        .is_some_and(|(user_info, _)| user_info.contains(':'))
}

/// The flag's name without its dashes, when `arg` is a flag (`--api-key`, `-token`).
fn flag_name(arg: &str) -> Option<&str> {
    let name = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))?;
    (!name.is_empty() && !name.starts_with('-')).then_some(name)
}

/// Which arguments of a command line hold a secret, and where: the whole argument (a value
/// after a secret-named flag, a value that looks like a key) or the part after `=` of
/// `--token=…`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretArg {
    Whole,
    /// The value starts at this byte.
    ValueFrom(usize),
}

/// The secret arguments of `args`, by index.
pub fn secret_args(args: &[String]) -> Vec<(usize, SecretArg)> {
    let mut out = Vec::new();
    let mut after_secret_flag = false;
    for (i, arg) in args.iter().enumerate() {
        if after_secret_flag && flag_name(arg).is_none() {
            out.push((i, SecretArg::Whole));
            after_secret_flag = false;
            continue;
        }
        after_secret_flag = false;
        if let Some(flag) = flag_name(arg) {
            match flag.split_once('=') {
                Some((name, value)) if is_secret_name(name) && !value.is_empty() => {
                    out.push((i, SecretArg::ValueFrom(arg.len() - value.len())));
                }
                Some(_) => {}
                None => after_secret_flag = is_secret_name(flag),
            }
            continue;
        }
        if let Some((name, value)) = arg.split_once('=') {
            // `TOKEN=…` passed as an argument (e.g. to `env`).
            if is_secret_name(name) && !value.is_empty() && !name.contains('/') {
                out.push((i, SecretArg::ValueFrom(name.len() + 1)));
                continue;
            }
        }
        if looks_like_secret_value(arg) {
            out.push((i, SecretArg::Whole));
        }
    }
    out
}

/// `args` with every secret replaced by [`REDACTED`].
pub fn redact_args(args: &[String]) -> Vec<String> {
    let mut out = args.to_vec();
    for (i, place) in secret_args(args) {
        out[i] = match place {
            SecretArg::Whole => REDACTED.to_owned(),
            SecretArg::ValueFrom(at) => format!("{}{REDACTED}", &args[i][..at]),
        };
    }
    out
}

/// `url` with its credentials replaced by [`REDACTED`]: user info, and query values whose
/// name is a secret's or that look like keys (`?api-version=…` stays). A provider's base URL
/// is shown this way; `url` itself when it holds none.
pub fn redact_url_credentials(url: &str) -> String {
    redact_url_with(url, |name, value| {
        is_secret_name(name) || looks_like_secret_value(value)
    })
}

/// `url` with its user info and every query value replaced by [`REDACTED`] (a URL's query
/// carries `access_token=…` as often as anything else). Text that is not a URL is returned
/// with only its key-like words redacted.
pub fn redact_url(url: &str) -> String {
    redact_url_with(url, |_, _| true)
}

fn redact_url_with(url: &str, secret_query: impl Fn(&str, &str) -> bool) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        // `user:pass@proxy:3128` (a proxy written without its scheme) has user info too.
        let authority_end = url.find(['?', '#']).unwrap_or(url.len());
        return match url[..authority_end].rfind('@') {
            Some(at) if !url.contains(char::is_whitespace) => {
                format!("{REDACTED}{}", &url[at..])
            }
            _ => redact_words(url),
        };
    };
    let (before_fragment, fragment) = match rest.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (rest, None),
    };
    let (before_query, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    // Everything before the last `@` is user info, even past a `/`: a password may hold one
    // unescaped, and showing too little of a URL is better than showing its password.
    let host_and_path = match before_query.rsplit_once('@') {
        Some((_, after)) => format!("{REDACTED}@{after}"),
        None => before_query.to_owned(),
    };
    let mut out = format!("{scheme}://{host_and_path}");
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if secret_query(name, value) => format!("{name}={REDACTED}"),
                _ => pair.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(if secret_query("", fragment) {
            "…"
        } else {
            fragment
        });
    }
    out
}

/// `text` with every whitespace-separated word that looks like a key, or follows a
/// secret-named flag, redacted (a failure reason that quotes a command line).
pub fn redact_words(text: &str) -> String {
    let args: Vec<String> = text.split(' ').map(str::to_owned).collect();
    if secret_args(&args).is_empty() {
        return text.to_owned();
    }
    redact_args(&args).join(" ")
}

/// `text` (an error message, a log line) with the credentials of every URL in it and every
/// key-looking word redacted.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let start = rest[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let end = rest[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '>' | '"' | '\'' | ','))
            .map_or(rest.len(), |i| at + i);
        out.push_str(&redact_words(&rest[..start]));
        out.push_str(&redact_url_credentials(&rest[start..end]));
        rest = &rest[end..];
    }
    out.push_str(&redact_words(rest));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_as_whole_words() {
        for secret in [
            "MYSQL_PWD",
            "DB_PASSWORD",
            "AUTH_TOKEN",
            "SESSION_COOKIE",
            "api-key",
            "x-api-key",
            "apiKey",
            "API_KEY",
            "OPENAI_KEY",
            "token",
            "access_token",
            "refreshToken",
            "client_secret",
            "Authorization",
            "private_key",
            "key",
            "aws_secret_access_key",
            "GITLAB_PAT",
            "bearer",
            "credentials",
            "X-Auth",
            "DB_PASS",
            "SMTP_PWD",
            "PGPASSWORD",
            "MYSQL_ROOT_PASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SSH_PRIVATE_KEY",
            "SENTRY_DSN",
            "clientsecret",
            "GITHUBAPITOKEN",
        ] {
            assert!(is_secret_name(secret), "{secret}");
        }
        for setting in [
            "max_tokens",
            "SESSION_TIMEOUT",
            "AUTHOR",
            "PASSTHROUGH",
            "token_limit",
            "token_url",
            "base_url",
            "model",
            "keyboard",
            "monkey",
            "tokenizer",
            "key_prefix",
            "sort_key",
            "SECRETARY",
            "author_name",
            "requires_key",
            "has_token",
            "max_token",
            "PATH",
            "AUTHOR_NAME",
            "pass_through",
            "passwordless",
            "BYPASS",
            "COMPASS",
            "DSN_TIMEOUT",
        ] {
            assert!(!is_secret_name(setting), "{setting}");
        }
    }

    #[test]
    fn values_that_look_like_keys() {
        for secret in [
            "Bearer abc",
            "ghp_0123456789abcdefghij",
            "sk-proj-0123456789abcdef",
            "github_pat_11ABCDEFG0123456789",
            "AKIAIOSFODNN7EXAMPLE",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
        ] {
            assert!(looks_like_secret_value(secret), "{secret}");
        }
        for plain in [
            "stdio",
            "--port",
            "skeleton-key-maker",
            "/usr/bin/node",
            "sk-1",
        ] {
            assert!(!looks_like_secret_value(plain), "{plain}");
        }
    }

    #[test]
    fn a_url_with_a_password_is_a_secret_value() {
        assert!(has_url_password("postgres://app:pw@db.example/main"));
        assert!(has_url_password("https://u:p@h.example/x?y=1"));
        assert!(!has_url_password("https://user@h.example/x"));
        assert!(!has_url_password("https://h.example/x?email=a@b.c"));
        assert!(!has_url_password("not a url"));
    }

    #[test]
    fn a_command_line_keeps_its_shape_without_its_secrets() {
        let args: Vec<String> = [
            "server.js",
            "--token",
            "hunter2",
            "--api-key=abc123",
            "--port",
            "8080",
            "ghp_0123456789abcdefghij",
            "GITHUB_TOKEN=xyz",
            "--verbose",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            redact_args(&args),
            [
                "server.js",
                "--token",
                "[redacted]",
                "--api-key=[redacted]",
                "--port",
                "8080",
                "[redacted]",
                "GITHUB_TOKEN=[redacted]",
                "--verbose"
            ]
        );
        // A secret flag followed by another flag has no value to hide.
        let args: Vec<String> = ["--token", "--verbose"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(secret_args(&args).is_empty());
    }

    #[test]
    fn a_url_keeps_its_host_and_path_only() {
        assert_eq!(
            redact_url("https://user:pass@api.example.com/mcp?access_token=abc&x=1#frag"),
            "https://[redacted]@api.example.com/mcp?access_token=[redacted]&x=[redacted]#…"
        );
        assert_eq!(
            redact_url("http://127.0.0.1:8080/mcp"),
            "http://127.0.0.1:8080/mcp"
        );
        assert_eq!(
            redact_url_credentials("https://u:p@h.example/v1?api-version=2024&key=abc#x"),
            "https://[redacted]@h.example/v1?api-version=2024&key=[redacted]#x"
        );
        let plain = "https://api.deepseek.com/v1";
        assert_eq!(redact_url_credentials(plain), plain);
        assert_eq!(
            redact_text("error sending request for url (https://me:pw@h.example/v1/chat?key=sk-1): refused"),
            "error sending request for url (https://[redacted]@h.example/v1/chat?key=[redacted]): refused"
        );
        assert_eq!(redact_text("no url here"), "no url here");
        assert_eq!(
            redact_words("node server.js --token hunter2"),
            "node server.js --token [redacted]"
        );
    }
}
