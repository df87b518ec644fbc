//! `tessera check-condition '<expr>' --context <file.json>`: evaluates an instruction
//! condition against a JSON context and prints `true` or `false` (exit 0); a syntax error prints
//! `syntax error at column N: <what>` (exit 1). Exit 2: the context cannot be read or is not
//! JSON. Paths are looked up from the context's root, e.g. `dependencies.inst_1.status` in
//! `{"dependencies": {"inst_1": {"status": "COMPLETED"}}}`.

use std::process::ExitCode;

use serde_json::Value;
use tessera_scheduler::Condition;

/// `tessera check-condition` arguments.
#[derive(Debug, clap::Args)]
pub struct CheckConditionArgs {
    /// The condition, e.g. "dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8".
    pub expression: String,
    /// A JSON file the paths are read from (`-` for standard input); without it, `{}`.
    #[arg(long, value_name = "FILE_JSON")]
    pub context: Option<String>,
}

/// The line to print and the exit code, or the reason the command could not run.
pub fn check(expression: &str, context: &Value) -> (String, u8) {
    match Condition::parse(expression) {
        Ok(c) => (c.evaluate(context).to_string(), 0),
        Err(e) => (e.to_string(), 1),
    }
}

pub fn main(args: CheckConditionArgs) -> ExitCode {
    let context = match &args.context {
        None => Value::Object(Default::default()),
        Some(path) => {
            let text = if path == "-" {
                std::io::read_to_string(std::io::stdin())
            } else {
                std::fs::read_to_string(path)
            };
            let parsed = text
                .map_err(|e| format!("cannot read {path}: {e}"))
                .and_then(|t| {
                    serde_json::from_str::<Value>(&t)
                        .map_err(|e| format!("{path} is not JSON: {e}"))
                });
            match parsed {
                Ok(v) => v,
                Err(e) => {
                    eprintln!("tessera check-condition: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let (line, code) = check(&args.expression, &context);
    println!("{line}");
    ExitCode::from(code)
}
