//! The streamable HTTP transport with the server's configured headers. An `Authorization:
//! Bearer …` header goes through rmcp's own auth header (it must not be sent twice).

use std::collections::HashMap;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use tessera_protocol::secrets::redact_words;

use crate::unavailable::ConnectError;

pub(crate) fn transport(
    url: &str,
    headers: &[(String, String)],
) -> Result<StreamableHttpClientTransport<reqwest::Client>, ConnectError> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    let mut custom = HashMap::new();
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("authorization") {
            if let Some(token) = value.strip_prefix("Bearer ") {
                config = config.auth_header(token.trim().to_owned());
                continue;
            }
        }
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| ConnectError::HeaderName(redact_words(name)))?;
        // The value is not shown: it may be a secret.
        let value = HeaderValue::from_str(value)
            .map_err(|_| ConnectError::HeaderValue(redact_words(name)))?;
        custom.insert(header, value);
    }
    Ok(StreamableHttpClientTransport::from_config(
        config.custom_headers(custom),
    ))
}
