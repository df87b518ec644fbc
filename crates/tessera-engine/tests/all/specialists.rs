//! Specialists as tools, against the scripted provider over real HTTP and a real store: the
//! researcher runs its own loop with its own prompt and tools, reports its turns, its search
//! hits become what the final answer cites, and what it cost is part of the turn's usage; the
//! planner's bad plan goes back to its model, the corrected one runs through the scheduler
//! (dependencies honoured) and stays as the conversation's task list.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::run_support;

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_engine::builtin_tools::register_builtin_tools;
use tessera_engine::engine::{Engine, ModelChoice};
use tessera_engine::specialists::{builtin, register_specialists, SpecialistDeps};
use tessera_engine::tools::ToolRegistry;
use tessera_engine::turn::TurnOptions;
use tessera_protocol::context_doc::{EvidenceType, TaskStatus, UsageStage};
use tessera_protocol::easyflow::{EventBody, NodeKind};
use tessera_protocol::request::Role;
use tessera_store::conversations::NewConversation;
use tessera_store::{text_message, NewMessage, Store, StoredEvent};
use tessera_testkit::event_order::check_run;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

use run_support::{json_of, scripted_client, until_done};

fn engine(provider: &ScriptedProvider, store: Arc<Store>) -> Engine {
    let client = scripted_client(provider);
    let mut tools = ToolRegistry::new();
    register_builtin_tools(&mut tools, store.clone()).unwrap();
    register_specialists(
        &mut tools,
        SpecialistDeps {
            store: store.clone(),
            client: client.clone(),
            model: "m".into(),
        },
        &builtin(),
    )
    .unwrap();
    Engine::new(
        store,
        ModelChoice {
            client,
            model: "m".into(),
            options: TurnOptions {
                tools: Some(Arc::new(tools)),
                ..TurnOptions::default()
            },
        },
    )
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn system_text(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_researcher_searches_in_its_own_loop_and_the_answer_cites_what_it_found() {
    let provider = ScriptedProvider::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let conversation = store
        .create_conversation(NewConversation {
            id: None,
            title: "Heron".into(),
            locale: None,
            actor: None,
            created_at: None,
            project_id: None,
        })
        .unwrap()
        .id;
    store
        .append_message(
            &conversation,
            NewMessage::new(text_message(
                Role::User,
                "The heron project deadline moved to Friday the 4th.",
            )),
        )
        .unwrap();
    let task = json!({"task": "When is the heron project deadline?"}).to_string();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_r", "invoke_researcher", &[&task])],
    ));
    provider.push(Reply::openai_tool_calls(
        "m",
        &[(
            "call_s",
            "search_context",
            &[r#"{"query": "heron deadline"}"#],
        )],
    ));
    provider.push(Reply::openai_text("m", &["Friday the 4th."]));
    provider.push(Reply::openai_text("m", &["It is due ", "Friday the 4th."]));

    let engine = engine(&provider, store.clone());
    let mut sub = engine.subscribe(&conversation, None).unwrap();
    engine
        .start_run(Some(&conversation), "When is the heron deadline?")
        .unwrap();
    let events = until_done(&mut sub).await;
    let run_events: Vec<StoredEvent> = events
        .iter()
        .filter(|e| e.run_id.is_some())
        .cloned()
        .collect();
    assert_eq!(check_run(&json_of(&run_events)), Ok(()));

    // Four model calls: the coordinator, the researcher twice, the coordinator again.
    let calls = provider.calls();
    assert_eq!(calls.len(), 4);
    let coordinator = &calls[0].body;
    assert!(tool_names(coordinator).contains(&"invoke_researcher".to_owned()));
    let researcher = &calls[1].body;
    assert!(system_text(researcher).contains("You are the researcher"));
    let mut own = tool_names(researcher);
    own.sort();
    assert_eq!(own, ["get_current_datetime", "search_context"]);
    // It reads the task, not the conversation.
    assert!(researcher
        .to_string()
        .contains("When is the heron project deadline?"));
    assert!(!researcher.to_string().contains("moved to Friday"));
    // Its second call has the search result.
    assert!(calls[2].body.to_string().contains("moved to Friday"));

    // Its turns are reported; its own call shows under the invoking call's id.
    let turns: Vec<(u64, u64)> = events
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::WorkflowStatus(p)
                if p.node_kind == Some(NodeKind::Agent) && p.turn.is_some() =>
            {
                Some((p.turn.unwrap(), p.max_turns.unwrap()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(turns, [(1, 3), (2, 3)]);
    let nested: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::ToolCall(p) => Some(p.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(nested, ["call_r", "call_r/call_s"]);

    // The researcher's hit is what the answer cites.
    let answer = store
        .active_branch(&conversation)
        .unwrap()
        .into_iter()
        .last()
        .unwrap();
    assert_eq!(answer.message.content, "It is due Friday the 4th.");
    let refs: Vec<String> = answer
        .message
        .refs
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|r| r.evidence_id)
        .collect();
    // The stored fact, and the question itself (it matches the words too).
    assert_eq!(refs.len(), 2, "{refs:?}");
    let cited: Vec<String> = refs
        .iter()
        .map(|id| {
            let found = store.evidence(&conversation, id).unwrap().unwrap();
            found.evidence.content.unwrap().to_string()
        })
        .collect();
    assert!(
        cited.iter().any(|c| c.contains("moved to Friday")),
        "{cited:?}"
    );
    // The person's message is an evidence of its own, and the one the search found for it.
    let said = store
        .evidences(&conversation)
        .unwrap()
        .into_iter()
        .find(|e| e.evidence.evidence_type == EvidenceType::UserInput)
        .expect("a user_input evidence");
    assert_eq!(
        said.evidence.content,
        Some(json!("When is the heron deadline?"))
    );
    assert!(refs.contains(&said.evidence.evidence_id), "{refs:?}");

    // What it cost: recorded under its name, and part of the turn's usage.
    let usage = store.model_usage(&conversation).unwrap();
    let by_researcher = usage
        .iter()
        .filter(|u| u.extra.get("agent") == Some(&json!("researcher")))
        .count();
    assert_eq!(by_researcher, 2);
    let done = events
        .iter()
        .rev()
        .find(|e| matches!(e.event.body, EventBody::Done(_)))
        .unwrap();
    let meta = done.event.meta.as_ref().unwrap();
    // 40 + 12 for the coordinator, 40 + 12 for the researcher.
    assert_eq!(meta.prompt_tokens, Some(104));
    // Seed 001 §10.3: the cost per agent beside the cost per model.
    let agents = meta.extra["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert_eq!(agents[0]["agent_name"], "researcher");
    assert_eq!(agents[0]["input_tokens"], 52);
    assert_eq!(agents[0]["turns_used"], 2);
    assert!(agents[0]["duration_ms"].is_u64());
    assert!(agents[0]["output_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_planner_corrects_a_bad_plan_runs_the_good_one_and_keeps_it_as_the_task_list() {
    let provider = ScriptedProvider::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let task = json!({"task": "Work out 6*7, then double it, and tell me the date."}).to_string();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_p", "invoke_planner", &[&task])],
    ));
    // A step that is no tool: told, and the planner tries again.
    provider.push(Reply::openai_text(
        "m",
        &[r#"{"instructions": [{"instructionId": "s1", "action": "teleport"}]}"#],
    ));
    let plan = json!({"instructions": [
        {"instructionId": "s1", "action": "calculator", "parameters": {"expression": "6*7"}},
        {"instructionId": "s2", "action": "calculator",
         "parameters": {"expression": "${dependencies.s1.result.result} * 2"},
         "dependencies": ["s1"]},
        {"instructionId": "s3", "action": "get_current_datetime", "parameters": {}}
    ]})
    .to_string();
    provider.push(Reply::openai_text("m", &["```json\n", &plan, "\n```"]));
    provider.push(Reply::openai_text("m", &["84, and the date."]));

    let engine = engine(&provider, store.clone());
    let run = engine.start_run(None, "Plan it").unwrap();
    let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
    let events = until_done(&mut sub).await;
    assert_eq!(check_run(&json_of(&events)), Ok(()));

    let calls = provider.calls();
    assert_eq!(calls.len(), 4);
    // The planner reads the tools it may plan with, and is offered none to call itself.
    let planner = &calls[1].body;
    assert!(system_text(planner).contains("- calculator:"));
    assert!(tool_names(planner).is_empty());
    assert!(calls[2]
        .body
        .to_string()
        .contains("`teleport` is not a tool you can use"));

    // The task list: each step a task under the planning call's id, settled.
    let tasks = store.read(|r| r.tasks(&run.conversation_id)).unwrap();
    let summary: Vec<(String, Option<TaskStatus>, Option<Vec<String>>)> = tasks
        .iter()
        .map(|t| (t.task_id.clone(), t.status, t.depends_on.clone()))
        .collect();
    assert_eq!(
        summary,
        [
            ("call_p/s1".to_owned(), Some(TaskStatus::Completed), None),
            (
                "call_p/s2".to_owned(),
                Some(TaskStatus::Completed),
                Some(vec!["call_p/s1".to_owned()])
            ),
            ("call_p/s3".to_owned(), Some(TaskStatus::Completed), None),
        ]
    );
    // s2 used s1's result.
    let planned = events
        .iter()
        .find_map(|e| match &e.event.body {
            EventBody::ToolResult(p) if p.tool_call_id == "call_p" => p.result.clone(),
            _ => None,
        })
        .expect("the planner's result");
    assert_eq!(planned["results"]["s2"]["result"]["result"], json!(84));
    assert_eq!(planned["results"]["s2"]["status"], json!("COMPLETED"));
    assert!(tasks[1]
        .result_evidence_ids
        .as_ref()
        .is_some_and(|ids| ids.len() == 1));
    // The graph is drawn with the tasks' ids.
    let graph = events
        .iter()
        .find_map(|e| match &e.event.body {
            EventBody::WorkflowGraph(p)
                if p.nodes
                    .iter()
                    .any(|n| n["id"].as_str() == Some("call_p/s1")) =>
            {
                Some(p.clone())
            }
            _ => None,
        })
        .expect("the plan's graph");
    let ids: Vec<&str> = graph
        .nodes
        .iter()
        .filter_map(|n| n["id"].as_str())
        .collect();
    assert_eq!(ids, ["call_p/s1", "call_p/s2", "call_p/s3"]);
    // Marked as a plan's steps, with s2's dependency on s1 as an edge.
    assert!(graph
        .nodes
        .iter()
        .all(|n| n["node_kind"] == json!("instruction")));
    let edges: Vec<(&str, &str)> = graph
        .edges
        .iter()
        .filter_map(|e| Some((e["from"].as_str()?, e["to"].as_str()?)))
        .collect();
    assert_eq!(edges, [("call_p/s1", "call_p/s2")]);
    // The model's own round of calls is not marked as a plan.
    assert!(events.iter().any(|e| matches!(&e.event.body,
        EventBody::WorkflowGraph(p) if p.nodes.iter().any(|n| n["id"] == json!("call_p"))
            && p.nodes.iter().all(|n| n.get("node_kind").is_none()))));
    // The planning calls are recorded as `plan` usage.
    let plans = store
        .model_usage(&run.conversation_id)
        .unwrap()
        .into_iter()
        .filter(|u| u.stage == Some(UsageStage::Plan))
        .count();
    assert_eq!(plans, 2);
}
