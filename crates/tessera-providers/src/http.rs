//! The HTTP client of one provider: system or per-provider proxy, extra trusted CAs, connect
//! timeout. Built once per provider and reused, so connections are kept alive.

use reqwest::{Certificate, Client, ClientBuilder, Proxy};

use crate::config::ProviderConfig;
use crate::error::{ProviderError, Result};

/// What to do instead of saving proxy credentials (secrets never enter the database).
pub const PROXY_CREDENTIALS_ADVICE: &str = "put a proxy that needs credentials in HTTPS_PROXY \
     or HTTP_PROXY in your environment instead (http://user:password@host:port), and leave the \
     provider on the system proxy";

/// Whether a proxy URL carries a user name or password (`http://user:pass@host:port`, with or
/// without a scheme). Any `@` counts: a proxy URL has no other use for one.
pub fn has_userinfo(url: &str) -> bool {
    url.contains('@')
}

/// `url` with its user info (whatever stands before its last `@`) and secret query values
/// replaced by `[redacted]`, so that it can be shown: `http://user:pass@host:8080` becomes
/// `http://[redacted]@host:8080`. The project's one URL redaction
/// ([`tessera_protocol::secrets::redact_url_credentials`]).
pub fn redact_userinfo(url: &str) -> String {
    tessera_protocol::secrets::redact_url_credentials(url)
}

/// Builds the client for `config`. A per-provider proxy with credentials (from settings saved
/// before they were refused) is a [`ProviderError::Config`]; no error shows credentials.
pub fn build_client(config: &ProviderConfig) -> Result<Client> {
    client_builder(config)?.build().map_err(|err| {
        ProviderError::Config(format!(
            "provider {}: cannot build the HTTP client: {err}",
            config.name
        ))
    })
}

/// Everything of [`build_client`] but the build itself, which sets up TLS (the system's trusted
/// certificates parsed, a few MB): the proxy and the extra certificates checked and read.
pub fn client_builder(config: &ProviderConfig) -> Result<ClientBuilder> {
    let mut builder = network_builder(
        &format!("provider {}", config.name),
        config.proxy.as_deref(),
        &config.extra_ca_certs,
        config.timeouts.connect(),
    )?;
    if plain_http_only(config) {
        // Nothing this client reaches speaks TLS, so it loads none of the system's trusted
        // certificates (parsing them took a one-shot command most of its start). OpenSSL loads
        // them whatever it is told, so the client gets rustls with no root at all. A redirect
        // to https is then refused, saying what to change, rather than failing on a
        // certificate it cannot check.
        // Installed once for the process; only such clients use rustls.
        let _ = rustls::crypto::ring::default_provider().install_default();
        builder = builder
            .tls_backend_rustls()
            .tls_certs_only(Vec::new())
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                if attempt.url().scheme() == "https" {
                    let to = redact_userinfo(attempt.url().as_str());
                    attempt.error(RedirectedToHttps(to))
                } else if attempt.previous().len() >= 10 {
                    attempt.stop()
                } else {
                    attempt.follow()
                }
            }));
    }
    Ok(builder)
}

/// A client builder with a proxy and extra trusted certificates, as a provider has them; for
/// anything else Tessera downloads (`owner` names it in errors, e.g. "downloads"). `proxy`:
/// none or empty for the system's settings (HTTP(S)_PROXY, NO_PROXY), `"none"` for no proxy,
/// else its URL (never with credentials: those stay in the environment).
pub fn network_builder(
    owner: &str,
    proxy: Option<&str>,
    extra_ca_certs: &[std::path::PathBuf],
    connect: std::time::Duration,
) -> Result<ClientBuilder> {
    let mut builder = Client::builder()
        .connect_timeout(connect)
        .user_agent(concat!("Tessera/", env!("CARGO_PKG_VERSION")))
        .tcp_nodelay(true);
    match proxy.map(str::trim) {
        None | Some("") => {} // reqwest reads HTTP(S)_PROXY / NO_PROXY itself
        Some("none") => builder = builder.no_proxy(),
        Some(url) => {
            if has_userinfo(url) {
                return Err(ProviderError::Config(format!(
                    "{owner}: proxy `{}` holds a user name or password, which Tessera never \
                     stores; {PROXY_CREDENTIALS_ADVICE}",
                    redact_userinfo(url)
                )));
            }
            let proxy = Proxy::all(url).map_err(|err| {
                ProviderError::Config(format!(
                    "{owner}: proxy `{}` is not a usable URL: {err}",
                    redact_userinfo(url)
                ))
            })?;
            builder = builder.proxy(proxy);
        }
    }
    for path in extra_ca_certs {
        let pem = std::fs::read(path).map_err(|err| {
            ProviderError::Config(format!(
                "{owner}: cannot read CA certificate {}: {err}",
                path.display()
            ))
        })?;
        let certs = Certificate::from_pem_bundle(&pem).map_err(|err| {
            ProviderError::Config(format!(
                "{owner}: {} holds no PEM certificate: {err}",
                path.display()
            ))
        })?;
        if certs.is_empty() {
            return Err(ProviderError::Config(format!(
                "{owner}: {} holds no PEM certificate",
                path.display()
            )));
        }
        for cert in certs {
            builder = builder.add_root_certificate(cert);
        }
    }
    Ok(builder)
}

/// A plain-HTTP provider sent the call to an https address.
#[derive(Debug, thiserror::Error)]
#[error("the provider redirected to {0}: set its base URL to that https address")]
struct RedirectedToHttps(String);

/// Whether the provider and every proxy its calls may go through are plain `http://`.
fn plain_http_only(config: &ProviderConfig) -> bool {
    let plain = |url: &str| url.trim().to_ascii_lowercase().starts_with("http://");
    if !plain(&config.base_url) || !config.extra_ca_certs.is_empty() {
        return false;
    }
    match config.proxy.as_deref().map(str::trim) {
        Some("none") => true,
        Some(url) if !url.is_empty() => plain(url),
        // The system proxy: reqwest reads these for an http:// address.
        _ => ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
            .iter()
            .filter_map(|name| std::env::var(name).ok())
            .filter(|value| !value.trim().is_empty())
            .all(|value| plain(&value) || !value.contains("://")),
    }
}

/// `base` joined with `path`, without doubled or missing slashes.
pub fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_is_redacted() {
        for (url, shown) in [
            (
                "http://user:pass@proxy:8080",
                "http://[redacted]@proxy:8080",
            ),
            ("https://user@proxy:8080/", "https://[redacted]@proxy:8080/"),
            (
                "http://us@er:p@ss/w:rd@proxy:3128",
                "http://[redacted]@proxy:3128",
            ),
            ("user:pass@proxy:8080", "[redacted]@proxy:8080"),
            ("http://proxy:8080", "http://proxy:8080"),
            ("not a url", "not a url"),
        ] {
            assert_eq!(redact_userinfo(url), shown);
            assert_eq!(has_userinfo(url), url != shown, "{url}");
        }
    }

    #[test]
    fn a_proxy_with_credentials_is_refused_without_showing_them() {
        for proxy in [
            "http://alice:s3cret@127.0.0.1:3128",
            "http://alice:s3cret@",
            "alice:s3cret@127.0.0.1:3128",
            "ftp://alice:s3cret@127.0.0.1:3128",
        ] {
            let mut config = ProviderConfig::new("p", crate::WireKind::Openai, "http://x/");
            config.proxy = Some(proxy.into());
            let Err(err) = build_client(&config) else {
                panic!("{proxy}: a client was built")
            };
            assert!(matches!(err, ProviderError::Config(_)), "{err:?}");
            let text = err.to_string();
            assert!(
                !text.contains("s3cret") && !text.contains("alice"),
                "{text}"
            );
            assert!(text.contains("[redacted]@"), "{text}");
            assert!(text.contains("HTTPS_PROXY or HTTP_PROXY"), "{text}");
        }
    }

    #[test]
    fn errors_about_other_proxies_show_no_credentials_either() {
        let mut config = ProviderConfig::new("p", crate::WireKind::Openai, "http://x/");
        config.proxy = Some("http://proxy:8080".into());
        assert!(build_client(&config).is_ok());
        config.proxy = Some("http://[::1".into());
        let Err(err) = build_client(&config) else {
            panic!("a client was built")
        };
        assert!(err
            .to_string()
            .contains("proxy `http://[::1` is not a usable URL"));
    }
}
