//! Providers whose address is known only when they are called: a local model's worker is
//! started on the first call (and again after it stopped), on a port and with a token of that
//! start. The client asks its [`EndpointSource`] before each call.

use std::future::Future;
use std::pin::Pin;

use crate::keys::Secret;

/// Where to send the next call.
#[derive(Debug, Clone)]
pub struct DynamicEndpoint {
    /// As a provider's `base_url` (OpenAI wire: up to and including `/v1`).
    pub base_url: String,
    pub key: Secret,
}

/// Finds (starting it when needed) the server that answers calls for `model`. The error is
/// shown to the person as it is: say what to do.
pub trait EndpointSource: Send + Sync {
    fn endpoint<'a>(
        &'a self,
        model: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<DynamicEndpoint, String>> + Send + 'a>>;
}
