//! Valid documents with every optional field filled, one per kind (and per content type or
//! payload type where the shape depends on it), for the rule and round-trip suites.

#![allow(dead_code)]

use serde_json::{json, Value};
use tessera_protocol::{validate, DocumentKind, Problem};

/// An MCP-CP envelope around `content`.
pub fn message(message_type: &str, content: Value) -> Value {
    json!({
        "messageId": "msg_1",
        "contextId": "ctx_1",
        "timestamp": "2025-12-01T12:34:56.789Z",
        "type": message_type,
        "sender": {"id": "user_1", "type": "USER"},
        "content": content,
        "metadata": {"client": {"app": "tessera"}}
    })
}

pub fn tool_call() -> Value {
    json!({
        "callId": "call_1",
        "name": "frontend_screenshot",
        "parameters": {"region": "selection"},
        "description": "capture",
        "requiredAfter": ["call_0"],
        "timeout": 30,
        "runtime": "FRONTEND",
        "userPrompt": "May I?",
        "fallbackBehavior": "ABORT",
        "uiSettings": {"theme": "dark"},
        "timeoutClient": 12.5
    })
}

/// Every MCP-CP message type with a full content.
pub fn messages() -> Vec<(&'static str, Value)> {
    vec![
        (
            "USER_INPUT",
            message(
                "USER_INPUT",
                json!({
                    "text": "hello",
                    "attachments": [{
                        "type": "IMAGE",
                        "url": "https://example.invalid/a.png",
                        "metadata": {"fileName": "a.png", "fileSize": 1024, "mimeType": "image/png", "width": 3}
                    }]
                }),
            ),
        ),
        (
            "MODEL_RESPONSE",
            message(
                "MODEL_RESPONSE",
                json!({
                    "text": "",
                    "toolCalls": [tool_call()],
                    "finishReason": "TOOL_CALLS",
                    "usage": {"promptTokens": 1, "completionTokens": 2, "totalTokens": 3}
                }),
            ),
        ),
        (
            "TOOL_CALL_REQUEST",
            message(
                "TOOL_CALL_REQUEST",
                json!({
                    "calls": [tool_call()],
                    "executionMode": "FRONTEND_FIRST",
                    "timeout": 60,
                    "frontendTimeout": 20,
                    "backendTimeout": 30.5
                }),
            ),
        ),
        (
            "TOOL_CALL_RESPONSE",
            message(
                "TOOL_CALL_RESPONSE",
                json!({
                    "results": [{
                        "callId": "call_1",
                        "status": "ERROR",
                        "result": null,
                        "error": {"code": "E", "message": "boom", "details": {"stackTrace": "..."}},
                        "executionTime": 350,
                        "clientInfo": {"deviceType": "desktop", "browser": "chrome", "version": "96", "capabilities": ["camera"], "os": "linux"}
                    }]
                }),
            ),
        ),
        (
            "SYSTEM_MESSAGE",
            message(
                "SYSTEM_MESSAGE",
                json!({"action": "WARNING", "text": "careful", "data": {"code": "SYS_001"}}),
            ),
        ),
        (
            "INSTRUCTION",
            message(
                "INSTRUCTION",
                json!({
                    "instructions": [{
                        "instructionId": "inst_2",
                        "action": "PROCESS_DATA",
                        "parameters": {"data": "${dependencies.inst_1.result.data}"},
                        "dependencies": ["inst_1"],
                        "condition": "dependencies.inst_1.status == 'COMPLETED'",
                        "timeout": 5
                    }],
                    "executionMode": "CONDITIONAL",
                    "timeout": 120
                }),
            ),
        ),
        (
            "ERROR_RESPONSE",
            message(
                "ERROR_RESPONSE",
                json!({
                    "errorCode": "AUTH_FAILED",
                    "message": "no",
                    "details": {"requestId": "req_1"},
                    "source": "server",
                    "recoverable": true,
                    "suggestedAction": "retry later"
                }),
            ),
        ),
        (
            "CONTEXT_UPDATE",
            message(
                "CONTEXT_UPDATE",
                json!({
                    "operation": "UPDATE_STATE",
                    "expectedVersion": 3,
                    "path": "userPreferences.language",
                    "value": null
                }),
            ),
        ),
        (
            "CLIENT_CAPABILITIES",
            message(
                "CLIENT_CAPABILITIES",
                json!({
                    "clientId": "client_1",
                    "deviceType": "desktop",
                    "platform": "linux",
                    "version": "1.0",
                    "supportedTools": [{"toolId": "frontend_camera", "version": "1.2.0", "capabilities": ["photo"]}],
                    "supportedFeatures": ["offline_execution"],
                    "limitations": {"maxFileSize": 50000000, "maxProcessingTime": 60000, "maxWidth": 10}
                }),
            ),
        ),
        (
            "TOOL_AVAILABILITY_REQUEST",
            message(
                "TOOL_AVAILABILITY_REQUEST",
                json!({"tools": [{"toolId": "frontend_camera", "minVersion": "1.0.0", "requiredCapabilities": ["photo"]}]}),
            ),
        ),
        (
            "TOOL_AVAILABILITY_RESPONSE",
            message(
                "TOOL_AVAILABILITY_RESPONSE",
                json!({"availableTools": [{
                    "toolId": "frontend_location",
                    "available": false,
                    "version": "1.0.1",
                    "capabilities": ["gps"],
                    "reason": "PERMISSION_DENIED",
                    "message": "denied"
                }]}),
            ),
        ),
    ]
}

/// An easyflow envelope around a payload.
pub fn event(domain: &str, event_type: &str, payload: Value) -> Value {
    json!({
        "protocol": "easyflow-chat",
        "version": "1.1",
        "domain": domain,
        "type": event_type,
        "conversation_id": "conv_1",
        "message_id": "msg_1",
        "index": 0,
        "payload": payload,
        "meta": {
            "run_id": "run_1",
            "seq": 7,
            "ts": "2025-12-01T12:34:56Z",
            "prompt_tokens": 1,
            "completion_tokens": 2,
            "latency_ms": 3,
            "first_token_latency_ms": 4,
            "usage": {"gpt": {"prompt_tokens": 1}}
        }
    })
}

/// Every typed easyflow domain/type with a full payload.
pub fn events() -> Vec<(&'static str, Value)> {
    vec![
        (
            "llm/thinking",
            event(
                "llm",
                "thinking",
                json!({"delta": "hm", "signature": "sig"}),
            ),
        ),
        (
            "llm/message",
            event("llm", "message", json!({"content": "answer"})),
        ),
        (
            "tool/tool_call",
            event(
                "tool",
                "tool_call",
                json!({
                    "tool_call_id": "call_1",
                    "name": "search",
                    "arguments": {"query": "x"},
                    "depends_on": ["call_0"],
                    "runtime": "BACKEND",
                    "provider": "builtin"
                }),
            ),
        ),
        (
            "tool/tool_result",
            event(
                "tool",
                "tool_result",
                json!({"tool_call_id": "call_1", "status": "not_found", "result": null, "error": {"why": 1}, "duration_ms": 5}),
            ),
        ),
        (
            "tool/tool_queued",
            event(
                "tool",
                "tool_queued",
                json!({"tool_call_id": "call_1", "name": "search", "position": 0}),
            ),
        ),
        (
            "tool/tool_started",
            event("tool", "tool_started", json!({"tool_call_id": "call_1"})),
        ),
        (
            "tool/tool_progress",
            event(
                "tool",
                "tool_progress",
                json!({"tool_call_id": "call_1", "progress": 0.5, "total": 1, "message": "half"}),
            ),
        ),
        (
            "tool/queue_drained",
            event("tool", "queue_drained", json!({})),
        ),
        (
            "system/error",
            event(
                "system",
                "error",
                json!({"code": "RATE_LIMITED", "message": "slow down", "retryable": true, "detail": {"after": 2}}),
            ),
        ),
        (
            "system/status",
            event("system", "status", json!({"state": "suspended"})),
        ),
        ("system/done", event("system", "done", json!({}))),
        (
            "business/error",
            event(
                "business",
                "error",
                json!({"code": "QUOTA", "message": "none left"}),
            ),
        ),
        (
            "workflow/status",
            event(
                "workflow",
                "status",
                json!({"node_id": "n1", "state": "suspend", "node_kind": "agent", "reason": "interaction", "turn": 1, "max_turns": 3}),
            ),
        ),
        (
            "workflow/graph",
            event(
                "workflow",
                "graph",
                json!({"nodes": [{"id": "a"}], "edges": []}),
            ),
        ),
        (
            "interaction/form_request",
            event(
                "interaction",
                "form_request",
                json!({
                    "form_id": "f1",
                    "title": "More",
                    "schema": {"type": "object", "properties": {"age": {"type": "number"}}},
                    "description": "please",
                    "ui": {"submit_text": "Go", "cancel_text": "Stop", "decline_text": "No"},
                    "requester": {"kind": "mcp_server", "name": "files"}
                }),
            ),
        ),
        (
            "interaction/form_cancel",
            event(
                "interaction",
                "form_cancel",
                json!({"form_id": "f1", "reason": "timeout"}),
            ),
        ),
        (
            "interaction/form_result",
            event(
                "interaction",
                "form_result",
                json!({"form_id": "f1", "action": "decline"}),
            ),
        ),
        (
            "interaction/consent_request",
            event(
                "interaction",
                "consent_request",
                json!({
                    "consent_id": "c1",
                    "tool_call_id": "call_1",
                    "tool": "screen_capture",
                    "arguments": {"region": "full"},
                    "touches": ["screen"],
                    "risk": "medium",
                    "agent_says": "I need to see"
                }),
            ),
        ),
        (
            "interaction/consent_result",
            event(
                "interaction",
                "consent_result",
                json!({"consent_id": "c1", "decision": "allow_once"}),
            ),
        ),
        (
            "debug/log",
            event("debug", "log", json!({"level": "warn", "message": "hm"})),
        ),
    ]
}

pub fn request() -> Value {
    json!({
        "model": "DeepSeek-chat",
        "root_id": "root_1",
        "resources": [
            {"role": "system", "content": "You help.", "status": "active", "metadata": {"context_origin": "system_default", "weight": 1.0}},
            {"role": "user", "content": "Analyse.", "metadata": {"topic": "resume", "nested": {"deep_key": [{"inner_key": 1}]}}}
        ],
        "config": {"temperature": 0.7, "max_tokens": 512, "top_p": 1, "stream": false, "function_call": null, "seed": 42},
        "metadata": {
            "request_id": "req_1",
            "caller": "agent.hr.bot",
            "timestamp": "2025-12-01T12:34:56Z",
            "task_type": "semantic_tool_chain",
            "topic": "hr",
            "env": "production",
            "version": "1",
            "source": "cli",
            "custom_tag": "x"
        }
    })
}

pub fn response() -> Value {
    json!({
        "status": "error",
        "outputs": [{"role": "assistant", "content": {"score": 85}, "metadata": {"AnyKey": 1}}],
        "trace_id": "req_1",
        "context_updates": [{"type": "append_prompt", "role": "assistant", "content": "done"}],
        "error": {"code": "TOOL_CALL_FAILED", "message": "missing", "detail": "resume_text"},
        "metadata": {"latency_ms": 12}
    })
}

pub fn context() -> Value {
    json!({
        "schema_version": "1.0",
        "meta": {
            "locale": "zh-CN",
            "created_at": "2026-01-20T10:00:00Z",
            "updated_at": "2026-01-20T10:05:00+08:00",
            "actor": {"user_id": "u1", "user_role": "developer", "agent": {"agent_id": "agent-001", "name": "my-agent", "version": "2026-02-10"}}
        },
        "session": {
            "session_id": "s1",
            "messages": [
                {"role": "system", "author": {"kind": "agent", "id": "agent-001"}, "content": "You are…", "at": "2026-02-10T10:05:00Z"},
                {"role": "user", "author": {"kind": "user", "id": "u1"}, "content": "Which API?", "at": "2026-02-10T10:06:00Z"},
                {"role": "assistant", "author": {"kind": "agent"}, "content": "This one.", "refs": [{"evidence_id": "ev_1", "selector": "lines:12-18"}]}
            ],
            "summary": {"content": "so far", "updated_at": "2026-02-10T10:07:00Z", "message_index_range": {"from": 1, "to": 18}},
            "task_state": {"todo_list": {"tasks": [{
                "task_id": "t1", "name": "look up", "depends_on": [], "status": "completed", "result_evidence_ids": ["ev_1"], "error": ""
            }]}},
            "tool_state": {"tool_calls": [{
                "tool_call_id": "tc1",
                "task_id": "t1",
                "tool": "rag_search",
                "provider": {"kind": "mcp", "name": "wiki", "uri": "mcp://wiki"},
                "type": "tool",
                "called_at": "2026-02-10T10:06:30Z",
                "args_digest": {"q": "renew"},
                "status": "forbidden",
                "duration_ms": 0,
                "result_evidence_ids": []
            }]},
            "model_usage": [{
                "model_usage_id": "mu1",
                "task_id": "t1",
                "stage": "answer",
                "provider": "deepseek",
                "model": "deepseek-chat",
                "params": {"temperature": 0.2},
                "prompt_tokens": 10,
                "completion_tokens": 20,
                "total_tokens": 30,
                "first_token_latency_ms": 100,
                "latency_ms": 900,
                "status": "success",
                "error": ""
            }]
        },
        "evidences": {
            "ev_1": {
                "evidence_id": "ev_1",
                "type": "rag_doc",
                "source": {"kind": "rag", "name": "wiki", "uri": "https://wiki.invalid"},
                // 20 lines of 40 characters: what the refs' selectors select from.
                "content": (1..=20)
                    .map(|n| format!("line {n:02}: {}", "x".repeat(31)))
                    .collect::<Vec<_>>()
                    .join("\n"),
                "confidence": 0.92,
                "metadata": {"tags": []},
                "links": {"model_usage_id": "mu1", "tool_call_id": "tc1"}
            }
        },
        "context_blocks": [{
            "block_id": "b1",
            "block_type": "evidence",
            "priority": "must",
            "token_estimate": 350,
            "content": "…",
            "refs": [{"evidence_id": "ev_1", "selector": "chars:120-260"}],
            "expires_at": "2026-03-01T00:00:00Z"
        }]
    })
}

pub fn tool_definition() -> Value {
    json!({
        "toolId": "frontend_screenshot",
        "name": "截图工具",
        "description": "capture",
        "version": "1.0.0",
        "runtime": "FRONTEND",
        "capabilities": ["SCREEN_CAPTURE"],
        "parameters": {"type": "object", "properties": {"region": {"type": "string"}}},
        "returns": {"type": "object"},
        "permissionLevel": "USER_CONSENT"
    })
}

pub fn mcp_context() -> Value {
    json!({
        "contextId": "ctx_1",
        "creationTime": "2025-12-01T10:00:00Z",
        "lastUpdateTime": "2025-12-01T10:05:00Z",
        "messages": [
            {"messageId": "msg_001", "type": "USER_INPUT", "content": {"text": "你好"}},
            {
                "messageId": "msg_002",
                "type": "MODEL_RESPONSE",
                "content": {"text": "您好"},
                "timestamp": "2025-12-01T10:00:01Z",
                "sender": {"id": "model", "type": "MODEL"},
                "metadata": {"k": 1}
            }
        ],
        "state": {
            "currentTopic": "weather",
            "userPreferences": {"language": "zh"},
            "activeTools": ["weather_api"],
            "customState": {"searchCount": 3},
            "mood": "fine"
        },
        "metadata": {"userId": "user_123"},
        "version": 4
    })
}

pub fn form_submission() -> Value {
    json!({"conversation_id": "conv_1", "form_id": "f1", "action": "accept", "values": {"age": 30}})
}

/// One full document per kind (the first message and event variants).
pub fn document(kind: DocumentKind) -> Value {
    match kind {
        DocumentKind::Message => messages().remove(0).1,
        DocumentKind::Event => events().remove(0).1,
        DocumentKind::Request => request(),
        DocumentKind::Response => response(),
        DocumentKind::Context => context(),
        DocumentKind::ToolDefinition => tool_definition(),
        DocumentKind::McpContext => mcp_context(),
        DocumentKind::FormSubmission => form_submission(),
    }
}

/// Every full document with its kind and a label.
pub fn all_documents() -> Vec<(DocumentKind, String, Value)> {
    let mut all = Vec::new();
    for (label, doc) in messages() {
        all.push((DocumentKind::Message, label.to_owned(), doc));
    }
    for (label, doc) in events() {
        all.push((DocumentKind::Event, label.to_owned(), doc));
    }
    for kind in DocumentKind::ALL {
        if !matches!(kind, DocumentKind::Message | DocumentKind::Event) {
            all.push((kind, kind.as_str().to_owned(), document(kind)));
        }
    }
    all
}

/// Sets the value at a JSON pointer, adding the last key to its object if needed.
pub fn set(doc: &mut Value, pointer: &str, value: Value) {
    if let Some(slot) = doc.pointer_mut(pointer) {
        *slot = value;
        return;
    }
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        panic!("not a pointer: {pointer}")
    };
    doc.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("no object at {parent}"))
        .insert(key.to_owned(), value);
}

/// Removes the field at a JSON pointer.
pub fn remove(doc: &mut Value, pointer: &str) {
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        panic!("not a pointer: {pointer}")
    };
    let parent = if parent.is_empty() {
        &mut *doc
    } else {
        doc.pointer_mut(parent)
            .unwrap_or_else(|| panic!("no {parent}"))
    };
    parent
        .as_object_mut()
        .unwrap_or_else(|| panic!("no object at {pointer}"))
        .remove(key)
        .unwrap_or_else(|| panic!("no {pointer}"));
}

/// The problems of `doc` as `path: message` strings.
pub fn problems(kind: DocumentKind, doc: &Value) -> Vec<String> {
    validate(kind, doc).iter().map(Problem::to_string).collect()
}

/// Asserts that `expected` (`path: message`) is among the problems of `doc`.
#[track_caller]
pub fn assert_problem(kind: DocumentKind, doc: &Value, expected: &str) {
    let found = problems(kind, doc);
    assert!(
        found.iter().any(|p| p == expected),
        "expected `{expected}` in {found:#?}"
    );
}
