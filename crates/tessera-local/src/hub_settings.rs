//! The model hub a person chose instead of Hugging Face (a mirror such as
//! <https://hf-mirror.com>) and the proxy downloads go through, checked before they are kept:
//! a wrong one would only show later as a download that fails for an unclear reason.

use reqwest::Url;

/// Why a hub address or proxy cannot be used, in words naming what was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HubSettingError {
    #[error("{what} `{given}` is not a web address: write it like {example}")]
    NotAUrl {
        what: &'static str,
        given: String,
        example: &'static str,
    },
    #[error("{what} `{given}` starts with `{scheme}:`; it must start with {allowed}")]
    WrongScheme {
        what: &'static str,
        given: String,
        scheme: String,
        allowed: &'static str,
    },
    #[error(
        "{what} `{given}` holds a user name or password, which Tessera never stores; put a proxy \
         that needs them in HTTPS_PROXY in your environment instead"
    )]
    Credentials { what: &'static str, given: String },
    #[error("{what} `{given}` has a `?` or `#` part: give the address alone")]
    HasQuery { what: &'static str, given: String },
}

const ADDRESS: &str = "the model hub address";
const PROXY: &str = "the download proxy";

/// A mirror's address as it is kept: `http(s)://host[:port][/path]` without a trailing `/`;
/// None for a blank one (the hub from `HF_ENDPOINT`, or Hugging Face).
pub fn check_hub_address(text: &str) -> Result<Option<String>, HubSettingError> {
    let given = text.trim();
    if given.is_empty() {
        return Ok(None);
    }
    let url = parse(ADDRESS, given, "https://hf-mirror.com")?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(HubSettingError::WrongScheme {
            what: ADDRESS,
            given: shown(given),
            scheme: url.scheme().to_owned(),
            allowed: "https:// (or http://)",
        });
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(HubSettingError::HasQuery {
            what: ADDRESS,
            given: shown(given),
        });
    }
    Ok(Some(given.trim_end_matches('/').to_owned()))
}

/// A proxy's address as it is kept: `http(s)://host:port`; None for a blank one (the on-device
/// provider's proxy, or the system's).
pub fn check_hub_proxy(text: &str) -> Result<Option<String>, HubSettingError> {
    let given = text.trim();
    if given.is_empty() {
        return Ok(None);
    }
    let url = parse(PROXY, given, "http://127.0.0.1:7890")?;
    if !matches!(url.scheme(), "http" | "https") {
        // reqwest is built without SOCKS: such a proxy would fail on every download.
        return Err(HubSettingError::WrongScheme {
            what: PROXY,
            given: shown(given),
            scheme: url.scheme().to_owned(),
            allowed: "http:// or https:// (SOCKS proxies are not supported)",
        });
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(HubSettingError::HasQuery {
            what: PROXY,
            given: shown(given),
        });
    }
    Ok(Some(given.trim_end_matches('/').to_owned()))
}

fn parse(what: &'static str, given: &str, example: &'static str) -> Result<Url, HubSettingError> {
    if given.contains('@') {
        return Err(HubSettingError::Credentials {
            what,
            given: shown(&redacted(given)),
        });
    }
    let not_a_url = || HubSettingError::NotAUrl {
        what,
        given: shown(given),
        example,
    };
    // `hf-mirror.com` alone parses as a URL of scheme-less nonsense; `localhost:8080` as scheme
    // `localhost`: both want `://` to be told apart from a typo.
    if !given.contains("://") || given.chars().any(char::is_whitespace) {
        return Err(not_a_url());
    }
    let url = Url::parse(given).map_err(|_| not_a_url())?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(not_a_url());
    }
    Ok(url)
}

/// `given` with what stands before its last `@` (a user name and password) hidden.
fn redacted(given: &str) -> String {
    let Some(at) = given.rfind('@') else {
        return given.to_owned();
    };
    let start = given.find("://").map_or(0, |s| s + 3).min(at);
    format!("{}[redacted]{}", &given[..start], &given[at..])
}

/// What was given, cut short if it is long (an error is read, not scrolled).
fn shown(given: &str) -> String {
    const MAX: usize = 120;
    if given.chars().count() <= MAX {
        given.to_owned()
    } else {
        let cut: String = given.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_is_an_http_address_kept_without_its_last_slash() {
        assert_eq!(
            check_hub_address(" https://hf-mirror.com/ "),
            Ok(Some("https://hf-mirror.com".to_owned()))
        );
        assert_eq!(
            check_hub_address("http://127.0.0.1:8080/hub"),
            Ok(Some("http://127.0.0.1:8080/hub".to_owned()))
        );
        assert_eq!(check_hub_address("  "), Ok(None));
        for (bad, says) in [
            (
                "hf-mirror.com",
                "is not a web address: write it like https://hf-mirror.com",
            ),
            ("https://", "is not a web address"),
            (
                "ftp://hf-mirror.com",
                "starts with `ftp:`; it must start with https://",
            ),
            ("https://u:p@hf-mirror.com", "user name or password"),
            ("https://hf-mirror.com/?x=1", "`?` or `#`"),
            ("https://hf mirror.com", "is not a web address"),
        ] {
            let err = check_hub_address(bad).expect_err(bad).to_string();
            assert!(err.starts_with("the model hub address `"), "{bad}: {err}");
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn a_proxy_is_http_or_https_and_never_holds_a_password() {
        assert_eq!(
            check_hub_proxy("http://127.0.0.1:7890"),
            Ok(Some("http://127.0.0.1:7890".to_owned()))
        );
        assert_eq!(check_hub_proxy(""), Ok(None));
        let socks = check_hub_proxy("socks5://127.0.0.1:1080")
            .expect_err("socks")
            .to_string();
        assert!(
            socks.contains("starts with `socks5:`") && socks.contains("SOCKS proxies are not"),
            "{socks}"
        );
        let secret = check_hub_proxy("http://me:pw@proxy:3128")
            .expect_err("credentials")
            .to_string();
        assert!(secret.contains("never stores"), "{secret}");
        assert!(
            !secret.contains("pw@"),
            "the password is not repeated: {secret}"
        );
        assert!(check_hub_proxy("127.0.0.1:7890").is_err());
    }
}
