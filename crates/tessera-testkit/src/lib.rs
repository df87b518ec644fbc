//! Helpers every suite shares: `tessera serve` as a child process, plain HTTP to loopback, and
//! the scripted model provider.

pub mod event_order;
pub mod http;
pub mod hub;
pub mod keyring;
pub mod pki;
pub mod proxy;
pub mod scripted;
pub mod server;
