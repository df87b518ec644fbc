//! The `/v1` API of a running `tessera serve`, as the UI calls it: JSON in, JSON out.

use reqwest::Method;
use serde_json::Value;
use tessera_testkit::server::RunningServer;

/// A server and a client holding its token.
pub struct Api {
    pub server: RunningServer,
    client: reqwest::Client,
}

/// A status and the body (JSON, or the text as a string when it is not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub text: String,
}

impl Answer {
    /// Asserts an ERROR_RESPONSE with this status and code, and returns its message.
    pub fn error(&self, status: u16, code: &str) -> String {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(self.body["type"], "ERROR_RESPONSE", "{}", self.text);
        assert_eq!(self.body["content"]["errorCode"], code, "{}", self.text);
        self.body["content"]["message"].as_str().unwrap().to_owned()
    }

    /// Asserts the status and returns the body.
    pub fn ok(&self, status: u16) -> &Value {
        assert_eq!(self.status, status, "{}", self.text);
        &self.body
    }
}

impl Api {
    pub fn start(cmd: std::process::Command) -> Self {
        Self {
            server: RunningServer::spawn(cmd).unwrap(),
            client: reqwest::Client::builder().no_proxy().build().unwrap(),
        }
    }

    pub async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Answer {
        let mut request = self
            .client
            .request(method, format!("{}/v1{path}", self.server.base))
            .bearer_auth(&self.server.token);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()));
        Answer { status, body, text }
    }

    /// Sends `body` as it is (not necessarily JSON).
    pub async fn raw(&self, method: Method, path: &str, body: &str) -> Answer {
        let response = self
            .client
            .request(method, format!("{}/v1{path}", self.server.base))
            .bearer_auth(&self.server.token)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()));
        Answer { status, body, text }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Answer {
        self.call(Method::POST, path, Some(body)).await
    }

    pub async fn put(&self, path: &str, body: &Value) -> Answer {
        self.call(Method::PUT, path, Some(body)).await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Answer {
        self.call(Method::PATCH, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> Answer {
        self.call(Method::DELETE, path, None).await
    }
}
