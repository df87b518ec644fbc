//! `tessera-scripted-provider [--script replies.json] [--model NAME]…`: the scripted model
//! provider as a process (listing the models named, for `GET /v1/models`), for suites that drive Tessera from outside (the UI end-to-end tests). Prints
//! `Listening on http://127.0.0.1:PORT` and serves until killed; `POST /_script` queues more
//! replies, `GET /_requests` lists what was received.

use anyhow::Context;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut script = None;
    let mut models = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--script" => script = args.next(),
            "--model" => models.extend(args.next()),
            other => anyhow::bail!(
                "unknown argument `{other}` \
                 (usage: tessera-scripted-provider [--script FILE] [--model NAME]…)"
            ),
        }
    }
    let provider = ScriptedProvider::start()
        .await
        .context("cannot bind 127.0.0.1")?;
    let names: Vec<&str> = models.iter().map(String::as_str).collect();
    provider.set_models(&names);
    if let Some(path) = script {
        let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
        let replies: Vec<Reply> = serde_json::from_str(&text)
            .with_context(|| format!("{path} is not a list of replies"))?;
        for reply in replies {
            provider.push(reply);
        }
    }
    println!("Listening on {}", provider.url());
    tokio::signal::ctrl_c()
        .await
        .context("cannot wait for a signal")?;
    Ok(())
}
