//! `tessera-fake-hub FILE [--bytes-per-second N]`: a model hub on 127.0.0.1 serving FILE as
//! every file of every repository, the way Hugging Face answers a download (a redirect with
//! the size and SHA-256, ranges honoured), for suites that drive Tessera from outside (the UI
//! and desktop end-to-end tests set `HF_ENDPOINT` to it). Prints `Listening on
//! http://127.0.0.1:PORT` and serves until killed.

use std::sync::Arc;

use anyhow::Context;
use tessera_testkit::hub::{serve, Hosted};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut rate = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bytes-per-second" => {
                let value = args.next().context("--bytes-per-second needs a number")?;
                rate = Some(
                    value
                        .parse::<u64>()
                        .with_context(|| format!("--bytes-per-second {value}: not a number"))?,
                );
            }
            other if file.is_none() && !other.starts_with('-') => file = Some(other.to_owned()),
            other => anyhow::bail!(
                "unknown argument `{other}` (usage: tessera-fake-hub FILE [--bytes-per-second N])"
            ),
        }
    }
    let file = file.context("usage: tessera-fake-hub FILE [--bytes-per-second N]")?;
    let content = std::fs::read(&file).with_context(|| format!("cannot read {file}"))?;
    let endpoint = serve(Arc::new(Hosted {
        content,
        bytes_per_second: rate,
        ..Hosted::default()
    }))
    .await
    .context("cannot bind 127.0.0.1")?;
    println!("Listening on {endpoint}");
    tokio::signal::ctrl_c()
        .await
        .context("cannot wait for a signal")?;
    Ok(())
}
