#!/usr/bin/env python3
"""Generate Tessera's protocol test vectors from the seed documents.

    python3 tests/vectors/extract.py            # (re)write tests/vectors/{valid,invalid}/, manifest.json, README.md
    python3 tests/vectors/extract.py --check    # exit 1 naming every file that differs, 0 when up to date
    python3 tests/vectors/extract.py --seeds DIR

Standard library only, deterministic (no clock, no randomness: UUIDs are uuid5 of fixed names).

Pipeline
 1. Extract every JSON example from the seeds (000: bare JSON with // and /* */ comments, JavaScript
    and Java sample code skipped; 002 and 004: ```json fences; 003: Python dict literals).
    A container whose only content is a comment (`[ /* 指令列表 */ ]`, `{ // 消息对象 }`) is a
    *placeholder*; it is kept as a sentinel until a completion fills it (checked: none survives).
 2. Classify and complete each example with the EXAMPLES table below (one entry per example, keyed
    by seed, section and ordinal within the section; every extracted example must have an entry and
    every entry must match an example, so nothing is dropped silently).
 3. Expand placeholder values: a string listing alternatives (`"USER|MODEL|SYSTEM|TOOL"`) becomes one
    document per value (other placeholder fields at their first value); timestamp fields whose value
    is not RFC 3339 (`"…"`, `""`) get a fixed timestamp.
 4. Check every valid document against RULES (our reading of docs/protocol-rules.md) and write it.
 5. Derive invalid variants from RULES (missing required field, bad closed-enum value, bad timestamp,
    number as string / out of range, wrong exact value) plus the seed-003 metadata-key variants;
    check each one is rejected at its expect_path by the same RULES; write them and the manifest.
"""
from __future__ import annotations

import argparse
import ast
import copy
import itertools
import json
import re
import sys
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

VECTORS = Path(__file__).resolve().parent
REPO = VECTORS.parent.parent
DEFAULT_SEEDS = REPO.parent / "shared" / "seeds"
SEED_NUMBERS = ("000", "002", "003", "004")

PH = "__placeholder__"  # sentinel key for comment-only containers
MAX_DOCS_PER_VARIANT = 3

# Fixed values used by completions (documented in README).
FIXED_TS = {
    "000": "2025-12-01T12:34:56.789Z",  # the timestamp of seed 000 §2.2
    "002": "2026-02-22T18:56:10+08:00",  # not used (seed 002 examples carry no timestamp field)
    # replaces datetime.utcnow().isoformat(), as Python writes it: microseconds, no offset (UTC)
    "003": "2025-12-01T12:34:56.789012",
    "004": "2026-02-10T10:05:00Z",  # a date used by seed 004 itself
}
UUID_NAMESPACE = uuid.UUID("6f0d3c1e-2b7a-4c59-9e38-5a1d2f7c4b10")
CONVERSATION_ID = "conv_1"  # seed 002 §12 uses conv_1
CONTEXT_ID = "ctx_vectors"


# ─────────────────────────────────────────────────────────────────────────────
# Rule table: our own reading of docs/protocol-rules.md (no generated schema is read).
# Node types: str, ts, int, num, bool, any, enum (closed or extensible), exact, pattern,
# obj (fields: name -> (spec, required); dyn: value -> extra fields; oneof; meta_rules),
# arr (item), dict (value; key_field must equal the key). `label` names the rule context
# (message type, event domain/type) so the variant cap treats e.g. USER_INPUT's content.text
# and SYSTEM_MESSAGE's content.text as different fields.
# ─────────────────────────────────────────────────────────────────────────────
def STR(**kw):
    return {"t": "str", **kw}


def TS():
    return {"t": "ts"}


def INT(min=0):
    return {"t": "int", "min": min}


def NUM(**kw):
    return {"t": "num", **kw}


def BOOL():
    return {"t": "bool"}


def ANY(**kw):
    return {"t": "any", **kw}


def ENUM(*values):
    return {"t": "enum", "values": list(values), "closed": True}


def XENUM(*values):
    return {"t": "enum", "values": list(values), "closed": False}


def EXACT(value, bad):
    return {"t": "exact", "value": value, "bad": bad}


def PATTERN(regex, bad, desc):
    return {"t": "pattern", "re": regex, "bad": bad, "desc": desc}


def OBJ(fields=None, **kw):
    return {"t": "obj", "fields": fields or {}, **kw}


def ARR(item, **kw):
    return {"t": "arr", "item": item, **kw}


def DICT(value, **kw):
    return {"t": "dict", "value": value, **kw}


def R(spec):
    return (spec, True)


def O(spec):
    return (spec, False)


def STRS():
    return ARR(STR())


# ── MCP-CP 1.0 message (seed 000 §2.2) ──
SENDER_TYPES = ("USER", "MODEL", "SYSTEM", "TOOL")
MESSAGE_TYPES = (
    "USER_INPUT", "MODEL_RESPONSE", "TOOL_CALL_REQUEST", "TOOL_CALL_RESPONSE", "SYSTEM_MESSAGE",
    "INSTRUCTION", "ERROR_RESPONSE", "CONTEXT_UPDATE", "CLIENT_CAPABILITIES",
    "TOOL_AVAILABILITY_REQUEST", "TOOL_AVAILABILITY_RESPONSE",
)
TOOL_CALL = OBJ({
    "callId": R(STR()), "name": R(STR()), "parameters": R(OBJ()),
    "description": O(STR()), "requiredAfter": O(STRS()), "timeout": O(NUM(gt=0)),
    "runtime": O(ENUM("FRONTEND", "BACKEND")), "userPrompt": O(STR()),
    "fallbackBehavior": O(ENUM("ABORT", "SKIP", "USE_ALTERNATIVE")), "uiSettings": O(OBJ()),
    "timeoutClient": O(NUM(gt=0)),
})
TOOL_RESULT = OBJ({
    "callId": R(STR()),
    "status": R(ENUM("SUCCESS", "ERROR", "TIMEOUT", "DENIED", "SKIPPED", "CANCELLED", "INTERRUPTED", "NOT_FOUND")),
    "result": O(ANY()),
    "error": O(OBJ({"code": R(STR()), "message": R(STR()), "details": O(OBJ())})),
    "executionTime": O(INT(0)),
    "clientInfo": O(OBJ({"deviceType": O(STR()), "browser": O(STR()), "version": O(STR()), "capabilities": O(STRS())})),
})
INSTRUCTION_ITEM = OBJ({
    "instructionId": R(STR()), "action": R(STR()), "parameters": O(OBJ()), "dependencies": O(STRS()),
    "condition": O(STR()), "timeout": O(NUM(gt=0)),
})


def _context_update_dyn(value):
    op = value.get("operation")
    if op == "ADD_MESSAGE":
        return {"message": R(MESSAGE)}
    if op == "UPDATE_STATE":
        return {"path": R(STR(nonempty=True, dotted=True)), "value": R(ANY(nullable=True))}
    if op == "CLEAR_HISTORY":
        return {"filter": O(OBJ({"beforeTimestamp": O(TS()), "role": O(STR()), "type": O(STR())}))}
    return {}


CONTENT = {
    "USER_INPUT": OBJ({
        "text": R(STR()),
        "attachments": O(ARR(OBJ({
            "type": R(ENUM("IMAGE", "FILE", "AUDIO", "VIDEO")), "url": R(STR()),
            "metadata": O(OBJ({"fileName": O(STR()), "fileSize": O(INT(0)), "mimeType": O(STR())})),
        }))),
    }),
    "MODEL_RESPONSE": OBJ({
        "text": R(STR()), "toolCalls": O(ARR(TOOL_CALL)),
        "finishReason": R(ENUM("STOP", "LENGTH", "TOOL_CALLS", "ERROR")),
        "usage": O(OBJ({"promptTokens": R(INT(0)), "completionTokens": R(INT(0)), "totalTokens": R(INT(0))})),
    }),
    "TOOL_CALL_REQUEST": OBJ({
        "calls": R(ARR(TOOL_CALL)),
        "executionMode": O(ENUM("SYNC", "ASYNC", "PARALLEL", "SEQUENTIAL", "FRONTEND_FIRST", "BACKEND_FIRST",
                                "CLIENT_SERVER_PARALLEL")),
        "timeout": O(NUM(gt=0)), "frontendTimeout": O(NUM(gt=0)), "backendTimeout": O(NUM(gt=0)),
    }),
    "TOOL_CALL_RESPONSE": OBJ({"results": R(ARR(TOOL_RESULT))}),
    "SYSTEM_MESSAGE": OBJ({"action": R(ENUM("NOTIFICATION", "WARNING", "ERROR", "INFO")), "text": R(STR()), "data": O(OBJ())}),
    "INSTRUCTION": OBJ({
        "instructions": R(ARR(INSTRUCTION_ITEM)),
        "executionMode": O(ENUM("SEQUENTIAL", "PARALLEL", "CONDITIONAL")), "timeout": O(NUM(gt=0)),
    }),
    "ERROR_RESPONSE": OBJ({
        "errorCode": R(STR()), "message": R(STR()), "details": O(OBJ()), "source": O(STR()),
        "recoverable": O(BOOL()), "suggestedAction": O(STR()),
    }),
    "CONTEXT_UPDATE": OBJ({
        "operation": R(ENUM("ADD_MESSAGE", "UPDATE_STATE", "CLEAR_HISTORY")), "expectedVersion": O(INT(0)),
    }, dyn=_context_update_dyn),
    "CLIENT_CAPABILITIES": OBJ({
        "clientId": R(STR()), "deviceType": O(STR()), "platform": O(STR()), "version": O(STR()),
        "supportedTools": O(ARR(OBJ({"toolId": R(STR()), "version": O(STR()), "capabilities": O(STRS())}))),
        "supportedFeatures": O(STRS()),
        "limitations": O(OBJ({"maxFileSize": O(INT(0)), "maxProcessingTime": O(INT(0))})),
    }),
    "TOOL_AVAILABILITY_REQUEST": OBJ({
        "tools": R(ARR(OBJ({"toolId": R(STR()), "minVersion": O(STR()), "requiredCapabilities": O(STRS())}))),
    }),
    "TOOL_AVAILABILITY_RESPONSE": OBJ({
        "availableTools": R(ARR(OBJ({
            "toolId": R(STR()), "available": R(BOOL()), "version": O(STR()), "capabilities": O(STRS()),
            "reason": O(STR()), "message": O(STR()),
        }))),
    }),
}
for _name, _spec in CONTENT.items():
    _spec["label"] = _name
UNKNOWN_CONTENT = OBJ(label="unknown-type")


def _message_dyn(value):
    return {"content": R(CONTENT.get(value.get("type"), UNKNOWN_CONTENT))}


MESSAGE = OBJ({
    "messageId": R(STR()), "contextId": R(STR()), "timestamp": R(TS()), "type": R(XENUM(*MESSAGE_TYPES)),
    "sender": R(OBJ({"id": R(STR()), "type": R(ENUM(*SENDER_TYPES))})),
    "content": R(OBJ()), "metadata": O(OBJ()),
}, dyn=_message_dyn)

# ── tool definition (seed 000 §4.5.1) ──
TOOL_DEFINITION = OBJ({
    "toolId": R(STR()), "name": R(STR()), "description": O(STR()), "version": O(STR()),
    "runtime": R(ENUM("FRONTEND", "BACKEND")), "capabilities": O(STRS()), "parameters": R(OBJ()),
    "returns": O(OBJ()), "permissionLevel": O(ENUM("NONE", "USER_CONSENT", "ALWAYS_ASK")),
})

# ── context structure (seed 000 §8.1) ──
MCP_CONTEXT = OBJ({
    "contextId": R(STR()), "creationTime": R(TS()), "lastUpdateTime": R(TS()),
    "messages": R(ARR(OBJ({
        "messageId": R(STR()), "type": R(XENUM(*MESSAGE_TYPES)), "content": R(OBJ()),
        "timestamp": O(TS()), "sender": O(OBJ({"id": R(STR()), "type": R(ENUM(*SENDER_TYPES))})),
        "metadata": O(OBJ()),
    }))),
    "state": R(OBJ({
        "currentTopic": O(STR()), "userPreferences": O(OBJ()), "activeTools": O(STRS()), "customState": O(OBJ()),
    })),
    "metadata": O(OBJ()), "version": O(INT(0)),
})

# ── easyflow-chat 1.1 event (seed 002) ──
EVENT_DOMAINS = ("llm", "tool", "system", "business", "workflow", "interaction", "debug")
TOOL_STATUS_LC = ("success", "error", "timeout", "denied", "skipped", "cancelled", "interrupted", "not_found")
PAYLOADS = {
    "llm/thinking": OBJ({"delta": O(STR()), "content": O(STR()), "signature": O(STR())}, oneof=["delta", "content"]),
    "llm/message": OBJ({"delta": O(STR()), "content": O(STR())}, oneof=["delta", "content"]),
    "tool/tool_call": OBJ({
        "tool_call_id": R(STR()), "name": R(STR()), "arguments": R(ANY()), "depends_on": O(STRS()),
        "runtime": O(ENUM("FRONTEND", "BACKEND")), "provider": O(STR()),
    }),
    "tool/tool_result": OBJ({
        "tool_call_id": R(STR()), "status": R(ENUM(*TOOL_STATUS_LC)), "result": O(ANY()), "error": O(ANY()),
        "duration_ms": O(INT(0)),
    }),
    "tool/tool_queued": OBJ({"tool_call_id": R(STR()), "name": R(STR()), "position": R(INT(0))}),
    "tool/tool_started": OBJ({"tool_call_id": R(STR())}),
    "tool/tool_progress": OBJ({"tool_call_id": R(STR()), "progress": R(NUM()), "total": O(NUM()), "message": O(STR())}),
    "tool/queue_drained": OBJ(),
    "system/error": OBJ({"code": R(STR()), "message": R(STR()), "retryable": O(BOOL()), "detail": O(ANY())}),
    "system/status": OBJ({"state": R(ENUM("initializing", "running", "suspended", "resumed", "cancelled", "failed", "completed"))}),
    "system/done": OBJ(),
    "business/error": OBJ({"code": R(STR()), "message": R(STR())}),
    "workflow/status": OBJ({
        "node_id": R(STR()), "state": R(ENUM("start", "suspend", "resume", "end", "failed", "skipped", "timeout")),
        "node_kind": O(ENUM("run", "instruction", "agent")), "reason": O(STR()), "turn": O(INT(0)), "max_turns": O(INT(0)),
    }),
    "workflow/graph": OBJ({"nodes": R(ARR(ANY())), "edges": R(ARR(ANY()))}),
    "interaction/form_request": OBJ({
        "form_id": R(STR()), "title": R(STR()), "schema": R(OBJ()), "description": O(STR()),
        "ui": O(OBJ({"submit_text": O(STR()), "cancel_text": O(STR()), "decline_text": O(STR())})),
        "requester": O(OBJ({"kind": O(ENUM("agent", "specialist", "mcp_server")), "name": O(STR())})),
    }),
    "interaction/form_cancel": OBJ({"form_id": R(STR()), "reason": O(STR())}),
    "interaction/form_result": OBJ({"form_id": R(STR()), "action": R(ENUM("accept", "decline", "cancel"))}),
    "interaction/consent_request": OBJ({
        "consent_id": R(STR()), "tool_call_id": R(STR()), "tool": R(STR()), "arguments": R(ANY()),
        "touches": R(STRS()), "risk": R(ENUM("low", "medium", "high")), "agent_says": O(STR()),
    }),
    "interaction/consent_result": OBJ({
        "consent_id": R(STR()), "decision": R(ENUM("allow_once", "allow_conversation", "allow_always", "deny")),
    }),
    "debug/log": OBJ({"level": R(ENUM("trace", "debug", "info", "warn", "error")), "message": R(STR())}),
}
for _name, _spec in PAYLOADS.items():
    _spec["label"] = _name
UNKNOWN_PAYLOAD = OBJ(label="unknown-type")


def _event_dyn(value):
    return {"payload": R(PAYLOADS.get(f"{value.get('domain')}/{value.get('type')}", UNKNOWN_PAYLOAD))}


EVENT = OBJ({
    "protocol": R(EXACT("easyflow-chat", bad="easyflow")),
    "version": R(PATTERN(r"1\.[0-9]+", bad="2.0", desc="must be 1.<n>")),
    "domain": R(XENUM(*EVENT_DOMAINS)), "type": R(STR()), "conversation_id": R(STR()),
    "message_id": O(STR()), "index": O(INT(0)), "payload": R(OBJ()),
    "meta": O(OBJ({
        "run_id": O(STR()), "seq": O(INT(0)), "ts": O(TS()), "prompt_tokens": O(INT(0)),
        "completion_tokens": O(INT(0)), "latency_ms": O(INT(0)), "first_token_latency_ms": O(INT(0)),
        "usage": O(OBJ()),
    })),
}, dyn=_event_dyn)


# ── form submission (seed 002 §12) ──
def _form_submission_dyn(value):
    if value.get("action", "accept") == "accept":
        return {"values": R(OBJ())}
    return {}


FORM_SUBMISSION = OBJ({
    "conversation_id": R(STR()), "form_id": R(STR()), "action": O(ENUM("accept", "decline", "cancel")),
    "values": O(OBJ()),
}, dyn=_form_submission_dyn)

# ── request / response (seed 003) ──
META_CORE_FIELDS = ("model", "root_id", "resources", "config", "metadata", "role", "content", "status",
                    "outputs", "trace_id", "context_updates", "error")
SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
REQUEST = OBJ({
    "model": R(STR(nonempty=True)), "root_id": R(STR()),
    "resources": R(ARR(OBJ({
        "role": R(XENUM("system", "user", "assistant", "tool")), "content": R(STR()), "status": O(STR()),
        "metadata": O(OBJ(meta_rules=True)),
    }))),
    "config": R(OBJ({
        "temperature": O(NUM(min=0, max=2)), "max_tokens": O(INT(1)), "top_p": O(NUM(min=0, max=1)),
        "stream": O(BOOL()), "function_call": O(ANY()),
    })),
    "metadata": R(OBJ({
        "request_id": R(STR()), "caller": O(STR()), "timestamp": O(TS()), "task_type": O(STR()),
        "topic": O(STR()), "env": O(STR()), "version": O(STR()), "source": O(STR()),
    }, meta_rules=True)),
}, closed_keys=True)


def _response_dyn(value):
    if value.get("status") == "error":
        return {"error": R(RESPONSE_ERROR)}
    return {}


RESPONSE_ERROR = OBJ({"code": R(STR()), "message": R(STR()), "detail": O(ANY())})
RESPONSE = OBJ({
    "status": R(ENUM("success", "in_progress", "tool_wait", "error")),
    "outputs": R(ARR(OBJ({"role": R(STR()), "content": R(ANY()), "metadata": O(OBJ())}))),
    "trace_id": R(STR()),
    "context_updates": O(ARR(OBJ({"type": R(STR())}))),
    "error": O(RESPONSE_ERROR),
    # Written by the system: the sys_ prefix (§3.3: 系统字段预留前缀) is allowed there.
    "metadata": O(OBJ(meta_rules="system")),
}, dyn=_response_dyn)

# ── context document (seed 004 §2, §4.1) ──
REF = OBJ({"evidence_id": R(STR()), "selector": O(STR())})
CONTEXT = OBJ({
    # Seed 004 §2: a structure version for compatible evolution: any 1.x is read.
    "schema_version": R(PATTERN(r"1\.[0-9]+", bad="2.0", desc='must look like "1.<n>"')),
    "meta": O(OBJ({
        "locale": O(STR()), "created_at": O(TS()), "updated_at": O(TS()),
        "actor": O(OBJ({
            "user_id": O(STR()), "user_role": O(STR()),
            "agent": O(OBJ({"agent_id": R(STR()), "name": O(STR()), "version": O(STR())})),
        })),
    })),
    "session": R(OBJ({
        # session_id or id (二选一即可): the either/or rule is in context_ref_errors.
        "session_id": O(STR()), "id": O(STR()),
        "messages": R(ARR(OBJ({
            "role": R(XENUM("system", "user", "assistant", "tool")), "content": R(STR()),
            "author": O(OBJ({"kind": R(ENUM("user", "agent", "tool", "system")), "id": O(STR())})),
            "at": O(TS()), "refs": O(ARR(REF)),
        }), nonempty=True)),
        "summary": O(OBJ({
            "content": O(STR()), "updated_at": O(TS()),
            "message_index_range": O(OBJ({"from": O(INT(0)), "to": O(INT(0))})),
        })),
        "task_state": R(OBJ({
            "todo_list": R(OBJ({
                "tasks": R(ARR(OBJ({
                    "task_id": R(STR()), "name": O(STR()), "depends_on": O(STRS()),
                    "status": O(ENUM("pending", "running", "completed", "failed", "skipped", "timeout")),
                    "result_evidence_ids": O(STRS()), "error": O(STR()),
                }))),
            })),
        })),
        "tool_state": O(OBJ({
            "tool_calls": O(ARR(OBJ({
                "tool_call_id": R(STR()), "task_id": O(STR()), "tool": O(STR()),
                "provider": O(OBJ({"kind": O(ENUM("builtin", "mcp", "other")), "name": O(STR()), "uri": O(STR())})),
                "type": O(ENUM("tool", "skill", "function_call")), "called_at": O(TS()), "args_digest": O(ANY()),
                "status": O(ENUM("success", "error", "timeout", "forbidden", "not_found", "skipped", "cancelled",
                                 "interrupted")),
                "duration_ms": O(INT(0)), "result_evidence_ids": O(STRS()),
            }))),
        })),
        "model_usage": O(ARR(OBJ({
            "model_usage_id": R(STR()), "task_id": O(STR()),
            "stage": O(ENUM("route", "plan", "tool_call", "answer", "summary", "other")),
            "provider": O(STR()), "model": O(STR()), "params": O(OBJ()),
            "prompt_tokens": O(INT(0)), "completion_tokens": O(INT(0)), "total_tokens": O(INT(0)),
            "first_token_latency_ms": O(INT(0)), "latency_ms": O(INT(0)),
            "status": O(ENUM("success", "error")), "error": O(STR()),
        }))),
    }, nonempty=True)),
    "evidences": R(DICT(OBJ({
        "evidence_id": R(STR()),
        "type": R(ENUM("rag_doc", "tool_result", "skill_output", "llm_output", "user_input", "other")),
        "source": R(OBJ({"kind": R(ENUM("rag", "tool", "skill", "llm", "user", "system")), "name": O(STR()),
                         "uri": O(STR())})),
        "content": O(ANY()), "confidence": O(NUM(min=0, max=1)), "metadata": O(OBJ()),
        "links": O(OBJ({"model_usage_id": O(STR()), "tool_call_id": O(STR())})),
    }), key_field="evidence_id")),
    "context_blocks": R(ARR(OBJ({
        "block_id": R(STR()),
        "block_type": R(ENUM("instruction", "conversation", "state", "plan", "evidence", "memory")),
        "priority": R(ENUM("must", "high", "medium", "low")), "token_estimate": O(INT(0)), "content": O(STR()),
        "refs": O(ARR(REF)), "expires_at": O(TS()),
    }))),
})

RULES = {
    "message": MESSAGE, "event": EVENT, "request": REQUEST, "response": RESPONSE, "context": CONTEXT,
    "tool-definition": TOOL_DEFINITION, "mcp-context": MCP_CONTEXT, "form-submission": FORM_SUBMISSION,
}

# ─────────────────────────────────────────────────────────────────────────────
# Walking documents against the rule table
# ─────────────────────────────────────────────────────────────────────────────
# The offset may be left out (read as UTC): the seeds' own examples write utcnow().isoformat().
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$")


def is_timestamp(value):
    if not isinstance(value, str) or not RFC3339.match(value):
        return False
    try:
        datetime.fromisoformat(value.upper().replace("Z", "+00:00"))  # no offset: naive, fine
    except ValueError:
        return False
    return True


def fmt_path(tokens):
    out = ""
    for t in tokens:
        if isinstance(t, int):
            out += f"[{t}]"
        else:
            out += ("." if out else "") + t
    return out or "$"


def norm_path(tokens):
    return fmt_path(["[]" if isinstance(t, int) else t for t in tokens]).replace(".[]", "[]")


def obj_fields(spec, value):
    fields = dict(spec["fields"])
    if spec.get("dyn"):
        fields.update(spec["dyn"](value))
    return fields


def traverse(value, spec, tokens=(), ctx=()):
    """Yield ("node", spec, value, tokens, ctx) for each value reached through the rules and
    ("field", spec, required, present, tokens, ctx) for each field an object's rules name."""
    if spec.get("label"):
        ctx = ctx + (spec["label"],)
    yield ("node", spec, value, tokens, ctx)
    t = spec["t"]
    if t == "obj" and isinstance(value, dict):
        for name, (fspec, required) in obj_fields(spec, value).items():
            present = name in value and (value[name] is not None or fspec.get("nullable", False))
            yield ("field", fspec, required, present, tokens + (name,), ctx)
            if name in value and (present or not required):
                yield from traverse(value[name], fspec, tokens + (name,), ctx)
    elif t == "arr" and isinstance(value, list):
        for i, item in enumerate(value):
            yield from traverse(item, spec["item"], tokens + (i,), ctx)
    elif t == "dict" and isinstance(value, dict):
        for key, item in value.items():
            yield from traverse(item, spec["value"], tokens + (key,), ctx)


def metadata_key_problems(value, tokens, system=False):
    """Seed 003 §3.3. `system`: the document is the system's own (a response), where the sys_
    prefix it reserves for itself is allowed."""
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = tokens + (key,)
            if not SNAKE_CASE.match(key):
                out.append((here, "metadata key must be snake_case"))
            elif key in META_CORE_FIELDS:
                out.append((here, "metadata key clashes with a core field"))
            elif key.startswith("sys_") and not system:
                out.append((here, "metadata keys starting with sys_ are reserved"))
            out += metadata_key_problems(item, here, system)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += metadata_key_problems(item, tokens + (i,), system)
    return out


def check_node(spec, value, tokens):
    t = spec["t"]
    bad = []
    if t == "str":
        if not isinstance(value, str):
            bad.append((tokens, "expected a string"))
        elif spec.get("nonempty") and value == "":
            bad.append((tokens, "must not be empty"))
        elif spec.get("dotted") and not re.fullmatch(r"[^.\s]+(\.[^.\s]+)*", value):
            bad.append((tokens, "expected a dotted path"))
    elif t == "ts":
        if not is_timestamp(value):
            bad.append((tokens, "expected an RFC 3339 timestamp"))
    elif t in ("int", "num"):
        is_num = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not is_num or (t == "int" and not isinstance(value, int)):
            bad.append((tokens, f"expected {'an integer' if t == 'int' else 'a number'}"))
        elif "min" in spec and value < spec["min"]:
            bad.append((tokens, f"must be >= {spec['min']}"))
        elif "gt" in spec and value <= spec["gt"]:
            bad.append((tokens, f"must be > {spec['gt']}"))
        elif "max" in spec and value > spec["max"]:
            bad.append((tokens, f"must be <= {spec['max']}"))
    elif t == "bool":
        if not isinstance(value, bool):
            bad.append((tokens, "expected a boolean"))
    elif t == "enum":
        if not isinstance(value, str):
            bad.append((tokens, "expected a string"))
        elif spec["closed"] and value not in spec["values"]:
            bad.append((tokens, f"not one of {'|'.join(spec['values'])}"))
    elif t == "exact":
        if value != spec["value"]:
            bad.append((tokens, f"must be {spec['value']!r}"))
    elif t == "pattern":
        if not isinstance(value, str) or not re.fullmatch(spec["re"], value):
            bad.append((tokens, spec["desc"]))
    elif t == "obj":
        if not isinstance(value, dict):
            bad.append((tokens, "expected an object"))
        else:
            if spec.get("nonempty") and not value:
                bad.append((tokens, "must not be empty"))
            if spec.get("oneof"):
                n = sum(1 for k in spec["oneof"] if k in value)
                if n != 1:
                    bad.append((tokens, f"exactly one of {', '.join(spec['oneof'])}"))
            if spec.get("meta_rules"):
                bad += metadata_key_problems(value, tokens, spec["meta_rules"] == "system")
            if spec.get("closed_keys"):
                for key in value:
                    if key not in spec["fields"]:
                        bad.append((tokens + (key,), "not a field of the request object: extensions belong "
                                    "in `metadata` or `config` (seed 003 §1.3)"))
    elif t == "arr":
        if not isinstance(value, list):
            bad.append((tokens, "expected an array"))
        elif spec.get("nonempty") and not value:
            bad.append((tokens, "must not be empty"))
    elif t == "dict":
        if not isinstance(value, dict):
            bad.append((tokens, "expected an object"))
        elif spec.get("key_field"):
            kf = spec["key_field"]
            for key, item in value.items():
                if isinstance(item, dict) and kf in item and item[kf] != key:
                    bad.append((tokens + (key, kf), "must equal its key"))
    return bad


def validate(doc, spec):
    problems = []
    for ev in traverse(doc, spec):
        if ev[0] == "field":
            _, _fspec, required, present, tokens, _ctx = ev
            if required and not present:
                problems.append((fmt_path(tokens), "required"))
        else:
            _, nspec, value, tokens, _ctx = ev
            problems += [(fmt_path(p), m) for p, m in check_node(nspec, value, tokens)]
    return problems + tool_result_errors(doc) + context_ref_errors(doc, spec)


def tool_result_errors(doc):
    """Seed 000 §3.4: a result's `error` is present only when its status is ERROR."""
    if not isinstance(doc, dict) or doc.get("type") != "TOOL_CALL_RESPONSE":
        return []
    results = (doc.get("content") or {}).get("results")
    out = []
    for i, r in enumerate(results if isinstance(results, list) else []):
        status = r.get("status") if isinstance(r, dict) else None
        if isinstance(r, dict) and "error" in r and status in MCP_TOOL_STATUSES and status != "ERROR":
            out.append((fmt_path(("content", "results", i, "error")), "present only when status is ERROR"))
    return out


def context_ref_errors(doc, spec):
    """Seed 004 §2 reference rules (the Rust validator's context_refs, selectors' ranges aside):
    the session's id (session_id or id), refs naming evidences, depends_on and task_id naming tasks,
    result_evidence_ids naming evidences, links naming model usages and tool calls, unique ids."""
    if spec is not CONTEXT or not isinstance(doc, dict):
        return []
    out = []
    session = doc.get("session") if isinstance(doc.get("session"), dict) else None
    if session is not None:
        sid, alt = session.get("session_id"), session.get("id")
        if sid is None and alt is None:
            out.append(("session.session_id", "required"))
        elif isinstance(sid, str) and isinstance(alt, str) and sid != alt:
            out.append(("session.id", "names another session than session.session_id"))
    evidences = doc.get("evidences") if isinstance(doc.get("evidences"), dict) else {}

    def items(container, key):
        v = container.get(key) if isinstance(container, dict) else None
        return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []

    def each(container, key, base):
        v = container.get(key) if isinstance(container, dict) else None
        return [(base + (i,), x) for i, x in enumerate(v) if isinstance(x, dict)] if isinstance(v, list) else []

    messages = each(session or {}, "messages", ("session", "messages"))
    blocks = each(doc, "context_blocks", ("context_blocks",))
    for tokens, item in messages + blocks:
        for rt, r in each(item, "refs", tokens + ("refs",)):
            if isinstance(r.get("evidence_id"), str) and r["evidence_id"] not in evidences:
                out.append((fmt_path(rt + ("evidence_id",)), "no such evidence in the document"))
    tasks = each(((session or {}).get("task_state") or {}).get("todo_list") or {}, "tasks",
                 ("session", "task_state", "todo_list", "tasks"))
    calls = each((session or {}).get("tool_state") or {}, "tool_calls", ("session", "tool_state", "tool_calls"))
    usages = each(session or {}, "model_usage", ("session", "model_usage"))

    def ids(lst, fld):
        seen = set()
        for tokens, x in lst:
            v = x.get(fld)
            if isinstance(v, str):
                if v in seen:
                    out.append((fmt_path(tokens + (fld,)), "given twice"))
                seen.add(v)
        return seen

    task_ids, call_ids, usage_ids = ids(tasks, "task_id"), ids(calls, "tool_call_id"), ids(usages, "model_usage_id")
    ids(blocks, "block_id")
    for tokens, t in tasks:
        for i, d in enumerate(t.get("depends_on") or []):
            if isinstance(d, str) and d not in task_ids:
                out.append((fmt_path(tokens + ("depends_on", i)), "no such task"))
    for tokens, x in tasks + calls:
        for i, e in enumerate(x.get("result_evidence_ids") or []):
            if isinstance(e, str) and e not in evidences:
                out.append((fmt_path(tokens + ("result_evidence_ids", i)), "no such evidence"))
    for tokens, c in calls:
        if isinstance(c.get("task_id"), str) and c["task_id"] not in task_ids:
            out.append((fmt_path(tokens + ("task_id",)), "no such task"))
    for key, ev in evidences.items():
        links = ev.get("links") if isinstance(ev, dict) and isinstance(ev.get("links"), dict) else {}
        if isinstance(links.get("model_usage_id"), str) and links["model_usage_id"] not in usage_ids:
            out.append((fmt_path(("evidences", key, "links", "model_usage_id")), "no such model usage"))
        if isinstance(links.get("tool_call_id"), str) and links["tool_call_id"] not in call_ids:
            out.append((fmt_path(("evidences", key, "links", "tool_call_id")), "no such tool call"))
    return out


MCP_TOOL_STATUSES = ("SUCCESS", "ERROR", "TIMEOUT", "DENIED", "SKIPPED", "CANCELLED", "INTERRUPTED", "NOT_FOUND")


DELETE = object()


@dataclass
class Variant:
    mutation: str
    tag: str  # "", "below-min", "above-max" (two bad_number variants at one path)
    tokens: tuple  # where the change is made
    ctx: tuple
    value: object  # DELETE or the new value
    expect: tuple = None  # expect_path tokens (defaults to tokens)


def rule_variants(doc, spec):
    out = []
    for ev in traverse(doc, spec):
        if ev[0] == "field":
            _, _fspec, required, present, tokens, ctx = ev
            if required and present:
                out.append(Variant("missing", "", tokens, ctx, DELETE))
            continue
        _, s, value, tokens, ctx = ev
        t = s["t"]
        if t == "enum" and s["closed"]:
            out.append(Variant("bad_enum", "", tokens, ctx, "NOT_A_VALUE"))
        elif t == "ts":
            out.append(Variant("bad_timestamp", "", tokens, ctx, "yesterday"))
        elif t in ("int", "num"):
            out.append(Variant("bad_number", "", tokens, ctx, "12"))
            if "min" in s:
                out.append(Variant("bad_number", "below-min", tokens, ctx, s["min"] - 1))
            if "gt" in s:  # exclusive minimum: the bound itself is already invalid
                out.append(Variant("bad_number", "below-min", tokens, ctx, s["gt"]))
            if "max" in s:
                out.append(Variant("bad_number", "above-max", tokens, ctx, s["max"] + 1))
        elif t in ("exact", "pattern"):
            out.append(Variant("bad_value", "", tokens, ctx, s["bad"]))
        elif t == "dict" and s.get("key_field") and isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, dict) and s["key_field"] in item:
                    out.append(Variant("bad_value", "", tokens + (key, s["key_field"]), ctx, "NOT_THE_KEY"))
    return out


def apply_variant(doc, variant):
    d = copy.deepcopy(doc)
    cur = d
    for t in variant.tokens[:-1]:
        cur = cur[t]
    if variant.value is DELETE:
        del cur[variant.tokens[-1]]
    else:
        cur[variant.tokens[-1]] = copy.deepcopy(variant.value)
    return d


# Seed 003 §3.3 metadata-key variants (not derivable from field rules): (valid file stem, tokens to
# set, value, mutation, expect tokens).
METADATA_VARIANTS = [
    ("003-1.3-request", ("metadata", "requestSource"), "web", "metadata_not_snake_case", None),
    ("003-1.3-request", ("metadata", "sys_priority"), "high", "metadata_reserved_prefix", None),
    ("003-1.3-request", ("metadata", "content"), "x", "metadata_core_field", None),
    ("003-3.3-request-metadata", ("resources", 1, "metadata", "triggerPlugin"), True, "metadata_not_snake_case", None),
    ("003-3.3-request-metadata", ("resources", 0, "metadata", "sys_locked_by"), "admin", "metadata_reserved_prefix", None),
    ("003-3.3-request-metadata", ("resources", 1, "metadata", "role"), "user", "metadata_core_field", None),
    ("003-4.2-request-doc-summary", ("metadata", "plugin_args"), {"maxItems": 3}, "metadata_not_snake_case",
     ("metadata", "plugin_args", "maxItems")),
    ("003-4.2-request-doc-summary", ("metadata", "trace_id"), "t-1", "metadata_core_field", None),
    ("003-2.3-response-success", ("metadata",), {"Status": "ok"}, "metadata_not_snake_case", ("metadata", "Status")),
    # Seed 003 §1.3: extensions (its own examples: tool_schema, response_mode) go into metadata or config.
    ("003-1.3-request", ("tool_schema",), {"type": "object"}, "unknown_top_level_field", None),
    ("003-3.3-request-metadata", ("response_mode",), "json", "unknown_top_level_field", None),
    # Seed 004 §2: what a document names must be in it; the session's id is session_id or id.
    ("004-2-context--answer", ("session", "messages", 2, "refs", 0, "evidence_id"), "ev_missing",
     "unresolved_reference", None),
    ("004-2-context--answer", ("session", "task_state", "todo_list", "tasks", 0, "depends_on"), ["t_missing"],
     "unresolved_reference", ("session", "task_state", "todo_list", "tasks", 0, "depends_on", 0)),
    ("004-2-context--answer", ("session", "task_state", "todo_list", "tasks", 0, "result_evidence_ids"),
     ["ev_missing"], "unresolved_reference",
     ("session", "task_state", "todo_list", "tasks", 0, "result_evidence_ids", 0)),
    ("004-2-context--answer", ("session", "session_id"), DELETE, "missing_session_id", None),
    # Seed 000 §3.4: `error` 仅在status为ERROR时存在.
    ("000-3.4-tool-call-response--success", ("content", "results", 0, "error"),
     {"code": "ERROR_CODE", "message": "错误描述"}, "error_without_error_status", None),
    ("000-3.4-tool-call-response--timeout", ("content", "results", 0, "error"),
     {"code": "ERROR_CODE", "message": "错误描述"}, "error_without_error_status", None),
]


# ─────────────────────────────────────────────────────────────────────────────
# Extraction
# ─────────────────────────────────────────────────────────────────────────────
@dataclass
class Example:
    seed: str
    section: str
    n: int  # ordinal within the section
    line: int
    raw: str
    value: object = None
    error: str = ""
    label: str = ""  # e.g. 例3-1

    @property
    def key(self):
        return (self.seed, self.section, self.n)


def scan_string(text, i):
    quote = text[i]
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    raise ValueError(f"unterminated string at offset {i}")


def skip_ws_comments(text, i):
    comments = []
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = len(text) if j < 0 else j
            comments.append(text[i + 2:j].strip())
            i = j
        elif text.startswith("/*", i):
            j = text.index("*/", i + 2)
            comments.append(text[i + 2:j].strip())
            i = j + 2
        else:
            break
    return i, comments


def strip_comments(text):
    """Remove // and /* */ comments outside strings. A container holding nothing but comments
    becomes a placeholder sentinel: [{PH: text}] or {PH: text}."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = scan_string(text, i)
            out.append(text[i:j])
            i = j
        elif text.startswith("//", i) or text.startswith("/*", i):
            i, _ = skip_ws_comments(text, i)
            out.append(" ")
        elif c in "[{":
            j, comments = skip_ws_comments(text, i + 1)
            close = "]" if c == "[" else "}"
            if comments and j < len(text) and text[j] == close:
                note = json.dumps(" ".join(comments), ensure_ascii=False)
                out.append(f'[{{"{PH}": {note}}}]' if c == "[" else f'{{"{PH}": {note}}}')
                i = j + 1
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def balanced_end(text, start, comments=True):
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c in "\"'" and (c == '"' or not comments):
            i = scan_string(text, i)
            continue
        if comments and (text.startswith("//", i) or text.startswith("/*", i)):
            i, _ = skip_ws_comments(text, i)
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError(f"unbalanced example starting at offset {start}")


HEADING_000 = re.compile(r"^(?:(\d+(?:\.\d+)+)\s+(?!\|)\S|(\d+)\.\s+\S)")
CODE_START_000 = re.compile(r"^(JavaScript|Java)实现示例\s*$")


def extract_000(text, skipped):
    lines = text.split("\n")
    offsets = list(itertools.accumulate([0] + [len(x) + 1 for x in lines]))
    examples, counters = [], {}
    section, code_from = None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = HEADING_000.match(line)
        if m:
            if code_from is not None:
                skipped.append(f"seed 000 lines {code_from}–{i}: {lines[code_from - 1].strip()} (sample code)")
                code_from = None
            section = m.group(1) or m.group(2)
            i += 1
            continue
        if CODE_START_000.match(line.strip()):
            if code_from is not None:
                skipped.append(f"seed 000 lines {code_from}–{i}: {lines[code_from - 1].strip()} (sample code)")
            code_from = i + 1
            i += 1
            continue
        if code_from is None and line.strip() == "{":
            start = offsets[i] + line.index("{")
            end = balanced_end(text, start)
            counters[section] = counters.get(section, 0) + 1
            examples.append(Example("000", section, counters[section], i + 1, text[start:end]))
            i = text.count("\n", 0, end) + 1
            continue
        i += 1
    for ex in examples:
        try:
            ex.value = json.loads(strip_comments(ex.raw))
        except ValueError as e:
            ex.error = f"not JSON after comment stripping: {e}"
    return examples


FENCE = re.compile(r"^```json[ \t]*\n(.*?)^```", re.M | re.S)


def extract_fenced(seed, text, heading_res):
    examples, counters = [], {}
    for m in FENCE.finditer(text):
        before = text[:m.start()]
        section = None
        best = -1
        for rx in heading_res:
            for h in rx.finditer(before):
                if h.start() > best:
                    best, section = h.start(), h.group(1)
        counters[section] = counters.get(section, 0) + 1
        ex = Example(seed, section, counters[section], text.count("\n", 0, m.start()) + 2, m.group(1))
        try:
            ex.value = json.loads(strip_comments(ex.raw))
        except ValueError as e:
            ex.error = f"not JSON: {e}"
        examples.append(ex)
    return examples


HEADINGS_002 = [re.compile(r"^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s", re.M)]
HEADINGS_004 = [re.compile(r"^\*\*(\d+(?:\.\d+)*)\s", re.M), re.compile(r"^#{2,6}\s+(\d+(?:\.\d+)*)\s", re.M)]
PY_DICT_START = re.compile(r"(?:request_object\s*=\s*|return\s+)(?=\{)")
SECTION_003 = re.compile(r"^🦋(\d+\.\d+)", re.M)
LABEL_003 = re.compile(r"【例(\d+-\d+)】")


def extract_003(text):
    examples, counters = [], {}
    for m in PY_DICT_START.finditer(text):
        start = m.end()
        end = balanced_end(text, start, comments=False)
        before = text[:start]
        section = [h.group(1) for h in SECTION_003.finditer(before)][-1]
        label = [h.group(1) for h in LABEL_003.finditer(before)][-1]
        counters[section] = counters.get(section, 0) + 1
        ex = Example("003", section, counters[section], text.count("\n", 0, start) + 1, text[start:end],
                     label=f"例{label}")
        n_uuid = itertools.count(1)

        def fixed_uuid(_m, ex=ex):
            return repr(str(uuid.uuid5(UUID_NAMESPACE, f"seed003/{ex.section}/{ex.n}/{next(n_uuid)}")))

        src = re.sub(r"str\(uuid\.uuid4\(\)\)", fixed_uuid, ex.raw)
        src = src.replace("datetime.utcnow().isoformat()", repr(FIXED_TS["003"]))
        try:
            ex.value = ast.literal_eval(src)  # True/False/None become JSON true/false/null on output
        except (ValueError, SyntaxError) as e:
            ex.error = f"not a Python literal after substitutions: {e}"
        examples.append(ex)
    return examples


def read_seed(seeds, number):
    files = sorted(seeds.glob(f"{number}_*.txt"))
    if len(files) != 1:
        raise SystemExit(f"expected exactly one seed {number}_*.txt in {seeds}, found {len(files)}")
    return files[0].read_text(encoding="utf-8")


# ─────────────────────────────────────────────────────────────────────────────
# Completions: one entry per example. Each returns Built documents.
# ─────────────────────────────────────────────────────────────────────────────
@dataclass
class Expansion:
    tokens: tuple
    values: list
    names: list
    apply: Callable = None
    origin: str = ""

    def do(self, doc, value):
        if self.apply:
            self.apply(doc, value)
        else:
            set_at(doc, self.tokens, value)


@dataclass
class Built:
    slug: str
    kind: str
    doc: object
    expansions: list = field(default_factory=list)


def set_at(doc, tokens, value):
    cur = doc
    for t in tokens[:-1]:
        cur = cur[t]
    cur[tokens[-1]] = value


def get_at(doc, tokens):
    for t in tokens:
        doc = doc[t]
    return doc


def is_ph(value):
    return (isinstance(value, dict) and set(value) == {PH}) or (
        isinstance(value, list) and len(value) == 1 and is_ph(value[0]))


def has_ph(value):
    if isinstance(value, dict):
        return PH in value or any(has_ph(v) for v in value.values())
    if isinstance(value, list):
        return any(has_ph(v) for v in value)
    return False


def fill(doc, tokens, value):
    assert is_ph(get_at(doc, tokens)), f"expected a placeholder at {fmt_path(tokens)}"
    set_at(doc, tokens, value)


DEFAULT_SENDER = {
    "USER_INPUT": {"id": "user_123", "type": "USER"},
    "MODEL_RESPONSE": {"id": "model_gpt4", "type": "MODEL"},
    "TOOL_CALL_REQUEST": {"id": "model_gpt4", "type": "MODEL"},
    "TOOL_CALL_RESPONSE": {"id": "tool_runtime", "type": "TOOL"},
    "SYSTEM_MESSAGE": {"id": "system", "type": "SYSTEM"},
    "INSTRUCTION": {"id": "system", "type": "SYSTEM"},
    "ERROR_RESPONSE": {"id": "system", "type": "SYSTEM"},
    "CONTEXT_UPDATE": {"id": "system", "type": "SYSTEM"},
    "CLIENT_CAPABILITIES": {"id": "client_abc123", "type": "USER"},
    "TOOL_AVAILABILITY_REQUEST": {"id": "model_gpt4", "type": "MODEL"},
    "TOOL_AVAILABILITY_RESPONSE": {"id": "system", "type": "SYSTEM"},
}
MINIMAL_CONTENT = {
    "USER_INPUT": {"text": "你好"},
    "MODEL_RESPONSE": {"text": "您好!有什么可以帮助您的?", "finishReason": "STOP"},
    "TOOL_CALL_REQUEST": {"calls": [{"callId": "call_001", "name": "calculator", "parameters": {"expression": "2*(3+4)"}}]},
    "TOOL_CALL_RESPONSE": {"results": [{"callId": "call_001", "status": "SUCCESS", "result": {"value": 14}}]},
    "SYSTEM_MESSAGE": {"action": "INFO", "text": "系统消息内容"},
    "INSTRUCTION": {"instructions": [{"instructionId": "inst_1", "action": "QUERY_DATA"}]},
    "ERROR_RESPONSE": {"errorCode": "INTERNAL_ERROR", "message": "系统内部错误"},
    "CONTEXT_UPDATE": {"operation": "CLEAR_HISTORY"},
    "CLIENT_CAPABILITIES": {"clientId": "client_abc123"},
    "TOOL_AVAILABILITY_REQUEST": {"tools": [{"toolId": "frontend_camera"}]},
    "TOOL_AVAILABILITY_RESPONSE": {"availableTools": [{"toolId": "frontend_camera", "available": True}]},
}
# A real minimal ToolCall (from seed 000 §4.3) for the empty toolCalls of §3.2.
FILL_TOOL_CALL = {"callId": "call_001", "name": "weather_api", "parameters": {"city": "北京"}}
# Front-end + back-end calls (from seed 000 §4.6.1) for `/* 前端和后端工具列表 */` of §4.6.2.
FILL_MIXED_CALLS = [
    {"callId": "call_frontend_201", "name": "file_picker", "runtime": "FRONTEND",
     "parameters": {"accept": ".jpg,.png", "multiple": False}},
    {"callId": "call_backend_202", "name": "image_analyze", "runtime": "BACKEND",
     "parameters": {"imageData": "${results.call_frontend_201.result.fileData}", "analyzeType": "object_detection"},
     "requiredAfter": ["call_frontend_201"]},
]
# Instruction lists for `[ /* 指令列表 */ ]` of §5.3.1–5.3.3, one per execution mode.
FILL_INSTRUCTIONS = {
    "5.3.1": [
        {"instructionId": "inst_1", "action": "QUERY_DATA", "parameters": {"query": "SELECT * FROM users", "limit": 10}},
        {"instructionId": "inst_2", "action": "PROCESS_DATA", "parameters": {"data": "${dependencies.inst_1.result.data}"},
         "dependencies": ["inst_1"]},
    ],
    "5.3.2": [
        {"instructionId": "inst_1", "action": "QUERY_DATA", "parameters": {"query": "SELECT * FROM users"}},
        {"instructionId": "inst_2", "action": "QUERY_DATA", "parameters": {"query": "SELECT * FROM products"}},
    ],
    "5.3.3": [
        {"instructionId": "inst_1", "action": "detect_anomaly", "parameters": {"threshold": 0.8}},
        {"instructionId": "inst_2", "action": "send_notification", "parameters": {"message": "检测到异常数据"},
         "dependencies": ["inst_1"], "condition": "dependencies.inst_1.result.anomaly_detected == true"},
    ],
}
# A whole MCP-CP message for the empty `"message": { // 消息对象 }` of §8.2.1.
FILL_ADD_MESSAGE = {
    "messageId": "msg_003", "contextId": "ctx_abcdefg", "timestamp": "2025-12-01T10:06:00Z", "type": "USER_INPUT",
    "sender": {"id": "user_123", "type": "USER"}, "content": {"text": "明天呢?"},
}
ERROR_SOURCE_VALUES = ["客户端", "服务端", "工具", "系统"]
ERROR_SOURCE_NAMES = ["client", "server", "tool", "system"]


def message(ex, type_, content, sender=None):
    return {
        "messageId": f"msg_000_{ex.section.replace('.', '_')}_{ex.n}", "contextId": CONTEXT_ID,
        "timestamp": FIXED_TS["000"], "type": type_, "sender": copy.deepcopy(sender or DEFAULT_SENDER[type_]),
        "content": content,
    }


def from_fragment(ex):
    v = copy.deepcopy(ex.value)
    assert set(v) == {"type", "content"}, f"{ex.key}: not a type+content fragment"
    return message(ex, v["type"], v["content"])


def one(slug, kind="message"):
    def handler(ex):
        return [Built(slug, kind, copy.deepcopy(ex.value))]
    return handler


def frag(slug):
    return lambda ex: [Built(slug, "message", from_fragment(ex))]


def wrap_call(slug):
    def handler(ex):
        assert "callId" in ex.value
        return [Built(slug, "message", message(ex, "TOOL_CALL_REQUEST", {"calls": [copy.deepcopy(ex.value)]}))]
    return handler


def wrap_result(slug):
    def handler(ex):
        assert "callId" in ex.value and "status" in ex.value
        return [Built(slug, "message", message(ex, "TOOL_CALL_RESPONSE", {"results": [copy.deepcopy(ex.value)]}))]
    return handler


def wrap_instruction(slug, complete=None):
    def handler(ex):
        inst = copy.deepcopy(ex.value)
        if complete:
            inst = {**complete, **inst}
        assert "instructionId" in inst and "action" in inst
        return [Built(slug, "message", message(ex, "INSTRUCTION", {"instructions": [inst]}))]
    return handler


def h_envelope(ex):
    doc = copy.deepcopy(ex.value)
    assert doc["type"] == "MESSAGE_TYPE" and is_ph(doc["content"]) and is_ph(doc["metadata"])
    doc["content"] = {}  # set per message type by the expansion below
    doc["metadata"] = {}  # "自定义键值对": an empty extensible object is valid, kept empty

    def apply(d, t):
        d["type"] = t
        d["content"] = copy.deepcopy(MINIMAL_CONTENT[t])

    exp = Expansion(("type",), list(MESSAGE_TYPES), [t.lower() for t in MESSAGE_TYPES], apply,
                    '"MESSAGE_TYPE" with an empty content: each message type with a minimal valid content')
    return [Built("envelope", "message", doc, [exp])]


def h_tool_call_response_3_4(ex):
    # The example's `error` is commented 仅在status为ERROR时存在: kept for ERROR only.
    doc = from_fragment(ex)
    result = doc["content"]["results"][0]
    # ERROR first: the variant the invalid vectors are made from keeps the error object.
    statuses = sorted(alternatives(result["status"]), key=lambda st: st != "ERROR")

    def apply(d, status):
        r = d["content"]["results"][0]
        r["status"] = status
        if status != "ERROR":
            r.pop("error", None)

    exp = Expansion(("content", "results", 0, "status"), statuses, [value_slug(a) for a in statuses], apply,
                    f'"{result["status"]}"')
    return [Built("tool-call-response", "message", doc, [exp])]


def h_model_response_3_2(ex):
    doc = from_fragment(ex)
    fill(doc, ("content", "toolCalls"), [copy.deepcopy(FILL_TOOL_CALL)])
    return [Built("model-response", "message", doc)]


def tool_calls_both(slug):
    def handler(ex):
        v = copy.deepcopy(ex.value)
        calls = v.pop("toolCalls")
        request = message(ex, "TOOL_CALL_REQUEST", {"calls": calls, **v})
        response = message(ex, "MODEL_RESPONSE", {"text": "", "toolCalls": copy.deepcopy(calls), "finishReason": "TOOL_CALLS"})
        return [Built(f"{slug}-request", "message", request), Built(f"{slug}-model-response", "message", response)]
    return handler


def h_mixed_4_6_2(ex):
    doc = from_fragment(ex)
    fill(doc, ("content", "calls"), copy.deepcopy(FILL_MIXED_CALLS))
    return [Built("frontend-first", "message", doc)]


def h_instruction_list(slug):
    def handler(ex):
        doc = from_fragment(ex)
        fill(doc, ("content", "instructions"), copy.deepcopy(FILL_INSTRUCTIONS[ex.section]))
        return [Built(slug, "message", doc)]
    return handler


def h_error_response(ex):
    doc = from_fragment(ex)
    assert "客户端|服务端|工具|系统" in ex.raw and doc["content"]["source"] in ERROR_SOURCE_VALUES
    exp = Expansion(("content", "source"), ERROR_SOURCE_VALUES, ERROR_SOURCE_NAMES, None,
                    '"服务端" with the comment 错误来源:客户端|服务端|工具|系统')
    return [Built("error-response", "message", doc, [exp])]


def h_add_message(ex):
    doc = from_fragment(ex)
    fill(doc, ("content", "message"), copy.deepcopy(FILL_ADD_MESSAGE))
    return [Built("add-message", "message", doc)]


EVENT_ORDER = ("protocol", "version", "domain", "type", "conversation_id", "message_id", "index", "payload", "meta")


def event(slug):
    def handler(ex):
        doc = {"protocol": "easyflow-chat", "version": "1.1", "conversation_id": CONVERSATION_ID}
        doc.update(copy.deepcopy(ex.value))
        doc.setdefault("payload", {})
        ordered = {k: doc[k] for k in EVENT_ORDER if k in doc}
        ordered.update({k: v for k, v in doc.items() if k not in ordered})
        return [Built(slug, "event", ordered)]
    return handler


# (seed, section, ordinal) -> (what the example is and what was done, handler)
EXAMPLES = {
    ("000", "2.2", 1): ("basic message structure; type MESSAGE_TYPE + empty content expanded to every message type "
                        "with a minimal content; sender.type expanded; empty metadata kept", h_envelope),
    ("000", "3.1", 1): ("USER_INPUT fragment: envelope added; attachment type expanded", frag("user-input")),
    ("000", "3.2", 1): ("MODEL_RESPONSE fragment: envelope added; empty toolCalls filled with one ToolCall "
                        "(weather_api from §4.3); finishReason expanded", h_model_response_3_2),
    ("000", "3.3", 1): ("TOOL_CALL_REQUEST fragment: envelope added; executionMode expanded", frag("tool-call-request")),
    ("000", "3.4", 1): ("TOOL_CALL_RESPONSE fragment: envelope added; status expanded (the example's error object "
                        "kept for ERROR only, as its comment says: 仅在status为ERROR时存在)", h_tool_call_response_3_4),
    ("000", "3.5", 1): ("SYSTEM_MESSAGE fragment: envelope added; action expanded", frag("system-message")),
    ("000", "3.6", 1): ("INSTRUCTION fragment: envelope added; executionMode expanded", frag("instruction")),
    ("000", "4.1", 1): ("bare toolCalls array: as a TOOL_CALL_REQUEST's calls and as a MODEL_RESPONSE's toolCalls "
                        "(text \"\", finishReason TOOL_CALLS)", tool_calls_both("tool-calls")),
    ("000", "4.2.1", 1): ("bare tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("calculator")),
    ("000", "4.2.2", 1): ("bare tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("database-query")),
    ("000", "4.2.3", 1): ("bare tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("weather-api")),
    ("000", "4.2.4", 1): ("bare tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("image-generator")),
    ("000", "4.3", 1): ("TOOL_CALL_REQUEST fragment (PARALLEL): envelope added", frag("parallel-calls")),
    ("000", "4.4", 1): ("bare tool result: wrapped into a TOOL_CALL_RESPONSE", wrap_result("tool-result")),
    ("000", "4.5.1", 1): ("front-end tool definition: kind tool-definition as is", one("frontend-screenshot", "tool-definition")),
    ("000", "4.5.2", 1): ("bare front-end tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("frontend-screenshot-call")),
    ("000", "4.5.4", 1): ("bare front-end tool result: wrapped into a TOOL_CALL_RESPONSE", wrap_result("frontend-screenshot-result")),
    ("000", "4.5.5", 1): ("bare front-end tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("highlight-element")),
    ("000", "4.5.5", 2): ("bare front-end tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("access-camera")),
    ("000", "4.5.5", 3): ("bare front-end tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("local-image-resize")),
    ("000", "4.5.5", 4): ("bare front-end tool call: wrapped into a TOOL_CALL_REQUEST", wrap_call("geolocation")),
    ("000", "4.6.1", 1): ("bare {toolCalls, executionMode, timeout}: as a TOOL_CALL_REQUEST (calls + executionMode "
                          "+ timeout) and as a MODEL_RESPONSE's toolCalls (executionMode/timeout dropped there)",
                          tool_calls_both("tool-chain")),
    ("000", "4.6.2", 1): ("TOOL_CALL_REQUEST fragment: envelope added; `/* 前端和后端工具列表 */` filled with a "
                          "FRONTEND file_picker and a BACKEND image_analyze call (from §4.6.1)", h_mixed_4_6_2),
    ("000", "4.7.1", 1): ("CLIENT_CAPABILITIES fragment: envelope added (sender USER client_abc123)", frag("client-capabilities")),
    ("000", "4.7.2", 1): ("TOOL_AVAILABILITY_REQUEST fragment: envelope added", frag("tool-availability-request")),
    ("000", "4.7.2", 2): ("TOOL_AVAILABILITY_RESPONSE fragment: envelope added", frag("tool-availability-response")),
    ("000", "5.1", 1): ("bare instruction: wrapped into an INSTRUCTION message", wrap_instruction("instruction")),
    ("000", "5.3.1", 1): ("INSTRUCTION fragment: envelope added; `[ /* 指令列表 */ ]` filled with two dependent "
                          "instructions", h_instruction_list("sequential")),
    ("000", "5.3.2", 1): ("INSTRUCTION fragment: envelope added; `[ /* 指令列表 */ ]` filled with two independent "
                          "instructions", h_instruction_list("parallel")),
    ("000", "5.3.3", 1): ("INSTRUCTION fragment: envelope added; `[ /* 指令列表 */ ]` filled with an instruction and a "
                          "conditional one", h_instruction_list("conditional")),
    ("000", "6.1.1", 1): ("bare instruction: wrapped into an INSTRUCTION message", wrap_instruction("execution-dependency")),
    ("000", "6.1.2", 1): ("bare instruction: wrapped into an INSTRUCTION message", wrap_instruction("data-dependency")),
    ("000", "6.1.3", 1): ("bare instruction: wrapped into an INSTRUCTION message", wrap_instruction("conditional-dependency")),
    ("000", "6.2", 1): ("bare {condition}: completed into an instruction (instructionId inst_2, action ANALYZE_DATA, "
                        "dependencies [inst_1]) inside an INSTRUCTION message",
                        wrap_instruction("condition-expression",
                                         {"instructionId": "inst_2", "action": "ANALYZE_DATA", "dependencies": ["inst_1"]})),
    ("000", "7.2", 1): ("ERROR_RESPONSE fragment: envelope added; source expanded from its comment "
                        "客户端|服务端|工具|系统 (files named client/server/tool/system)", h_error_response),
    ("000", "8.1", 1): ("context structure: kind mcp-context as is", one("context", "mcp-context")),
    ("000", "8.2.1", 1): ("CONTEXT_UPDATE ADD_MESSAGE fragment: envelope added; the empty message placeholder "
                          "filled with a whole USER_INPUT message", h_add_message),
    ("000", "8.2.2", 1): ("CONTEXT_UPDATE UPDATE_STATE fragment: envelope added", frag("update-state")),
    ("000", "8.2.3", 1): ("CONTEXT_UPDATE CLEAR_HISTORY fragment: envelope added", frag("clear-history")),
    ("000", "9.1", 1): ("whole message, as is", one("user-input")),
    ("000", "9.1", 2): ("whole message, as is", one("model-response-tool-calls")),
    ("000", "9.1", 3): ("whole message, as is", one("tool-call-response")),
    ("000", "9.1", 4): ("whole message, as is", one("model-response-final")),
    ("000", "9.2", 1): ("whole message, as is", one("user-input")),
    ("000", "9.2", 2): ("whole message, as is", one("instruction")),
    ("000", "9.2", 3): ("whole message, as is", one("model-response-report")),
    ("002", "4.1", 1): ("whole envelope; domain expanded; type \"string\", ids \"string\" kept (unknown type: any "
                        "payload)", event("envelope")),
    ("002", "6.1", 1): ("llm/thinking delta fragment: protocol, version, conversation_id added", event("llm-thinking-delta")),
    ("002", "6.1", 2): ("\"完整输出\" under 6.1 thinking, but the seed shows type message: kept as llm/message "
                        "content; protocol, version, conversation_id added", event("llm-message-content")),
    ("002", "6.2", 1): ("llm/message delta fragment: protocol, version, conversation_id added", event("llm-message-delta")),
    ("002", "6.2", 2): ("llm/message content fragment: protocol, version, conversation_id added", event("llm-message-content")),
    ("002", "7.1", 1): ("tool/tool_call fragment: protocol, version, conversation_id added", event("tool-call")),
    ("002", "7.2", 1): ("tool/tool_result fragment: protocol, version, conversation_id added; status expanded",
                        event("tool-result")),
    ("002", "8.1", 1): ("system/error fragment: protocol, version, conversation_id added", event("system-error")),
    ("002", "8.2", 1): ("system/status fragment: protocol, version, conversation_id added; state expanded",
                        event("system-status")),
    ("002", "9", 1): ("business/error fragment: protocol, version, conversation_id added", event("business-error")),
    ("002", "10", 1): ("workflow/status fragment: protocol, version, conversation_id added; state expanded",
                       event("workflow-status")),
    ("002", "11.1", 1): ("interaction/form_request fragment: protocol, version, conversation_id added", event("form-request")),
    ("002", "11.2", 1): ("interaction/form_cancel fragment: protocol, version, conversation_id added", event("form-cancel")),
    ("002", "12", 1): ("form submission: kind form-submission as is", one("form-submission", "form-submission")),
    ("002", "13", 1): ("system/done fragment: protocol, version, conversation_id and payload {} added", event("system-done")),
    ("003", "1.3", 1): ("例3-1 request dict literal: uuid4() and utcnow() replaced by fixed values", one("request", "request")),
    ("003", "2.3", 1): ("例3-2 success response dict literal: uuid4() replaced", one("response-success", "response")),
    ("003", "2.3", 2): ("例3-2 error response dict literal: uuid4() replaced", one("response-error", "response")),
    ("003", "3.3", 1): ("例3-3 request with resource metadata: uuid4() and utcnow() replaced",
                        one("request-metadata", "request")),
    ("003", "4.2", 1): ("例3-4 request: uuid4() and utcnow() replaced", one("request-doc-summary", "request")),
    ("004", "2", 1): ("full context document; every `a|b|c` enum placeholder expanded (other placeholders at their "
                      "first value); called_at \"…\" given a timestamp", one("context", "context")),
    ("004", "4.1", 1): ("MVP context document; at \"…\" and summary.updated_at \"\" given timestamps", one("mvp", "context")),
}
# Examples that cannot become a document: (seed, section, ordinal) -> reason. None so far.
UNCONVERTIBLE: dict = {}


# ─────────────────────────────────────────────────────────────────────────────
# Placeholder expansion and timestamp completion
# ─────────────────────────────────────────────────────────────────────────────
ALT_TOKEN = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]*$")


def alternatives(value):
    """`"USER|MODEL|SYSTEM|TOOL"`, `"llm | tool | …"`, `"pangu|qwen|deepseek|..."` -> the values."""
    if not isinstance(value, str) or "|" not in value:
        return None
    parts = [p.strip() for p in value.split("|")]
    values = [p for p in parts if p not in ("...", "…")]
    if len(values) < 2 or not all(ALT_TOKEN.match(p) for p in values):
        return None
    return values


def iter_paths(value, tokens=()):
    yield tokens, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from iter_paths(v, tokens + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from iter_paths(v, tokens + (i,))


def value_slug(value):
    return re.sub(r"[^a-z0-9_.]+", "-", value.lower()).strip("-")


def qualified_names(expansions):
    """File-name suffix per (expansion, value): the value, qualified by the field's last key(s) when
    two fields of one example share a value (e.g. tool_calls.status-success, model_usage.status-success)."""
    entries = [(e, name) for e in expansions for name in e.names]
    levels = [0] * len(entries)

    def render(i):
        e, name = entries[i]
        keys = [t for t in e.tokens if isinstance(t, str)]
        return name if levels[i] == 0 else ".".join(keys[-levels[i]:]) + "-" + name

    while True:
        rendered = [render(i) for i in range(len(entries))]
        dups = {r for r in rendered if rendered.count(r) > 1}
        if not dups:
            return rendered
        for i, r in enumerate(rendered):
            if r in dups:
                levels[i] += 1
                if levels[i] > len(entries[i][0].tokens):
                    raise ValueError(f"cannot name expansion {r}")


def expand(built):
    doc = built.doc
    order = {tokens: i for i, (tokens, _) in enumerate(iter_paths(doc))}
    expansions = list(built.expansions)
    special = {e.tokens for e in expansions}
    for tokens, v in iter_paths(doc):
        alts = alternatives(v)
        if alts and tokens not in special:
            expansions.append(Expansion(tokens, alts, [value_slug(a) for a in alts], None, f'"{v}"'))
    expansions.sort(key=lambda e: order[e.tokens])
    if not expansions:
        return [("", copy.deepcopy(doc))], []
    base = copy.deepcopy(doc)
    for e in expansions:
        e.do(base, e.values[0])
    names = iter(qualified_names(expansions))
    out = []
    for e in expansions:
        for v in e.values:
            d = copy.deepcopy(base)
            e.do(d, v)
            out.append((next(names), d))
    notes = [f"{fmt_path(e.tokens)}: {e.origin} → {', '.join(e.values)}" for e in expansions]
    return out, notes


def fill_timestamps(doc, spec, seed):
    filled = []
    for ev in list(traverse(doc, spec)):
        if ev[0] == "node" and ev[1]["t"] == "ts" and not is_timestamp(ev[2]):
            filled.append(f"{fmt_path(ev[3])} {json.dumps(ev[2], ensure_ascii=False)} → {FIXED_TS[seed]}")
            set_at(doc, ev[3], FIXED_TS[seed])
    return filled


SELECTOR_RE = re.compile(r"(?:(?:field|lines|chars):[^,]+|[A-Za-z_\[][A-Za-z0-9_.\[\]]*)(?:,(?:(?:field|lines|chars):[^,]+|[A-Za-z_\[][A-Za-z0-9_.\[\]]*))*")
# 20 lines of 40 characters: what seed 004's `lines:12-18,chars:120-260` can select from.
EVIDENCE_TEXT = "\n".join(f"第{n:02d}行：" + "可引用片段或结构化摘要（已脱敏）" * 3 for n in range(1, 21))


def fill_selectors(doc):
    """Seed 004's refs: a selector written as prose (`可选：指向 evidence.content 的片段/字段路径`) becomes
    `lines:12-18`; an evidence whose content is the one-line placeholder gets a text those selectors fit."""
    notes = []
    if not isinstance(doc, dict) or "context_blocks" not in doc:
        return notes
    holders = [m for m in (doc.get("session") or {}).get("messages") or [] if isinstance(m, dict)]
    holders += [b for b in doc.get("context_blocks") or [] if isinstance(b, dict)]
    cited = set()
    for h in holders:
        for r in h.get("refs") or []:
            sel = r.get("selector")
            if isinstance(sel, str) and not SELECTOR_RE.fullmatch(sel):
                notes.append(f"refs selector {json.dumps(sel, ensure_ascii=False)} → \"lines:12-18\"")
                r["selector"] = "lines:12-18"
            if isinstance(r.get("selector"), str):
                cited.add(r.get("evidence_id"))
    for key, ev in (doc.get("evidences") or {}).items():
        if key in cited and isinstance(ev, dict) and isinstance(ev.get("content"), str) and "\n" not in ev["content"]:
            notes.append(f"evidences.{key}.content (one line) → 20 lines of 40 characters, for its refs' selectors")
            ev["content"] = EVIDENCE_TEXT
    return notes


# ─────────────────────────────────────────────────────────────────────────────
# Build everything
# ─────────────────────────────────────────────────────────────────────────────
@dataclass
class ValidDoc:
    name: str  # file stem
    kind: str
    doc: object
    source: str
    example: str  # example id, for spreading variants across examples


@dataclass
class Report:
    examples: list = field(default_factory=list)  # (source, line, description, files, notes)
    skipped: list = field(default_factory=list)
    unconvertible: list = field(default_factory=list)


def source_of(ex):
    return f"seed {ex.seed} §{ex.section}"


def build(seeds):
    report = Report()
    examples = []
    examples += extract_000(read_seed(seeds, "000"), report.skipped)
    examples += extract_fenced("002", read_seed(seeds, "002"), HEADINGS_002)
    examples += extract_003(read_seed(seeds, "003"))
    examples += extract_fenced("004", read_seed(seeds, "004"), HEADINGS_004)

    found = {ex.key for ex in examples}
    errors = []
    for key in EXAMPLES:
        if key not in found and key not in UNCONVERTIBLE:
            errors.append(f"table entry {key} matches no extracted example")
    valid = []
    for ex in examples:
        if ex.key in UNCONVERTIBLE:
            report.unconvertible.append((source_of(ex), ex.line, UNCONVERTIBLE[ex.key]))
            continue
        if ex.error:
            errors.append(f"{source_of(ex)} #{ex.n} (line {ex.line}): {ex.error}")
            continue
        if ex.key not in EXAMPLES:
            errors.append(f"{source_of(ex)} #{ex.n} (line {ex.line}): no entry in EXAMPLES or UNCONVERTIBLE")
            continue
        description, handler = EXAMPLES[ex.key]
        files, notes = [], []
        for b in handler(ex):
            docs, exp_notes = expand(b)
            notes += exp_notes
            stem = f"{ex.seed}-{ex.section}-{b.slug}"
            for suffix, doc in docs:
                name = f"{stem}--{suffix}" if suffix else stem
                for n in fill_timestamps(doc, RULES[b.kind], ex.seed) + fill_selectors(doc):
                    if n not in notes:
                        notes.append(n)
                if has_ph(doc):
                    errors.append(f"{name}: a placeholder was left unfilled")
                problems = validate(doc, RULES[b.kind])
                if problems:
                    errors.append(f"{name}: valid document breaks the rules: {problems}")
                valid.append(ValidDoc(name, b.kind, doc, source_of(ex), stem))
                files.append(f"valid/{b.kind}/{name}.json")
        label = f" ({ex.label})" if ex.label else ""
        report.examples.append((f"{source_of(ex)}{label} #{ex.n}", ex.line, description, files, notes))
    names = [v.name for v in valid]
    for n in sorted({n for n in names if names.count(n) > 1}):
        errors.append(f"duplicate valid file name {n}")
    if errors:
        raise SystemExit("extract.py: cannot build the vectors:\n  " + "\n  ".join(errors))
    invalid = build_invalid(valid)
    return valid, invalid, report


@dataclass
class InvalidDoc:
    name: str
    kind: str
    doc: object
    source: str
    mutation: str
    expect_path: str


def build_invalid(valid):
    by_key = {}  # (kind, mutation, tag, normalised path, ctx) -> [(valid doc, variant)]
    for v in sorted(valid, key=lambda v: v.name):
        per_doc = {}
        for var in rule_variants(v.doc, RULES[v.kind]):
            per_doc[(var.mutation, var.tag, norm_path(var.tokens), var.ctx)] = var  # last occurrence wins
        for (mutation, tag, npath, ctx), var in per_doc.items():
            by_key.setdefault((v.kind, mutation, tag, npath, ctx), []).append((v, var))
    chosen = []
    for key in sorted(by_key, key=lambda k: (k[0], k[1], k[2], k[3], "/".join(k[4]))):
        candidates = by_key[key]
        picked, seen = [], set()
        for i, (v, _var) in enumerate(candidates):  # first pass: one document per seed example
            if len(picked) < MAX_DOCS_PER_VARIANT and v.example not in seen:
                picked.append(i)
                seen.add(v.example)
        for i in range(len(candidates)):
            if len(picked) < MAX_DOCS_PER_VARIANT and i not in picked:
                picked.append(i)
        chosen += [candidates[i] for i in sorted(picked)]
    by_name = {v.name: v for v in valid}
    for stem, tokens, value, mutation, expect in METADATA_VARIANTS:
        chosen.append((by_name[stem], Variant(mutation, "", tokens, (), value, expect)))

    out, errors = [], []
    for v, var in chosen:
        doc = apply_variant(v.doc, var)
        expect = fmt_path(var.expect or var.tokens)
        name = f"{v.name}--{var.mutation}--{expect}" + (f"--{var.tag}" if var.tag else "")
        paths = [p for p, _ in validate(doc, RULES[v.kind])]
        if expect not in paths:
            errors.append(f"{name}: the rules do not reject it at {expect} (problems: {paths})")
        out.append(InvalidDoc(name, v.kind, doc, v.source, var.mutation, expect))
    names = [d.name for d in out]
    for n in sorted({n for n in names if names.count(n) > 1}):
        errors.append(f"duplicate invalid file name {n}")
    if errors:
        raise SystemExit("extract.py: invalid variants are not rejected by the rule table:\n  " + "\n  ".join(errors))
    return out


# ─────────────────────────────────────────────────────────────────────────────
# Output
# ─────────────────────────────────────────────────────────────────────────────
def dump(value):
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


JUDGEMENT_CALLS = [
    "Fragments get a fixed envelope: messageId `msg_000_<section>_<n>`, contextId `ctx_vectors`, timestamp "
    "`2025-12-01T12:34:56.789Z` (the one of §2.2), and a sender by message type: USER_INPUT → USER user_123; "
    "MODEL_RESPONSE, TOOL_CALL_REQUEST, TOOL_AVAILABILITY_REQUEST → MODEL model_gpt4; TOOL_CALL_RESPONSE → TOOL "
    "tool_runtime; SYSTEM_MESSAGE, INSTRUCTION, ERROR_RESPONSE, CONTEXT_UPDATE, TOOL_AVAILABILITY_RESPONSE → "
    "SYSTEM system; CLIENT_CAPABILITIES → USER client_abc123 (the client announces itself on the user's side).",
    "Seed 002 fragments get `protocol: \"easyflow-chat\"`, `version: \"1.1\"`, `conversation_id: \"conv_1\"` (the id "
    "of §12), `payload: {}` when absent (§13 done); keys are put in the §4.1 envelope order.",
    "Seed 003: the n-th `str(uuid.uuid4())` of an example becomes uuid5(fixed namespace, `seed003/<section>/<n>/<k>`), "
    "so root_id and request_id differ and are stable; `datetime.utcnow().isoformat()` becomes what Python writes, "
    "`2025-12-01T12:34:56.789012` (no offset: read as UTC).",
    "Timestamp fields (per the rule table) whose value is not RFC 3339 (`\"…\"`, `\"\"`) get `2026-02-10T10:05:00Z` "
    "in seed 004. Other `…`/`uuid`/`string`/`xxxx` values are kept: they are valid strings.",
    "Seed 004 refs: a selector written as prose (`可选：指向 evidence.content 的片段/字段路径`) becomes "
    "`lines:12-18`, and an evidence whose `content` is the one-line placeholder gets 20 lines of 40 characters, "
    "so that the seed's own `lines:12-18,chars:120-260` selects from it (a selector points into `evidence.content`, "
    "seed 004 §2, and one that selects nothing is refused).",
    "Alternatives: one document per value of each placeholder field, the other placeholder fields at their first "
    "value, so the first-value documents of the fields of one example are identical (kept, one per value name). "
    "`...`/`…` items are dropped from a list of alternatives. File suffixes are the value in lower case; when two "
    "fields of one example share a value the suffix is qualified by the field's last key(s) "
    "(`tool_calls.status-success`, `model_usage.status-success`, `kind-other`, `stage-other`, `type-other`, ...).",
    "Seed 000 §7.2 `\"source\": \"服务端\"` is not itself a list, but its comment lists 客户端|服务端|工具|系统: expanded "
    "to the four values, files named client/server/tool/system (ASCII file names).",
    "Seed 000 §2.2 `\"type\": \"MESSAGE_TYPE\"` with empty content → one document per message type with a minimal "
    "valid content (CONTEXT_UPDATE uses CLEAR_HISTORY without filter); its empty `metadata` is kept `{}`.",
    "Bare toolCalls arrays (§4.1, §4.6.1) become both a TOOL_CALL_REQUEST and a MODEL_RESPONSE (text \"\", which the "
    "rules allow, finishReason TOOL_CALLS); other bare tool calls (§4.2.x, §4.5.2, §4.5.5) only a TOOL_CALL_REQUEST.",
    "Seed 002 §6.1's \"完整输出\" block has type `message`, not `thinking`; it is kept as written (so it equals "
    "§6.2's content block). No llm/thinking `content` document is invented.",
    "Valid documents keep the seeds' dangling references (requiredAfter `call_abcdef`, dependencies `inst_abcdef`, "
    "refs to evidence `uuid`): the rules do not ask for references to resolve.",
    "Variants: a `missing` variant only for a required field present in the valid document (conditionally required "
    "fields included: response `error` when status is error, form-submission `values` when action is absent or "
    "accept, CONTEXT_UPDATE per-operation fields). `bad_number` gives the string \"12\" and, where the rules give a "
    "bound, a value beyond it: inclusive minimum → min−1 (`--below-min`), exclusive `> 0` → 0 itself "
    "(`--below-min`), maximum → max+1 (`--above-max`). `bad_value` covers exact values (protocol → \"easyflow\", "
    "schema_version → \"2.0\"), the event version pattern `1.<n>` (→ \"2.0\") and evidence_id ≠ its key.",
    "Cap: at most 3 documents per (kind, mutation, normalised path, rule context); the rule context is the message "
    "type / event domain+type whose rules apply, so e.g. USER_INPUT's and SYSTEM_MESSAGE's `content.text` count as "
    "different fields. Documents from different seed examples are preferred; within one document the last array "
    "item is used (so indices other than 0 are exercised).",
    "No `missing` variant for llm/thinking and llm/message `delta`/`content` (\"exactly one of\": the rules do not "
    "say at which path the problem is reported).",
    "Metadata rules (seed 003 §3.3) are checked for request.metadata, resources[].metadata and response.metadata "
    "(every nesting level); not for response outputs[].metadata, about which the rules say only \"object\".",
    "mcp-context messages are checked only for messageId/type/content (the rules' list), not content by type: "
    "seed 000 §8.1's MODEL_RESPONSE has no finishReason and is valid as an mcp-context.",
]


def render_readme(valid, invalid, report):
    kinds = sorted(RULES)
    lines = [
        "# Protocol test vectors",
        "",
        "Generated by `extract.py` from the seed documents (`../shared/seeds/` beside the repo); do not edit the",
        "files here by hand, edit the script and regenerate. The rules they follow are `docs/protocol-rules.md`;",
        "the invalid variants come from the script's own rule table (its reading of that file), not from any",
        "generated schema, so they check the Rust validator independently.",
        "",
        "- `valid/<kind>/<seed>-<section>-<slug>[--<value>].json`: every JSON example of seeds 000, 002, 003, 004,",
        "  completed into a whole document of its kind; one file per value of a placeholder listing alternatives.",
        "- `invalid/<kind>/<valid-name>--<mutation>--<path>[--below-min|--above-max].json`: one rule broken;",
        "  the validator must report a problem at `expect_path`.",
        "- `manifest.json`: every file with kind, valid, source (seed and section) and, for invalid files,",
        "  `expect_path` and `mutation` (missing, bad_enum, bad_timestamp, bad_number, bad_value,",
        "  metadata_not_snake_case, metadata_reserved_prefix, metadata_core_field, error_without_error_status).",
        "",
        "Regenerate: `python3 tests/vectors/extract.py [--seeds DIR]` (default seeds: `../shared/seeds` from the",
        "repo root). Stale files under `valid/` and `invalid/` are removed.",
        "",
        "Check: `python3 tests/vectors/extract.py --check` exits 1 naming every file that differs from what the",
        "script would write (changed, missing or stale), 0 when up to date.",
        "",
        "The script refuses to write when a valid document breaks its rule table, when an invalid variant is",
        "not rejected at its expect_path, when a placeholder is left unfilled, or when an extracted example has",
        "no entry in its table.",
        "",
        "## Counts",
        "",
        "| kind | valid | invalid |",
        "| --- | ---: | ---: |",
    ]
    for k in kinds:
        nv = sum(1 for v in valid if v.kind == k)
        ni = sum(1 for v in invalid if v.kind == k)
        lines.append(f"| {k} | {nv} | {ni} |")
    lines.append(f"| total | {len(valid)} | {len(invalid)} |")
    lines += ["", "## Completions and choices", ""]
    lines += [f"- {j}" for j in JUDGEMENT_CALLS]
    lines += ["", "## Seed examples and what each became", ""]
    for source, line, description, files, notes in report.examples:
        lines.append(f"- **{source}** (line {line}): {description}.")
        for n in notes:
            lines.append(f"  - {n}")
        names = [Path(f).stem for f in files]
        lines.append(f"  - {len(files)} file(s) in `valid/{Path(files[0]).parent.name}/`: " + ", ".join(
            f"`{n}`" for n in names))
    lines += ["", "## Skipped", ""]
    lines += [f"- {s}" for s in report.skipped]
    lines += [f"- {s} (line {ln}): {r}" for s, ln, r in report.unconvertible]
    if not report.unconvertible:
        lines.append("- No example was left out: every JSON example outside sample code became a document.")
    return "\n".join(lines) + "\n"


def render(valid, invalid, report):
    files = {}
    entries = []
    for v in valid:
        path = f"valid/{v.kind}/{v.name}.json"
        files[path] = dump(v.doc)
        entries.append({"file": path, "kind": v.kind, "valid": True, "source": v.source})
    for d in invalid:
        path = f"invalid/{d.kind}/{d.name}.json"
        files[path] = dump(d.doc)
        entries.append({"file": path, "kind": d.kind, "valid": False, "expect_path": d.expect_path,
                        "mutation": d.mutation, "source": d.source})
    entries.sort(key=lambda e: e["file"])
    files["manifest.json"] = dump({"vectors": entries})
    files["README.md"] = render_readme(valid, invalid, report)
    return files


def existing_generated():
    out = set()
    for top in ("valid", "invalid"):
        root = VECTORS / top
        if root.exists():
            out |= {p.relative_to(VECTORS).as_posix() for p in root.rglob("*") if p.is_file()}
    for name in ("manifest.json", "README.md"):
        if (VECTORS / name).exists():
            out.add(name)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS, help="seed folder (default: ../shared/seeds from the repo root)")
    ap.add_argument("--check", action="store_true", help="compare with the files on disk instead of writing")
    args = ap.parse_args(argv)
    valid, invalid, report = build(args.seeds.resolve())
    files = render(valid, invalid, report)
    on_disk = existing_generated()

    if args.check:
        differing = []
        for path in sorted(set(files) | on_disk):
            target = VECTORS / path
            if path not in files:
                differing.append(f"stale: {path}")
            elif not target.exists():
                differing.append(f"missing: {path}")
            elif target.read_bytes() != files[path].encode("utf-8"):
                differing.append(f"differs: {path}")
        if differing:
            print("\n".join(differing))
            print(f"{len(differing)} file(s) differ; run python3 tests/vectors/extract.py", file=sys.stderr)
            return 1
        print(f"up to date: {len(files)} files ({len(valid)} valid, {len(invalid)} invalid vectors)")
        return 0

    for path in sorted(on_disk - set(files)):
        (VECTORS / path).unlink()
    for top in ("valid", "invalid"):
        root = VECTORS / top
        if root.exists():
            for d in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
                if not any(d.iterdir()):
                    d.rmdir()
    written = 0
    for path, text in files.items():
        target = VECTORS / path
        data = text.encode("utf-8")
        if target.exists() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    counts = ", ".join(
        f"{k} {sum(v.kind == k for v in valid)}/{sum(d.kind == k for d in invalid)}" for k in sorted(RULES))
    print(f"{len(valid)} valid, {len(invalid)} invalid ({counts}); {written} file(s) written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
