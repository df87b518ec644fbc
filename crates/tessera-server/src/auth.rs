//! Request guards for the loopback API: a bearer token compared in constant time, and Host/Origin
//! checks so that a web page on another origin (or a DNS-rebinding attack) cannot reach the API.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use tessera_protocol::error_codes::ErrorCode;

use axum::{
    extract::{connect_info::Connected, ConnectInfo, Request, State},
    http::{header, HeaderMap, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
    serve::IncomingStream,
    Json,
};
use serde_json::json;
use subtle::ConstantTimeEq;

/// The address a connection arrived at, on this server's side (`tessera serve` records it for
/// each connection). A server listening on every interface learns from it which of the
/// machine's addresses the client used, and so which Host header is honest.
#[derive(Clone, Copy, Debug)]
pub struct LocalAddr(pub Option<SocketAddr>);

impl Connected<IncomingStream<'_, tokio::net::TcpListener>> for LocalAddr {
    fn connect_info(stream: IncomingStream<'_, tokio::net::TcpListener>) -> Self {
        Self(stream.io().local_addr().ok())
    }
}

/// What a request must match to be let through.
#[derive(Debug, Clone)]
pub struct Guard {
    token: String,
    /// `host:port` spellings that name this server (127.0.0.1:p, localhost:p, [::1]:p).
    allowed_hosts: Vec<String>,
    port: u16,
    /// `--allow-remote`: clients on other machines; an Origin must then be the very Host the
    /// request was sent to.
    remote: bool,
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
            port,
            remote: false,
        }
    }

    /// A guard for a server reachable from the network (`--allow-remote`).
    pub fn allowing_remote(mut self) -> Self {
        self.remote = true;
        self
    }

    /// The Host names this server: a loopback spelling, or the IP address the connection
    /// arrived at (never a DNS name other than localhost, so DNS rebinding stays out), with
    /// this server's port.
    fn host_ok(&self, headers: &HeaderMap, local: Option<IpAddr>) -> bool {
        let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
            // HTTP/1.0 clients may omit Host; they can only be local tools.
            return true;
        };
        if self
            .allowed_hosts
            .iter()
            .any(|a| a.eq_ignore_ascii_case(host))
        {
            return true;
        }
        match (split_host(host), local) {
            (Some((ip, port)), Some(local)) => {
                port == self.port && ip.to_canonical() == local.to_canonical()
            }
            _ => false,
        }
    }

    fn origin_ok(&self, headers: &HeaderMap) -> bool {
        let Some(origin) = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) else {
            return true;
        };
        // check_host has let the Host through: a page served from it is same-origin.
        let same_as_host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|host| origin.eq_ignore_ascii_case(&format!("http://{host}")));
        if self.remote {
            return same_as_host;
        }
        same_as_host
            || self.allowed_hosts.iter().any(|a| {
                origin.eq_ignore_ascii_case(&format!("http://{a}"))
                    || origin.eq_ignore_ascii_case(&format!("tauri://{a}"))
            })
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

/// `1.2.3.4:80` or `[::1]:80` as an IP address and a port; None for names and anything else.
fn split_host(host: &str) -> Option<(IpAddr, u16)> {
    let addr: SocketAddr = host.parse().ok()?;
    Some((addr.ip(), addr.port()))
}

fn local_ip(req: &Request) -> Option<IpAddr> {
    req.extensions()
        .get::<ConnectInfo<LocalAddr>>()
        .and_then(|info| info.0 .0)
        .map(|addr| addr.ip())
}

/// The door's refusal, in the shape of the route asked: on `/v1/requests` a whole seed-003
/// response object (seed 003 §2.2: 即使请求失败, 也应返回完整响应结构; no `trace_id`, the door
/// reads no body), elsewhere under `/v1` an MCP-CP ERROR_RESPONSE (seed 000 §7.2, a missing or
/// wrong token being its own example, `AUTH_FAILED`). Every shape keeps `error.code` with the
/// door's own code, as before.
fn refuse(req: &Request, status: StatusCode, code: ErrorCode, message: &str) -> Response {
    let path = req
        .extensions()
        .get::<axum::extract::OriginalUri>()
        .map_or_else(|| req.uri().path().to_owned(), |u| u.path().to_owned());
    let legacy = json!({ "code": code, "message": message });
    let body = if path == "/v1/requests" || path.starts_with("/v1/requests/") {
        json!({"status": "error", "outputs": [], "error": legacy})
    } else if path.starts_with("/v1/") {
        let wire_code = if status == StatusCode::UNAUTHORIZED {
            ErrorCode::AuthFailed
        } else {
            code
        };
        let mut body = serde_json::to_value(crate::api::ApiError::new(wire_code, message).body())
            .unwrap_or_else(|_| json!({}));
        body["error"] = legacy;
        body
    } else {
        json!({ "error": legacy })
    };
    (status, Json(body)).into_response()
}

/// Every request: the Host header must name this server.
pub async fn check_host(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    if !guard.host_ok(req.headers(), local_ip(&req)) {
        return refuse(
            &req,
            StatusCode::MISDIRECTED_REQUEST,
            ErrorCode::BadHost,
            "the Host header does not name this server",
        );
    }
    next.run(req).await
}

/// API requests: same-origin (or no Origin) and the bearer token.
pub async fn check_api(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    if !guard.origin_ok(req.headers()) {
        return refuse(
            &req,
            StatusCode::FORBIDDEN,
            ErrorCode::BadOrigin,
            "requests from another origin are refused",
        );
    }
    if !guard.token_ok(req.headers()) {
        return refuse(
            &req,
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
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
        let lo = Some(IpAddr::from([127, 0, 0, 1]));
        assert!(g.host_ok(&headers(&[(header::HOST, "127.0.0.1:4000")]), lo));
        assert!(g.host_ok(&headers(&[(header::HOST, "localhost:4000")]), lo));
        assert!(!g.host_ok(&headers(&[(header::HOST, "evil.example:4000")]), lo));
        assert!(!g.host_ok(&headers(&[(header::HOST, "127.0.0.1:4001")]), lo));
        assert!(g.origin_ok(&headers(&[(header::ORIGIN, "http://127.0.0.1:4000")])));
        assert!(!g.origin_ok(&headers(&[(header::ORIGIN, "http://evil.example")])));
    }

    #[test]
    fn the_address_a_connection_arrived_at_is_an_honest_host() {
        let g = Guard::new("t".into(), 4000).allowing_remote();
        let lan = Some(IpAddr::from([192, 168, 1, 5]));
        assert!(g.host_ok(&headers(&[(header::HOST, "192.168.1.5:4000")]), lan));
        assert!(!g.host_ok(&headers(&[(header::HOST, "192.168.1.6:4000")]), lan));
        assert!(!g.host_ok(&headers(&[(header::HOST, "192.168.1.5:4001")]), lan));
        assert!(!g.host_ok(&headers(&[(header::HOST, "mybox.lan:4000")]), lan));
        assert!(!g.host_ok(&headers(&[(header::HOST, "192.168.1.5:4000")]), None));
        // A dual-stack socket reports IPv4 clients as mapped IPv6 addresses.
        let mapped = Some(IpAddr::from(
            std::net::Ipv4Addr::new(192, 168, 1, 5).to_ipv6_mapped(),
        ));
        assert!(g.host_ok(&headers(&[(header::HOST, "192.168.1.5:4000")]), mapped));
    }

    #[test]
    fn remotely_an_origin_must_be_the_host_it_was_sent_to() {
        let g = Guard::new("t".into(), 4000).allowing_remote();
        let sent = |host: &str, origin: &str| {
            g.origin_ok(&headers(&[(header::HOST, host), (header::ORIGIN, origin)]))
        };
        assert!(sent("192.168.1.5:4000", "http://192.168.1.5:4000"));
        assert!(!sent("192.168.1.5:4000", "http://evil.example"));
        assert!(!sent("192.168.1.5:4000", "http://127.0.0.1:4000"));
        assert!(sent("127.0.0.1:4000", "http://127.0.0.1:4000"));
        assert!(g.origin_ok(&headers(&[(header::HOST, "192.168.1.5:4000")])));
    }

    #[test]
    fn tokens_are_random_and_long() {
        let a = new_token();
        assert_eq!(a.len(), 64);
        assert_ne!(a, new_token());
    }
}
