//! `validate` for the MCP-CP kinds (message, tool-definition, mcp-context): paths and messages.

use crate::common;

use common::{assert_problem, problems, remove, set};
use serde_json::{json, Value};
use tessera_protocol::{validate, DocumentKind};

#[test]
fn closed_enums_reject_other_values_at_their_path() {
    use DocumentKind::*;
    let messages: std::collections::HashMap<_, _> = common::messages().into_iter().collect();
    let events: std::collections::HashMap<_, _> = common::events().into_iter().collect();
    let cases: Vec<(DocumentKind, Value, &str, &str)> = vec![
        (Message, messages["USER_INPUT"].clone(), "/sender/type", "sender.type: must be one of USER, MODEL, SYSTEM, TOOL"),
        (Message, messages["USER_INPUT"].clone(), "/content/attachments/0/type", "content.attachments[0].type: must be one of IMAGE, FILE, AUDIO, VIDEO"),
        (Message, messages["MODEL_RESPONSE"].clone(), "/content/finishReason", "content.finishReason: must be one of STOP, LENGTH, TOOL_CALLS, ERROR"),
        (Message, messages["MODEL_RESPONSE"].clone(), "/content/toolCalls/0/runtime", "content.toolCalls[0].runtime: must be one of FRONTEND, BACKEND"),
        (Message, messages["TOOL_CALL_REQUEST"].clone(), "/content/calls/0/fallbackBehavior", "content.calls[0].fallbackBehavior: must be one of ABORT, SKIP, USE_ALTERNATIVE"),
        (Message, messages["TOOL_CALL_REQUEST"].clone(), "/content/executionMode", "content.executionMode: must be one of SYNC, ASYNC, PARALLEL, SEQUENTIAL, FRONTEND_FIRST, BACKEND_FIRST, CLIENT_SERVER_PARALLEL"),
        (Message, messages["TOOL_CALL_RESPONSE"].clone(), "/content/results/0/status", "content.results[0].status: must be one of SUCCESS, ERROR, TIMEOUT, DENIED, SKIPPED, CANCELLED, INTERRUPTED, NOT_FOUND"),
        (Message, messages["SYSTEM_MESSAGE"].clone(), "/content/action", "content.action: must be one of NOTIFICATION, WARNING, ERROR, INFO"),
        (Message, messages["INSTRUCTION"].clone(), "/content/executionMode", "content.executionMode: must be one of SEQUENTIAL, PARALLEL, CONDITIONAL"),
        (Message, messages["CONTEXT_UPDATE"].clone(), "/content/operation", "content.operation: must be one of ADD_MESSAGE, UPDATE_STATE, CLEAR_HISTORY"),
        (Event, events["tool/tool_call"].clone(), "/payload/runtime", "payload.runtime: must be one of FRONTEND, BACKEND"),
        (Event, events["tool/tool_result"].clone(), "/payload/status", "payload.status: must be one of success, error, timeout, denied, skipped, cancelled, interrupted, not_found"),
        (Event, events["system/status"].clone(), "/payload/state", "payload.state: must be one of initializing, running, suspended, resumed, cancelled, failed, completed"),
        (Event, events["workflow/status"].clone(), "/payload/state", "payload.state: must be one of start, suspend, resume, end, failed, skipped, timeout"),
        (Event, events["workflow/status"].clone(), "/payload/node_kind", "payload.node_kind: must be one of run, instruction, agent"),
        (Event, events["interaction/form_request"].clone(), "/payload/requester/kind", "payload.requester.kind: must be one of agent, specialist, mcp_server"),
        (Event, events["interaction/form_result"].clone(), "/payload/action", "payload.action: must be one of accept, decline, cancel"),
        (Event, events["interaction/consent_request"].clone(), "/payload/risk", "payload.risk: must be one of low, medium, high"),
        (Event, events["interaction/consent_result"].clone(), "/payload/decision", "payload.decision: must be one of allow_once, allow_conversation, allow_always, deny"),
        (Event, events["debug/log"].clone(), "/payload/level", "payload.level: must be one of trace, debug, info, warn, error"),
        (Response, common::response(), "/status", "status: must be one of success, in_progress, tool_wait, error"),
        (Context, common::context(), "/session/messages/1/author/kind", "session.messages[1].author.kind: must be one of user, agent, tool, system"),
        (Context, common::context(), "/session/task_state/todo_list/tasks/0/status", "session.task_state.todo_list.tasks[0].status: must be one of pending, running, completed, failed, skipped, timeout"),
        (Context, common::context(), "/session/tool_state/tool_calls/0/provider/kind", "session.tool_state.tool_calls[0].provider.kind: must be one of builtin, mcp, other"),
        (Context, common::context(), "/session/tool_state/tool_calls/0/type", "session.tool_state.tool_calls[0].type: must be one of tool, skill, function_call"),
        (Context, common::context(), "/session/tool_state/tool_calls/0/status", "session.tool_state.tool_calls[0].status: must be one of success, error, timeout, forbidden, not_found, skipped, cancelled, interrupted"),
        (Context, common::context(), "/session/model_usage/0/stage", "session.model_usage[0].stage: must be one of route, plan, tool_call, answer, summary, other"),
        (Context, common::context(), "/session/model_usage/0/status", "session.model_usage[0].status: must be one of success, error"),
        (Context, common::context(), "/evidences/ev_1/type", "evidences.ev_1.type: must be one of rag_doc, tool_result, skill_output, llm_output, user_input, other"),
        (Context, common::context(), "/evidences/ev_1/source/kind", "evidences.ev_1.source.kind: must be one of rag, tool, skill, llm, user, system"),
        (Context, common::context(), "/context_blocks/0/block_type", "context_blocks[0].block_type: must be one of instruction, conversation, state, plan, evidence, memory"),
        (Context, common::context(), "/context_blocks/0/priority", "context_blocks[0].priority: must be one of must, high, medium, low"),
        (ToolDefinition, common::tool_definition(), "/runtime", "runtime: must be one of FRONTEND, BACKEND"),
        (ToolDefinition, common::tool_definition(), "/permissionLevel", "permissionLevel: must be one of NONE, USER_CONSENT, ALWAYS_ASK"),
        (McpContext, common::mcp_context(), "/messages/1/sender/type", "messages[1].sender.type: must be one of USER, MODEL, SYSTEM, TOOL"),
        (FormSubmission, common::form_submission(), "/action", "action: must be one of accept, decline, cancel"),
    ];
    for (kind, mut doc, pointer, expected) in cases {
        set(&mut doc, pointer, json!("BOGUS"));
        assert_problem(kind, &doc, expected);
        let all = problems(kind, &doc);
        assert_eq!(all.len(), 1, "{expected}: {all:#?}");
    }
}

#[test]
fn extensible_enums_accept_unknown_values() {
    let mut msg = common::document(DocumentKind::Message);
    set(&mut msg, "/type", json!("CUSTOM_THING"));
    set(&mut msg, "/content", json!({"anything": [1, 2]}));
    assert!(validate(DocumentKind::Message, &msg).is_empty());

    let mut ev = common::document(DocumentKind::Event);
    set(&mut ev, "/domain", json!("billing"));
    set(&mut ev, "/type", json!("invoice"));
    set(&mut ev, "/payload", json!({"total": 3}));
    assert!(validate(DocumentKind::Event, &ev).is_empty());

    // A known domain with an unknown type takes any payload.
    let mut ev = common::document(DocumentKind::Event);
    set(&mut ev, "/type", json!("usage"));
    set(&mut ev, "/payload", json!({"tokens": 3}));
    assert!(validate(DocumentKind::Event, &ev).is_empty());

    let mut req = common::request();
    set(&mut req, "/resources/0/role", json!("critic"));
    assert!(validate(DocumentKind::Request, &req).is_empty());

    let mut ctx = common::context();
    set(&mut ctx, "/session/messages/0/role", json!("developer"));
    assert!(validate(DocumentKind::Context, &ctx).is_empty());

    let mut mcp = common::mcp_context();
    set(&mut mcp, "/messages/0/type", json!("NEW_TYPE"));
    assert!(validate(DocumentKind::McpContext, &mcp).is_empty());
}

#[test]
fn unknown_message_type_still_needs_an_object_content() {
    let mut msg = common::document(DocumentKind::Message);
    set(&mut msg, "/type", json!("CUSTOM_THING"));
    set(&mut msg, "/content", json!("text"));
    assert_eq!(
        problems(DocumentKind::Message, &msg),
        ["content: expected object"]
    );
}

#[test]
fn message_envelope_rules() {
    let mut doc = common::document(DocumentKind::Message);
    remove(&mut doc, "/messageId");
    remove(&mut doc, "/sender/id");
    set(&mut doc, "/timestamp", json!("2025-12-01 12:34:56"));
    set(&mut doc, "/contextId", json!(7));
    set(&mut doc, "/metadata", json!([]));
    assert_eq!(
        problems(DocumentKind::Message, &doc),
        [
            "contextId: expected string",
            "messageId: required",
            "metadata: expected object",
            "sender.id: required",
            "timestamp: not an RFC 3339 timestamp",
        ]
    );
    let mut doc = common::document(DocumentKind::Message);
    remove(&mut doc, "/metadata");
    assert!(validate(DocumentKind::Message, &doc).is_empty());
}

#[test]
fn message_content_is_checked_by_type() {
    let messages: std::collections::HashMap<_, _> = common::messages().into_iter().collect();
    let cases = [
        ("USER_INPUT", "/content/text", "content.text: required"),
        (
            "USER_INPUT",
            "/content/attachments/0/url",
            "content.attachments[0].url: required",
        ),
        (
            "MODEL_RESPONSE",
            "/content/finishReason",
            "content.finishReason: required",
        ),
        (
            "MODEL_RESPONSE",
            "/content/usage/totalTokens",
            "content.usage.totalTokens: required",
        ),
        (
            "MODEL_RESPONSE",
            "/content/toolCalls/0/parameters",
            "content.toolCalls[0].parameters: required",
        ),
        (
            "TOOL_CALL_REQUEST",
            "/content/calls",
            "content.calls: required",
        ),
        (
            "TOOL_CALL_REQUEST",
            "/content/calls/0/callId",
            "content.calls[0].callId: required",
        ),
        (
            "TOOL_CALL_RESPONSE",
            "/content/results/0/status",
            "content.results[0].status: required",
        ),
        (
            "TOOL_CALL_RESPONSE",
            "/content/results/0/error/code",
            "content.results[0].error.code: required",
        ),
        (
            "SYSTEM_MESSAGE",
            "/content/action",
            "content.action: required",
        ),
        (
            "INSTRUCTION",
            "/content/instructions/0/action",
            "content.instructions[0].action: required",
        ),
        (
            "ERROR_RESPONSE",
            "/content/errorCode",
            "content.errorCode: required",
        ),
        (
            "CONTEXT_UPDATE",
            "/content/value",
            "content.value: required",
        ),
        ("CONTEXT_UPDATE", "/content/path", "content.path: required"),
        (
            "CLIENT_CAPABILITIES",
            "/content/supportedTools/0/toolId",
            "content.supportedTools[0].toolId: required",
        ),
        (
            "TOOL_AVAILABILITY_REQUEST",
            "/content/tools/0/toolId",
            "content.tools[0].toolId: required",
        ),
        (
            "TOOL_AVAILABILITY_RESPONSE",
            "/content/availableTools/0/available",
            "content.availableTools[0].available: required",
        ),
    ];
    for (message_type, pointer, expected) in cases {
        let mut doc = messages[message_type].clone();
        remove(&mut doc, pointer);
        assert_eq!(problems(DocumentKind::Message, &doc), [expected]);
    }

    let numbers = [
        (
            "MODEL_RESPONSE",
            "/content/toolCalls/0/timeout",
            json!(0),
            "content.toolCalls[0].timeout: must be > 0",
        ),
        (
            "TOOL_CALL_REQUEST",
            "/content/frontendTimeout",
            json!(-1),
            "content.frontendTimeout: must be > 0",
        ),
        (
            "TOOL_CALL_REQUEST",
            "/content/calls/0/timeoutClient",
            json!("12"),
            "content.calls[0].timeoutClient: expected number",
        ),
        (
            "USER_INPUT",
            "/content/attachments/0/metadata/fileSize",
            json!(-1),
            "content.attachments[0].metadata.fileSize: must be >= 0",
        ),
        (
            "TOOL_CALL_RESPONSE",
            "/content/results/0/executionTime",
            json!(1.5),
            "content.results[0].executionTime: expected integer",
        ),
        (
            "CONTEXT_UPDATE",
            "/content/path",
            json!(""),
            "content.path: must be a non-empty dotted path",
        ),
        (
            "CONTEXT_UPDATE",
            "/content/path",
            json!("a..b"),
            "content.path: must be a non-empty dotted path",
        ),
        (
            "CONTEXT_UPDATE",
            "/content/expectedVersion",
            json!(-2),
            "content.expectedVersion: must be >= 0",
        ),
        (
            "CLIENT_CAPABILITIES",
            "/content/limitations/maxFileSize",
            json!(-5),
            "content.limitations.maxFileSize: must be >= 0",
        ),
        (
            "INSTRUCTION",
            "/content/instructions/0/timeout",
            json!(0),
            "content.instructions[0].timeout: must be > 0",
        ),
    ];
    for (message_type, pointer, value, expected) in numbers {
        let mut doc = messages[message_type].clone();
        set(&mut doc, pointer, value);
        assert_eq!(problems(DocumentKind::Message, &doc), [expected]);
    }
}

#[test]
fn context_update_requirements_follow_the_operation() {
    let base = common::message("CONTEXT_UPDATE", json!({"operation": "ADD_MESSAGE"}));
    assert_eq!(
        problems(DocumentKind::Message, &base),
        ["content.message: required"]
    );
    let mut add = base.clone();
    set(
        &mut add,
        "/content/message",
        common::document(DocumentKind::Message),
    );
    assert!(validate(DocumentKind::Message, &add).is_empty());
    // The nested message is a whole MCP-CP message, checked as such.
    remove(&mut add, "/content/message/content/text");
    assert_eq!(
        problems(DocumentKind::Message, &add),
        ["content.message.content.text: required"]
    );
    let clear = common::message(
        "CONTEXT_UPDATE",
        json!({"operation": "CLEAR_HISTORY", "filter": {"beforeTimestamp": "yesterday", "role": "user"}}),
    );
    assert_eq!(
        problems(DocumentKind::Message, &clear),
        ["content.filter.beforeTimestamp: not an RFC 3339 timestamp"]
    );
    let clear = common::message("CONTEXT_UPDATE", json!({"operation": "CLEAR_HISTORY"}));
    assert!(validate(DocumentKind::Message, &clear).is_empty());
}

#[test]
fn tool_definition_and_mcp_context_rules() {
    for (pointer, path) in [
        ("/toolId", "toolId"),
        ("/name", "name"),
        ("/runtime", "runtime"),
        ("/parameters", "parameters"),
    ] {
        let mut doc = common::tool_definition();
        remove(&mut doc, pointer);
        assert_eq!(
            problems(DocumentKind::ToolDefinition, &doc),
            [format!("{path}: required")]
        );
    }
    let mut doc = common::mcp_context();
    remove(&mut doc, "/messages/0/content");
    set(&mut doc, "/creationTime", json!("2025-12-01"));
    set(&mut doc, "/version", json!(-1));
    set(&mut doc, "/state/activeTools", json!("weather_api"));
    assert_eq!(
        problems(DocumentKind::McpContext, &doc),
        [
            "creationTime: not an RFC 3339 timestamp",
            "messages[0].content: required",
            "state.activeTools: expected array",
            "version: must be >= 0",
        ]
    );
    // Content is not checked by type in the history (seed 000 §8.1 omits finishReason).
    let doc = common::mcp_context();
    assert!(validate(DocumentKind::McpContext, &doc).is_empty());
}

#[test]
fn a_tool_result_carries_error_only_when_its_status_is_error() {
    let doc = |status: &str| {
        serde_json::json!({
            "messageId": "m", "contextId": "c", "timestamp": "2026-11-27T10:00:00Z",
            "type": "TOOL_CALL_RESPONSE", "sender": {"id": "client", "type": "USER"},
            "content": {"results": [{"callId": "c1", "status": status,
                "error": {"code": "E", "message": "failed"}}]}
        })
    };
    assert!(problems(DocumentKind::Message, &doc("ERROR")).is_empty());
    for status in ["SUCCESS", "TIMEOUT", "DENIED"] {
        let found = problems(DocumentKind::Message, &doc(status));
        assert_eq!(
            found,
            [format!(
                "content.results[0].error: present only when status is ERROR (seed 000 §3.4), not {status}"
            )],
            "{status}"
        );
    }
}
