//! Request guards for the loopback API: a bearer token compared in constant time, and Host/Origin
//! checks so that a web page on another origin (or a DNS-rebinding attack) cannot reach the API.

use std::sync::Arc;

use axum::{
    extract::{Request, State},
    http::{header, HeaderMap, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
    Json,
};
use serde_json::json;
use subtle::ConstantTimeEq;

/// What a request must match to be let through.
#[derive(Debug, Clone)]
pub struct Guard {
    token: String,
    /// `host:port` spellings that name this server (127.0.0.1:p, localhost:p, [::1]:p).
    allowed_hosts: Vec<String>,
}

impl Guard {
    pub fn new(token: String, port: u16) -> Self {
        let allowed_hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        Self {
            token,
            allowed_hosts,
        }
    }

    fn host_ok(&self, headers: &HeaderMap) -> bool {
        match headers.get(header::HOST).and_then(|h| h.to_str().ok()) {
            Some(host) => self
                .allowed_hosts
                .iter()
                .any(|a| a.eq_ignore_ascii_case(host)),
            // HTTP/1.0 clients may omit Host; they can only be local tools.
            None => true,
        }
    }

    fn origin_ok(&self, headers: &HeaderMap) -> bool {
        match headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) {
            None => true,
            Some(origin) => self.allowed_hosts.iter().any(|a| {
                origin.eq_ignore_ascii_case(&format!("http://{a}"))
                    || origin.eq_ignore_ascii_case(&format!("tauri://{a}"))
            }),
        }
    }

    fn token_ok(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
        else {
            return false;
        };
        let Some(presented) = value.strip_prefix("Bearer ") else {
            return false;
        };
        presented.as_bytes().ct_eq(self.token.as_bytes()).into()
    }
}

fn refuse(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        Json(json!({ "error": { "code": code, "message": message } })),
    )
        .into_response()
}

/// Every request: the Host header must name this server.
pub async fn check_host(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    if !guard.host_ok(req.headers()) {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "BAD_HOST",
            "the Host header does not name this server",
        );
    }
    next.run(req).await
}

/// API requests: same-origin (or no Origin) and the bearer token.
pub async fn check_api(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    if !guard.origin_ok(req.headers()) {
        return refuse(
            StatusCode::FORBIDDEN,
            "BAD_ORIGIN",
            "requests from another origin are refused",
        );
    }
    if !guard.token_ok(req.headers()) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "a valid bearer token is required",
        );
    }
    next.run(req).await
}

/// A fresh random token: 32 bytes, hex.
pub fn new_token() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k.clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn token_must_match_exactly() {
        let g = Guard::new("abc".into(), 1);
        assert!(g.token_ok(&headers(&[(header::AUTHORIZATION, "Bearer abc")])));
        assert!(!g.token_ok(&headers(&[(header::AUTHORIZATION, "Bearer abd")])));
        assert!(!g.token_ok(&headers(&[(header::AUTHORIZATION, "Bearer ab")])));
        assert!(!g.token_ok(&headers(&[(header::AUTHORIZATION, "abc")])));
        assert!(!g.token_ok(&HeaderMap::new()));
    }

    #[test]
    fn foreign_hosts_and_origins_are_refused() {
        let g = Guard::new("t".into(), 4000);
        assert!(g.host_ok(&headers(&[(header::HOST, "127.0.0.1:4000")])));
        assert!(g.host_ok(&headers(&[(header::HOST, "localhost:4000")])));
        assert!(!g.host_ok(&headers(&[(header::HOST, "evil.example:4000")])));
        assert!(!g.host_ok(&headers(&[(header::HOST, "127.0.0.1:4001")])));
        assert!(g.origin_ok(&headers(&[(header::ORIGIN, "http://127.0.0.1:4000")])));
        assert!(!g.origin_ok(&headers(&[(header::ORIGIN, "http://evil.example")])));
    }

    #[test]
    fn tokens_are_random_and_long() {
        let a = new_token();
        assert_eq!(a.len(), 64);
        assert_ne!(a, new_token());
    }
}
