//! Tools for the suites that drive the real `tessera serve` and kill it mid-run: registered only
//! when `TESSERA_TEST_TOOLS=1` is set, never otherwise. `test_slow_write` is a side-effecting
//! call that appends a line to `test-tool-runs.log` in the data folder when it starts and then
//! takes `ms` milliseconds, so a suite can kill the server while it runs and count how often
//! it ran; `test_guarded_write` does the same but needs the person's consent.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use tessera_engine::tools::{ToolContext, ToolFailure, ToolRegistry, ToolSpec};
use tessera_protocol::mcp_cp::PermissionLevel;

/// The variable that turns the test tools on.
pub const ENV: &str = "TESSERA_TEST_TOOLS";
/// The file each run of a test tool appends a line to.
pub const LOG: &str = "test-tool-runs.log";

/// Whether the test tools were asked for.
pub fn wanted() -> bool {
    std::env::var(ENV).is_ok_and(|v| v == "1")
}

fn spec(name: &str, permission: PermissionLevel) -> ToolSpec {
    ToolSpec::new(
        name,
        "Test hook: records one run, then waits `ms` milliseconds.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 600000}}
    }))
    .safe(false)
    .writes(["test-tool-log"])
    .permission(permission)
    .timeout_ms(600_000)
}

fn run(log: PathBuf, name: &'static str, args: &Value) -> Result<(), String> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    writeln!(file, "{name} {args}")
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", log.display()))
}

/// Registers the test tools, writing their log in `data_dir`.
pub fn register(registry: &mut ToolRegistry, data_dir: PathBuf) -> anyhow::Result<()> {
    for (name, permission) in [
        ("test_slow_write", PermissionLevel::None),
        ("test_guarded_write", PermissionLevel::UserConsent),
    ] {
        let log = data_dir.join(LOG);
        registry.register(
            spec(name, permission),
            move |args: Value, _ctx: ToolContext| {
                let log = log.clone();
                async move {
                    run(log, name, &args).map_err(|m| ToolFailure::new("io", m))?;
                    let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok::<_, ToolFailure>(json!({"written": true}))
                }
            },
        )?;
    }
    Ok(())
}
