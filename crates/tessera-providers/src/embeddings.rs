//! Embeddings from an OpenAI-compatible provider (`POST {base}/embeddings`: OpenAI, Ollama,
//! LM Studio, vLLM…), for the knowledge index. The answer is read within [`MAX_EMBEDDINGS_BYTES`]
//! and [`TIMEOUT`], and must hold one vector per input, all of one length.

use std::time::Duration;

use serde::Deserialize;

use crate::client::ProviderClient;
use crate::error::{ProviderError, Result};
use crate::http::join_url;
use crate::limits::{read_response, read_start, WholeBodyError, MAX_EMBEDDINGS_BYTES};

/// How long one call may take.
pub const TIMEOUT: Duration = Duration::from_secs(120);
/// Longest vector taken.
pub const MAX_DIMENSIONS: usize = 8_192;

#[derive(Deserialize)]
struct Answer {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

impl ProviderClient {
    /// One vector per input, in the inputs' order.
    pub async fn embed(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>> {
        let config = self.config();
        let provider = config.name.clone();
        let decode = |message: String| ProviderError::Decode {
            provider: provider.clone(),
            message,
        };
        let network = |err: reqwest::Error| ProviderError::Network {
            provider: provider.clone(),
            message: err.to_string(),
        };
        let (base_url, headers) = self.endpoint_for(model).await?;
        let response = self
            .http_client()?
            .post(join_url(&base_url, "embeddings"))
            .headers(headers)
            .json(&serde_json::json!({
                "model": model,
                "input": inputs,
                "encoding_format": "float",
            }))
            .timeout(TIMEOUT)
            .send()
            .await
            .map_err(network)?;
        let status = response.status();
        if !status.is_success() {
            return Err(ProviderError::Http {
                provider,
                status: status.as_u16(),
                kind: None,
                message: read_start(response, 500).await,
                retry_after: None,
            });
        }
        let body = read_response(response, MAX_EMBEDDINGS_BYTES, "the embeddings answer")
            .await
            .map_err(|err| match err {
                WholeBodyError::Transport(err) => network(err),
                WholeBodyError::TooLarge(err) => decode(err.to_string()),
            })?;
        let answer: Answer = serde_json::from_slice(&body)
            .map_err(|e| decode(format!("not an embeddings answer: {e}")))?;
        if answer.data.len() != inputs.len() {
            return Err(decode(format!(
                "{} vectors for {} inputs",
                answer.data.len(),
                inputs.len()
            )));
        }
        let mut out: Vec<Option<Vec<f32>>> = vec![None; inputs.len()];
        for (position, item) in answer.data.into_iter().enumerate() {
            let at = item.index.unwrap_or(position);
            if item.embedding.is_empty() || item.embedding.len() > MAX_DIMENSIONS {
                return Err(decode(format!(
                    "a vector of {} dimensions (1 to {MAX_DIMENSIONS} taken)",
                    item.embedding.len()
                )));
            }
            if item.embedding.iter().any(|v| !v.is_finite()) {
                return Err(decode("a vector holds a value that is not a number".into()));
            }
            match out.get_mut(at) {
                Some(slot @ None) => *slot = Some(item.embedding),
                _ => return Err(decode(format!("vector index {at} is out of place"))),
            }
        }
        let vectors: Vec<Vec<f32>> = out.into_iter().flatten().collect();
        if vectors.windows(2).any(|w| w[0].len() != w[1].len()) {
            return Err(decode("vectors of different lengths".into()));
        }
        Ok(vectors)
    }
}
