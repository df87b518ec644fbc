//! The streamable HTTP transport with the server's configured headers. An `Authorization:
//! Bearer …` header goes through rmcp's own auth header (it must not be sent twice).

use std::collections::HashMap;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use tessera_protocol::secrets::redact_words;

use crate::unavailable::ConnectError;

/// The most one answer of a server over HTTP may hold (JSON, or one event of a stream); past
/// it the call fails naming the limit. rmcp counts the bytes before parsing them.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// What is read of an HTTP error's body, for its message.
pub const MAX_ERROR_BYTES: usize = 64 * 1024;

pub(crate) fn transport(
    url: &str,
    headers: &[(String, String)],
) -> Result<StreamableHttpClientTransport<reqwest::Client>, ConnectError> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned())
        .max_json_response_size(MAX_ANSWER_BYTES)
        .max_sse_event_size(MAX_ANSWER_BYTES)
        .max_error_response_size(MAX_ERROR_BYTES);
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
