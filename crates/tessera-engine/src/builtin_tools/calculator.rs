//! `calculator`: arithmetic the model should not do in its head, through the
//! parser in [`super::calc`] (no eval).

use serde_json::{json, Number, Value};

use super::args::string_arg;
use super::calc::{evaluate, CalcError, MAX_EXPRESSION_CHARS};
use super::error::BuiltinError;
use crate::tools::{RetryPolicy, ToolContext, ToolFailure, ToolSpec};

pub const NAME: &str = "calculator";

/// The declaration: safe (pure computation), no resources, a short timeout.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Evaluates an arithmetic expression and returns its value (64-bit floating point, \
         shown to 15 significant digits). Use it for any calculation instead of computing in \
         your head. Operators: + - * / % (remainder) and ^ \
         (power, right-associative; ** also works), unary minus, parentheses. Numbers: 12, 0.5, \
         1e-3. Functions: sqrt, abs, round(x) or round(x, digits), floor, ceil, min(a, b, …), \
         max(a, b, …), ln, log10, sin, cos, tan (radians). Constants: pi, e. Errors (division \
         by zero, a result that is not a finite number, a syntax error) name the column.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "expression": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_EXPRESSION_CHARS,
                "description": "The expression, e.g. `(1.5e3 - 200) * 12 / 7` or `sqrt(2) ^ 2`."
            }
        },
        "required": ["expression"],
        "additionalProperties": false
    }))
    .result_schema(json!({
        "type": "object",
        "properties": {
            "expression": {"type": "string"},
            "result": {"type": "number"}
        },
        "required": ["expression", "result"]
    }))
    .safe(true)
    .timeout_ms(1_000)
    .estimated_ms(1)
    // The same expression fails the same way every time.
    .retry(RetryPolicy::none())
}

/// The value as JSON: whole numbers as integers (`4`, not `4.0`), and binary noise below 15
/// significant digits dropped (`0.1 + 0.2` is `0.3`), as a person reading the answer expects.
pub fn to_json(value: f64) -> Option<Value> {
    let cleaned: f64 = format!("{value:.14e}").parse().ok()?;
    let cleaned = if cleaned == 0.0 { 0.0 } else { cleaned };
    if cleaned.fract() == 0.0 && cleaned.abs() < 9.007_199_254_740_992e15 {
        return Some(json!(cleaned as i64));
    }
    Number::from_f64(cleaned).map(Value::Number)
}

/// The handler.
pub async fn run(arguments: Value, _ctx: ToolContext) -> Result<Value, ToolFailure> {
    evaluate_arguments(&arguments).map_err(ToolFailure::from)
}

fn evaluate_arguments(arguments: &Value) -> Result<Value, BuiltinError> {
    let expression = string_arg(arguments, "expression")?;
    let failed = |error: CalcError| BuiltinError::Calculation {
        expression: expression.to_owned(),
        error,
    };
    let value = evaluate(expression).map_err(failed)?;
    let result = to_json(value).ok_or_else(|| {
        failed(CalcError {
            column: 1,
            message: "the result is not a finite number".into(),
        })
    })?;
    Ok(json!({"expression": expression, "result": result}))
}
