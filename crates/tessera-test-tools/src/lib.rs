//! The testkit's tools, for the suites that drive the real `tessera serve` (and kill it mid-run):
//! a [`ToolPlugin`] the binary `tessera-with-test-tools` (the whole `tessera` command line with
//! this plugin, `tessera_cli::main_with`) adds, the way the desktop shell adds its native tools.
//! The product never carries them.
//!
//! - `test_slow_write` is a side-effecting call that appends a line to `test-tool-runs.log` in
//!   the data folder when it starts and then takes `ms` milliseconds, so a suite can kill the
//!   server while it runs and count how often it ran; `test_guarded_write` does the same but
//!   needs the person's consent. Both write the same resource, so the scheduler never lets two
//!   of them overlap.
//! - `test_slow_read` is concurrency-safe: it takes `ms` milliseconds, or, given `meet: n`,
//!   waits (at most `ms`) until `n` calls of it have started, so a suite proves calls overlapped
//!   without timing assumptions: `met: true` is only possible when they all ran at once.
//! - `test_image` returns a PNG filled with the colour `color` (`#rrggbb`) as a tool image
//!   (an attachment listed under `images`), so a suite can follow an image from a tool to the
//!   model and to the person.
//!
//! Every test tool also appends `<unix µs> start|end <tool> <tag>` to `test-tool-times.log`
//! (`tag` is an argument), so a suite can check the order calls ran in. A call that is cut off
//! (cancelled, killed) has a start line and no end line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_app::ToolPlugin;
use tessera_engine::tools::{
    attach_image, RegistryError, ToolContext, ToolFailure, ToolRegistry, ToolSpec, TOOL_IMAGES_KEY,
};
use tessera_protocol::mcp_cp::PermissionLevel;
use tessera_store::Store;

/// The file each run of a side-effecting test tool appends a line to.
pub const LOG: &str = "test-tool-runs.log";
/// The file every test tool appends its start and end to.
pub const TIMES: &str = "test-tool-times.log";

const SLOW_READ: &str = "test_slow_read";
/// How often `test_slow_read` looks whether the others it waits for have started.
const MEET_POLL: Duration = Duration::from_millis(10);

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ms": {"type": "integer", "minimum": 0, "maximum": 600000},
            "tag": {"type": "string"},
            "meet": {"type": "integer", "minimum": 1, "maximum": 100}
        }
    })
}

fn write_spec(name: &str, permission: PermissionLevel) -> ToolSpec {
    ToolSpec::new(
        name,
        "Test hook: records one run, then waits `ms` milliseconds.",
    )
    .input_schema(schema())
    .safe(false)
    .writes(["test-tool-log"])
    .permission(permission)
    .timeout_ms(600_000)
}

fn read_spec() -> ToolSpec {
    ToolSpec::new(
        SLOW_READ,
        "Test hook: waits `ms` milliseconds, or until `meet` calls of it have started.",
    )
    .input_schema(schema())
    .safe(true)
    .timeout_ms(600_000)
}

fn append(path: &Path, line: &str) -> Result<(), String> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    // One write per line: appends of a short line do not interleave with other calls' lines.
    file.write_all(format!("{line}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn now_us() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

fn tag(args: &Value) -> &str {
    args.get("tag").and_then(Value::as_str).unwrap_or("-")
}

/// Records the start or end of a call in the times log.
fn mark(data_dir: &Path, what: &str, name: &str, args: &Value) -> Result<(), String> {
    let line = format!("{} {what} {name} {}", now_us(), tag(args));
    append(&data_dir.join(TIMES), &line)
}

/// How many calls of `test_slow_read` the times log says have started.
fn reads_started(data_dir: &Path) -> usize {
    let needle = format!(" start {SLOW_READ} ");
    std::fs::read_to_string(data_dir.join(TIMES))
        .map(|t| t.lines().filter(|l| l.contains(&needle)).count())
        .unwrap_or(0)
}

fn ms_of(args: &Value) -> Duration {
    Duration::from_millis(args.get("ms").and_then(Value::as_u64).unwrap_or(0))
}

// The helpers fail with a message; the handler makes it a ToolFailure (a large error type).
async fn slow_write(data_dir: PathBuf, name: &'static str, args: Value) -> Result<Value, String> {
    append(&data_dir.join(LOG), &format!("{name} {args}"))?;
    mark(&data_dir, "start", name, &args)?;
    tokio::time::sleep(ms_of(&args)).await;
    mark(&data_dir, "end", name, &args)?;
    Ok(json!({"written": true}))
}

async fn slow_read(data_dir: PathBuf, args: Value) -> Result<Value, String> {
    mark(&data_dir, "start", SLOW_READ, &args)?;
    let limit = ms_of(&args);
    let mut result = json!({"tag": tag(&args)});
    match args.get("meet").and_then(Value::as_u64) {
        Some(n) => {
            let deadline = tokio::time::Instant::now() + limit;
            let met = loop {
                if reads_started(&data_dir) as u64 >= n {
                    break true;
                }
                if tokio::time::Instant::now() >= deadline {
                    break false;
                }
                tokio::time::sleep(MEET_POLL).await;
            };
            result["met"] = json!(met);
        }
        None => tokio::time::sleep(limit).await,
    }
    mark(&data_dir, "end", SLOW_READ, &args)?;
    Ok(result)
}

const IMAGE: &str = "test_image";

fn image_spec() -> ToolSpec {
    ToolSpec::new(
        IMAGE,
        "Test hook: returns a PNG filled with one colour, as an image.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
            "width": {"type": "integer", "minimum": 1, "maximum": 256},
            "height": {"type": "integer", "minimum": 1, "maximum": 256}
        },
        "required": ["color"]
    }))
    .safe(true)
}

/// A `width` × `height` PNG of one colour.
fn solid_png(rgb: [u8; 3], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let pixels: Vec<u8> = rgb
        .iter()
        .copied()
        .cycle()
        .take(3 * width as usize * height as usize)
        .collect();
    encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(&pixels))
        .map_err(|e| format!("cannot encode the PNG: {e}"))?;
    Ok(bytes)
}

fn image(store: &Store, args: &Value) -> Result<Value, String> {
    let color = args
        .get("color")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let rgb = u32::from_str_radix(color.trim_start_matches('#'), 16)
        .ok()
        .filter(|_| color.len() == 7)
        .map(|n| [(n >> 16) as u8, (n >> 8) as u8, n as u8])
        .ok_or_else(|| format!("`{color}` is not a #rrggbb colour"))?;
    let side = |key: &str| {
        args.get(key)
            .and_then(Value::as_u64)
            .map_or(16, |n| n.clamp(1, 256) as u32)
    };
    let (width, height) = (side("width"), side("height"));
    let bytes = solid_png(rgb, width, height)?;
    let mut entry = attach_image(store, &bytes, "image/png", Some(width), Some(height))
        .map_err(|e| format!("cannot store the image: {e}"))?;
    entry.name = Some(format!("{color} square"));
    Ok(json!({"color": color, TOOL_IMAGES_KEY: [entry]}))
}

/// Registers the test tools, writing their logs in `data_dir` and their images in `store`.
/// The test tools as a plugin: each registry the core builds gets them, writing their logs in
/// the data folder of the store they are given.
pub fn plugin() -> ToolPlugin {
    Arc::new(|registry: &mut ToolRegistry, store: &Arc<Store>| {
        register(registry, store.paths().root.clone(), store.clone())
    })
}

pub fn register(
    registry: &mut ToolRegistry,
    data_dir: PathBuf,
    store: Arc<Store>,
) -> Result<(), RegistryError> {
    for (name, permission) in [
        ("test_slow_write", PermissionLevel::None),
        ("test_guarded_write", PermissionLevel::UserConsent),
    ] {
        let dir = data_dir.clone();
        registry.register(
            write_spec(name, permission),
            move |args: Value, _ctx: ToolContext| {
                let run = slow_write(dir.clone(), name, args);
                async move { run.await.map_err(|m| ToolFailure::reported("io", m)) }
            },
        )?;
    }
    registry.register(read_spec(), move |args: Value, _ctx: ToolContext| {
        let run = slow_read(data_dir.clone(), args);
        async move { run.await.map_err(|m| ToolFailure::reported("io", m)) }
    })?;
    registry.register(image_spec(), move |args: Value, _ctx: ToolContext| {
        let store = store.clone();
        async move {
            tokio::task::spawn_blocking(move || image(&store, &args))
                .await
                .map_err(|e| ToolFailure::reported("io", e.to_string()))?
                .map_err(|m| ToolFailure::reported("io", m))
        }
    })?;
    Ok(())
}
