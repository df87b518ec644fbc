//! Helpers every suite shares. Later issues add the scripted model provider here.

pub mod http;
pub mod server;
