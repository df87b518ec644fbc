//! `tessera run <file> [--simulate <tools.json>] [--events ndjson|none]`: runs an MCP-CP
//! INSTRUCTION or TOOL_CALL_REQUEST message on the executor and prints, one per line, the
//! easyflow-chat events as they happen (each `tool_call` event carries the arguments after
//! substitution), then, as the last line, the results:
//!
//! - for a TOOL_CALL_REQUEST, an MCP-CP TOOL_CALL_RESPONSE message whose `content.results`
//!   follow the request's order (`callId`, `status`, `result` or `error`, `executionTime`);
//! - for an INSTRUCTION, `{"results": {"<instructionId>": {"status", "result", "error"}}}`.
//!
//! A set that is refused (cycle, unknown reference, bad condition, not a valid message) prints
//! `refused: <reason>` and exits 1 without running anything. Exit 2: the command could not run
//! (unreadable file, bad simulation file). `--simulate` declares stand-in tools (see
//! `tessera_engine::tools::simulated`); a tool not declared there is unknown.

use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tessera_engine::executor::{EventSink, Executor, ExecutorOptions, NullSink};
use tessera_engine::tools::{simulated, ToolRegistry};
use tessera_protocol::easyflow::Event;
use tessera_protocol::mcp_cp::{Message, MessageContent, Sender, SenderType};
use tessera_protocol::wire::{JsonObject, Timestamp};
use tessera_protocol::DocumentKind;
use tokio_util::sync::CancellationToken;

/// How events are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EventsFormat {
    /// One JSON event per line (the default).
    Ndjson,
    /// Only the results.
    None,
}

/// `tessera run` arguments.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// An MCP-CP message (TOOL_CALL_REQUEST or INSTRUCTION) as JSON, or `-` for standard input.
    pub file: String,
    /// Stand-in tools for a dry run: {"<tool>": {"safe", "reads", "writes", "latency_ms",
    /// "result" | "error"}}.
    #[arg(long, value_name = "TOOLS_JSON")]
    pub simulate: Option<String>,
    /// How to print the events.
    #[arg(long, value_enum, default_value = "ndjson")]
    pub events: EventsFormat,
    /// Calls running at once.
    #[arg(long, default_value_t = 10)]
    pub concurrency: usize,
}

fn read(path: &str) -> std::io::Result<String> {
    if path == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(path)
    }
}

/// Prints each event as one line, as it happens.
struct NdjsonSink(Mutex<std::io::Stdout>);

impl EventSink for NdjsonSink {
    fn emit(&self, event: Event) {
        if let Ok(line) = serde_json::to_string(&event) {
            let mut out = tessera_app::sync::lock(&self.0);
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
}

fn now() -> Timestamp {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Timestamp::new(rfc3339(now.as_secs(), now.subsec_millis()))
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` from Unix seconds (civil-from-days, proleptic Gregorian).
fn rfc3339(secs: u64, millis: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Runs the command; prints to stdout.
pub fn main(args: RunArgs) -> ExitCode {
    let text = match read(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tessera run: cannot read {}: {e}", args.file);
            return ExitCode::from(2);
        }
    };
    let message: Message = match tessera_protocol::parse_str(DocumentKind::Message, &text) {
        Ok(m) => m,
        Err(tessera_protocol::ProtocolError::Invalid { problems, .. }) => {
            let reasons: Vec<String> = problems
                .iter()
                .map(|p| format!("{}: {}", p.path, p.message))
                .collect();
            println!(
                "refused: not a valid MCP-CP message: {}",
                reasons.join("; ")
            );
            return ExitCode::from(1);
        }
        Err(e) => {
            println!("refused: {e}");
            return ExitCode::from(1);
        }
    };
    let mut registry = ToolRegistry::new();
    if let Some(path) = &args.simulate {
        let loaded = read(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string()))
            .and_then(|v| simulated::register_all(&mut registry, &v).map_err(|e| e.to_string()));
        if let Err(e) = loaded {
            eprintln!("tessera run: --simulate {path}: {e}");
            return ExitCode::from(2);
        }
    }
    let sink: Arc<dyn EventSink> = match args.events {
        EventsFormat::Ndjson => Arc::new(NdjsonSink(Mutex::new(std::io::stdout()))),
        EventsFormat::None => Arc::new(NullSink),
    };
    let options = ExecutorOptions::new(message.context_id.clone())
        .run_id(message.message_id.clone())
        .concurrency_limit(args.concurrency);
    let executor = Executor::new(Arc::new(registry), sink, options);
    // Refuse before anything runs (and before any event is printed).
    let planned = match &message.content {
        MessageContent::ToolCallRequest(r) => executor.plan_tool_calls(r).map(|_| ()),
        MessageContent::Instruction(s) => executor.plan_instructions(s).map(|_| ()),
        other => {
            println!(
                "refused: a {} message has nothing to run; expected TOOL_CALL_REQUEST or INSTRUCTION",
                other.message_type().as_str()
            );
            return ExitCode::from(1);
        }
    };
    if let Err(e) = planned {
        println!("refused: {e}");
        return ExitCode::from(1);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("tessera run: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let cancel = CancellationToken::new();
    let last = runtime.block_on(async {
        // Ctrl-C cancels the set: what ran is still reported.
        let on_signal = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_signal.cancel();
            }
        });
        match &message.content {
            MessageContent::ToolCallRequest(r) => executor
                .run_tool_calls(r, &cancel)
                .await
                .map(|resp| response_message(&message, resp)),
            MessageContent::Instruction(s) => executor
                .run_instructions(s, &cancel)
                .await
                .map(|results| results.to_json()),
            _ => Ok(Value::Null),
        }
    });
    match last {
        Ok(v) => {
            println!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("refused: {e}");
            ExitCode::from(1)
        }
    }
}

fn response_message(
    request: &Message,
    response: tessera_protocol::mcp_cp::ToolCallResponse,
) -> Value {
    let mut metadata = JsonObject::new();
    metadata.insert(
        "inReplyTo".into(),
        Value::String(request.message_id.clone()),
    );
    let message = Message {
        message_id: format!("{}_response", request.message_id),
        context_id: request.context_id.clone(),
        timestamp: now(),
        sender: Sender {
            id: "tessera".into(),
            sender_type: SenderType::Tool,
            extra: JsonObject::new(),
        },
        content: MessageContent::ToolCallResponse(response),
        metadata: Some(metadata),
        extra: JsonObject::new(),
    };
    serde_json::to_value(&message).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(rfc3339(1_764_592_496, 789), "2025-12-01T12:34:56.789Z");
    }
}
