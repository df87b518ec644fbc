//! Importing a seed-004 context document as a new conversation. The whole document is checked
//! first, by `tessera_protocol::validate` and then against what the store needs (ids unique,
//! parents present, refs naming evidences of the document with selectors that select
//! something); if anything is wrong nothing is written and every problem is returned. The
//! import itself is one transaction. See [`crate::export`] for the extension fields read back.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use tessera_protocol::context_doc::{
    ContextBlock, ContextDocument, Evidence, EvidenceRef, ModelUsage, SessionMessage, Summary,
    Task, ToolCallRecord,
};
use tessera_protocol::{validate, DocumentKind, Problem};

use crate::attachments::{self, AttachmentRef};
use crate::conversations::{self, Conversation, DocExtras};
use crate::error::{Result, StoreError};
use crate::export::{
    ATTACHMENTS, BRANCH_MESSAGES, MESSAGE_ID, PARENT_ID, TESSERA_META, TREE_INDEX,
};
use crate::messages::{self, StoredMessage};
use crate::tx::WriteTx;
use crate::{blocks, clock, evidences, ids, refs, summary, tasks, tool_calls, usage, Store};

/// What an import wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportReport {
    pub conversation_id: String,
    pub messages: usize,
    pub evidences: usize,
}

/// Everything an import writes, checked.
struct Plan {
    conversation: Conversation,
    extras: DocExtras,
    messages: Vec<StoredMessage>,
    evidences: Vec<(Evidence, Vec<AttachmentRef>)>,
    tasks: Vec<Task>,
    tool_calls: Vec<ToolCallRecord>,
    usage: Vec<ModelUsage>,
    blocks: Vec<ContextBlock>,
    summary: Option<Summary>,
}

#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn add(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }
}

/// A message before it has its place in the tree.
struct Draft {
    path: String,
    id: String,
    /// `None`: a root.
    parent: Option<String>,
    tree_index: Option<u64>,
    message: SessionMessage,
}

fn take_string(
    message: &mut SessionMessage,
    key: &str,
    path: &str,
    problems: &mut Problems,
) -> Option<String> {
    match message.extra.remove(key) {
        None => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            problems.add(format!("{path}.{key}"), "expected string");
            None
        }
    }
}

fn take_index(message: &mut SessionMessage, path: &str, problems: &mut Problems) -> Option<u64> {
    match message.extra.remove(TREE_INDEX) {
        None => None,
        Some(value) => value.as_u64().or_else(|| {
            problems.add(format!("{path}.{TREE_INDEX}"), "expected an integer >= 0");
            None
        }),
    }
}

/// The messages of the document and the id of the active leaf (the last of `session.messages`).
fn drafts(document: &mut ContextDocument, problems: &mut Problems) -> (Vec<Draft>, Option<String>) {
    let mut out = Vec::new();
    let mut previous: Option<String> = None;
    for (i, mut message) in std::mem::take(&mut document.session.messages)
        .into_iter()
        .enumerate()
    {
        let path = format!("session.messages[{i}]");
        let id = take_string(&mut message, MESSAGE_ID, &path, problems).unwrap_or_else(ids::new_id);
        let parent = take_string(&mut message, PARENT_ID, &path, problems);
        if parent.is_some() && parent != previous {
            problems.add(
                format!("{path}.{PARENT_ID}"),
                "must be the message before it on the active branch",
            );
        }
        let tree_index = take_index(&mut message, &path, problems);
        out.push(Draft {
            path,
            id: id.clone(),
            parent: previous.clone(),
            tree_index,
            message,
        });
        previous = Some(id);
    }
    let active_leaf = previous;
    match document.session.extra.remove(BRANCH_MESSAGES) {
        None => {}
        Some(Value::Array(items)) => {
            for (j, item) in items.into_iter().enumerate() {
                let path = format!("session.{BRANCH_MESSAGES}[{j}]");
                let mut message: SessionMessage = match serde_json::from_value(item) {
                    Ok(message) => message,
                    Err(e) => {
                        problems.add(path, format!("not a message: {e}"));
                        continue;
                    }
                };
                let Some(id) = take_string(&mut message, MESSAGE_ID, &path, problems) else {
                    problems.add(format!("{path}.{MESSAGE_ID}"), "required");
                    continue;
                };
                let parent = take_string(&mut message, PARENT_ID, &path, problems);
                let tree_index = take_index(&mut message, &path, problems);
                out.push(Draft {
                    path,
                    id,
                    parent,
                    tree_index,
                    message,
                });
            }
        }
        Some(_) => problems.add(format!("session.{BRANCH_MESSAGES}"), "expected array"),
    }
    (out, active_leaf)
}

/// Orders drafts as they were written (parents first) and places them in the tree.
fn place(
    mut drafts: Vec<Draft>,
    conversation_id: &str,
    problems: &mut Problems,
) -> Vec<StoredMessage> {
    let mut seen = HashSet::new();
    for d in &drafts {
        if !seen.insert(d.id.clone()) {
            problems.add(
                format!("{}.{MESSAGE_ID}", d.path),
                format!("message id {:?} is used twice", d.id),
            );
        }
    }
    if drafts.iter().all(|d| d.tree_index.is_some()) {
        drafts.sort_by_key(|d| d.tree_index);
    }
    let mut depths: HashMap<String, u64> = HashMap::new();
    let mut placed = Vec::with_capacity(drafts.len());
    for d in drafts {
        let depth = match &d.parent {
            None => 0,
            Some(parent) => match depths.get(parent) {
                Some(depth) => depth + 1,
                None => {
                    let message = if seen.contains(parent) {
                        format!("parent {parent:?} must come before its children")
                    } else {
                        format!("no message {parent:?} in the document")
                    };
                    problems.add(format!("{}.{PARENT_ID}", d.path), message);
                    continue;
                }
            },
        };
        depths.insert(d.id.clone(), depth);
        placed.push(StoredMessage {
            id: d.id,
            conversation_id: conversation_id.to_owned(),
            parent_id: d.parent,
            depth,
            message: d.message,
        });
    }
    placed
}

fn check_refs(
    list: Option<&Vec<EvidenceRef>>,
    path: &str,
    contents: &HashMap<&str, Option<&Value>>,
    problems: &mut Problems,
) {
    for (k, field, message) in
        refs::problems_in_memory(list.map_or(&[][..], Vec::as_slice), contents)
    {
        problems.add(format!("{path}.refs[{k}].{field}"), message);
    }
}

fn duplicates<'a>(
    ids: impl Iterator<Item = &'a str>,
    path: &str,
    what: &str,
    problems: &mut Problems,
) {
    let mut seen = HashSet::new();
    for (i, id) in ids.enumerate() {
        if !seen.insert(id) {
            problems.add(
                format!("{path}[{i}]"),
                format!("{what} {id:?} is used twice"),
            );
        }
    }
}

fn plan(mut document: ContextDocument) -> std::result::Result<Plan, Vec<Problem>> {
    let mut problems = Problems::default();
    let conversation_id = document.session.id().unwrap_or_default().to_owned();
    let (drafts, active_leaf) = drafts(&mut document, &mut problems);

    let mut evidence_list = Vec::new();
    for (key, evidence) in document.evidences.iter() {
        let mut evidence = evidence.clone();
        let refs = match evidence.extra.remove(ATTACHMENTS) {
            None => Vec::new(),
            Some(value) => match serde_json::from_value::<Vec<AttachmentRef>>(value) {
                Ok(list) => {
                    for (k, r) in list.iter().enumerate() {
                        if !attachments::is_sha256(&r.sha256) {
                            problems.add(
                                format!("evidences.{key}.{ATTACHMENTS}[{k}].sha256"),
                                "not a SHA-256 in lowercase hex",
                            );
                        }
                    }
                    list
                }
                Err(e) => {
                    problems.add(
                        format!("evidences.{key}.{ATTACHMENTS}"),
                        format!("not a list of attachment refs: {e}"),
                    );
                    Vec::new()
                }
            },
        };
        evidence_list.push((evidence, refs));
    }
    let contents: HashMap<&str, Option<&Value>> = evidence_list
        .iter()
        .map(|(e, _)| (e.evidence_id.as_str(), e.content.as_ref()))
        .collect();
    for d in &drafts {
        check_refs(d.message.refs.as_ref(), &d.path, &contents, &mut problems);
    }
    for (b, block) in document.context_blocks.iter().enumerate() {
        check_refs(
            block.refs.as_ref(),
            &format!("context_blocks[{b}]"),
            &contents,
            &mut problems,
        );
    }
    let messages = place(drafts, &conversation_id, &mut problems);

    let session = &document.session;
    let tasks = session.task_state.todo_list.tasks.clone();
    duplicates(
        tasks.iter().map(|t| t.task_id.as_str()),
        "session.task_state.todo_list.tasks",
        "task id",
        &mut problems,
    );
    let tool_calls = session
        .tool_state
        .as_ref()
        .and_then(|s| s.tool_calls.clone())
        .unwrap_or_default();
    duplicates(
        tool_calls.iter().map(|c| c.tool_call_id.as_str()),
        "session.tool_state.tool_calls",
        "tool call id",
        &mut problems,
    );
    let usage = session.model_usage.clone().unwrap_or_default();
    duplicates(
        usage.iter().map(|u| u.model_usage_id.as_str()),
        "session.model_usage",
        "model usage id",
        &mut problems,
    );
    duplicates(
        document.context_blocks.iter().map(|b| b.block_id.as_str()),
        "context_blocks",
        "block id",
        &mut problems,
    );

    let mut meta = document.meta.clone().unwrap_or_default();
    let (mut title, mut pinned, mut archived) = (String::new(), false, false);
    if let Some(list_attributes) = meta.extra.remove(TESSERA_META) {
        let field = |name: &str| list_attributes.get(name).cloned();
        match (field("title"), field("pinned"), field("archived")) {
            (t, p, a)
                if t.as_ref().is_none_or(Value::is_string)
                    && p.as_ref().is_none_or(Value::is_boolean)
                    && a.as_ref().is_none_or(Value::is_boolean) =>
            {
                title = t
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                pinned = p.and_then(|v| v.as_bool()).unwrap_or(false);
                archived = a.and_then(|v| v.as_bool()).unwrap_or(false);
            }
            _ => problems.add(
                format!("meta.{TESSERA_META}"),
                "expected {title: string, pinned: boolean, archived: boolean}",
            ),
        }
    }
    if !problems.0.is_empty() {
        let mut list = problems.0;
        list.sort();
        list.dedup();
        return Err(list);
    }
    let created_at = meta.created_at.clone().unwrap_or_else(clock::now);
    let conversation = Conversation {
        id: conversation_id,
        title,
        updated_at: meta
            .updated_at
            .clone()
            .unwrap_or_else(|| created_at.clone()),
        created_at,
        pinned,
        archived,
        active_leaf_id: active_leaf,
        locale: meta.locale.clone(),
        actor: meta.actor.clone(),
        // A project is this app's own grouping, not part of the document.
        project_id: None,
    };
    let mut document = document;
    let extras = DocExtras {
        doc: std::mem::take(&mut document.extra),
        meta: std::mem::take(&mut meta.extra),
        session: std::mem::take(&mut document.session.extra),
        task_state: std::mem::take(&mut document.session.task_state.extra),
        todo_list: std::mem::take(&mut document.session.task_state.todo_list.extra),
        tool_state: document
            .session
            .tool_state
            .as_mut()
            .map(|s| std::mem::take(&mut s.extra))
            .unwrap_or_default(),
    };
    Ok(Plan {
        conversation,
        extras,
        messages,
        evidences: evidence_list,
        tasks,
        tool_calls,
        usage,
        blocks: document.context_blocks,
        summary: document.session.summary,
    })
}

/// Problems of a document JSON that does not even parse into the document type.
fn mismatch(error: &serde_json::Error) -> Vec<Problem> {
    vec![Problem {
        path: "$".into(),
        message: format!("does not fit the context document: {error}"),
    }]
}

impl Store {
    /// Imports a seed-004 document as a new conversation (its `session.session_id`, or
    /// `session.id`). Nothing
    /// is written unless the whole document is valid; otherwise the error
    /// ([`StoreError::InvalidDocument`]) lists every problem.
    pub fn import_document(&self, document: &Value) -> Result<ImportReport> {
        let problems = validate(DocumentKind::Context, document);
        if !problems.is_empty() {
            return Err(StoreError::InvalidDocument { problems });
        }
        let typed: ContextDocument =
            serde_json::from_value(document.clone()).map_err(|e| StoreError::InvalidDocument {
                problems: mismatch(&e),
            })?;
        let plan = plan(typed).map_err(|problems| StoreError::InvalidDocument { problems })?;
        self.write(move |tx| write_plan(tx, plan))
    }
}

fn write_plan(tx: &mut WriteTx<'_>, plan: Plan) -> Result<ImportReport> {
    let conn = tx.conn;
    let id = plan.conversation.id.clone();
    if conversations::get(conn, &id)?.is_some() {
        return Err(StoreError::InvalidDocument {
            problems: vec![Problem {
                path: "session.session_id".into(),
                message: format!("a conversation {id:?} already exists"),
            }],
        });
    }
    let without_leaf = Conversation {
        active_leaf_id: None,
        ..plan.conversation.clone()
    };
    conversations::insert(conn, &without_leaf, &plan.extras)?;
    // Messages first: an evidence that copies one (an answer kept to be cited) is then known
    // as such, and found through the message's index rows.
    for message in &plan.messages {
        messages::insert(tx, message)?;
    }
    for (evidence, refs) in &plan.evidences {
        for r in refs {
            // The document carries the reference, not the bytes.
            attachments::record(conn, &r.sha256, 0, r.mime_type.as_deref())?;
        }
        evidences::upsert(conn, &id, evidence, refs, None)?;
        for r in refs {
            tx.ctx.pins.unpin(&r.sha256);
        }
    }
    for task in &plan.tasks {
        tasks::upsert(conn, &id, task)?;
    }
    for call in &plan.tool_calls {
        tool_calls::upsert(conn, &id, &tool_calls::ToolCallRow::from(call.clone()))?;
    }
    for record in &plan.usage {
        usage::upsert(conn, &id, record)?;
    }
    for block in &plan.blocks {
        blocks::upsert(conn, &id, block)?;
    }
    if let Some(summary) = &plan.summary {
        summary::set(conn, &id, summary)?;
    }
    conversations::set_times(conn, &plan.conversation)?;
    Ok(ImportReport {
        conversation_id: id,
        messages: plan.messages.len(),
        evidences: plan.evidences.len(),
    })
}
