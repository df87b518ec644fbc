//! The HTTP client of one provider: system or per-provider proxy, extra trusted CAs, connect
//! timeout. Built once per provider and reused, so connections are kept alive.

use reqwest::{Certificate, Client, Proxy};

use crate::config::ProviderConfig;
use crate::error::{ProviderError, Result};

/// Builds the client for `config`.
pub fn build_client(config: &ProviderConfig) -> Result<Client> {
    let mut builder = Client::builder()
        .connect_timeout(config.timeouts.connect())
        .user_agent(concat!("Tessera/", env!("CARGO_PKG_VERSION")))
        .tcp_nodelay(true);
    match config.proxy.as_deref().map(str::trim) {
        None | Some("") => {} // reqwest reads HTTP(S)_PROXY / NO_PROXY itself
        Some("none") => builder = builder.no_proxy(),
        Some(url) => {
            let proxy = Proxy::all(url).map_err(|err| {
                ProviderError::Config(format!(
                    "provider {}: proxy `{url}` is not a usable URL: {err}",
                    config.name
                ))
            })?;
            builder = builder.proxy(proxy);
        }
    }
    for path in &config.extra_ca_certs {
        let pem = std::fs::read(path).map_err(|err| {
            ProviderError::Config(format!(
                "provider {}: cannot read CA certificate {}: {err}",
                config.name,
                path.display()
            ))
        })?;
        let certs = Certificate::from_pem_bundle(&pem).map_err(|err| {
            ProviderError::Config(format!(
                "provider {}: {} holds no PEM certificate: {err}",
                config.name,
                path.display()
            ))
        })?;
        if certs.is_empty() {
            return Err(ProviderError::Config(format!(
                "provider {}: {} holds no PEM certificate",
                config.name,
                path.display()
            )));
        }
        for cert in certs {
            builder = builder.add_root_certificate(cert);
        }
    }
    builder.build().map_err(|err| {
        ProviderError::Config(format!(
            "provider {}: cannot build the HTTP client: {err}",
            config.name
        ))
    })
}

/// `base` joined with `path`, without doubled or missing slashes.
pub fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}
