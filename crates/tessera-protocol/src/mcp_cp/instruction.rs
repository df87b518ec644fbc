//! MCP-CP instruction sets (seed 000 §3.6, §5, §6).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Number;
use ts_rs::TS;

use crate::wire::JsonObject;

/// `INSTRUCTION` content: one or more instructions and how to run them (§3.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct InstructionSet {
    pub instructions: Vec<Instruction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_mode: Option<InstructionExecutionMode>,
    /// Overall timeout in seconds (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub timeout: Option<Number>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// One instruction (§5.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct Instruction {
    pub instruction_id: String,
    /// The operation, e.g. `QUERY_DATA`.
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<JsonObject>,
    /// Ids of instructions that must finish first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependencies: Option<Vec<String>>,
    /// A condition expression, e.g. `dependencies.inst_1.status == 'COMPLETED'`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Timeout in seconds (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub timeout: Option<Number>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// How the instructions of a set are run (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum InstructionExecutionMode {
    Sequential,
    Parallel,
    Conditional,
}
