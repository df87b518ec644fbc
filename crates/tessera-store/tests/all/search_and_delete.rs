#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{evidence, say};
use serde_json::json;
use tessera_protocol::context_doc::EvidenceType;
use tessera_protocol::easyflow::{Event, EventBody, LlmMessagePayload};
use tessera_protocol::mcp_cp::ContextUpdate;
use tessera_protocol::request::Role;
use tessera_store::{
    AttachmentRef, ConsentScope, Entity, HitKind, InteractionKind, NewInteraction, NewModelTurn,
    SearchOptions, Store, StoreError,
};

fn ids(hits: &[tessera_store::SearchHit]) -> Vec<&str> {
    hits.iter().map(|h| h.id.as_str()).collect()
}

#[test]
fn chinese_short_queries_find_their_message() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "zh");
    let question = say(&store, &c, Role::User, "包周期续订的接口是？");
    say(
        &store,
        &c,
        Role::Assistant,
        "You can renew the subscription with the Renew API.",
    );
    say(&store, &c, Role::User, "连续订阅和续约有什么区别");
    let all = SearchOptions::default();

    let hits = store.search("续订", &all).unwrap();
    assert!(ids(&hits).contains(&question.id.as_str()), "{hits:?}");
    let hit = hits.iter().find(|h| h.id == question.id).unwrap();
    assert_eq!(hit.conversation_id, c);
    assert_eq!(hit.kind, HitKind::Message);
    assert_eq!(hit.snippet, "包周期续订的接口是？");
    assert_eq!(hit.highlight, Some((3, 5)));
    // "连续订阅" also holds 续订; both are found, and the phrase narrows it down.
    assert_eq!(hits.len(), 2);
    assert_eq!(
        ids(&store.search("续订的接口", &all).unwrap()),
        [question.id.as_str()]
    );
    // One character and three characters.
    assert_eq!(store.search("续", &all).unwrap().len(), 2);
    assert_eq!(
        store.search("是", &all).unwrap().len(),
        1,
        "the last character of a run"
    );
    assert_eq!(store.search("周期续", &all).unwrap().len(), 1);
    // English words, case-insensitive, ANDed.
    assert_eq!(store.search("renew", &all).unwrap().len(), 1);
    assert_eq!(store.search("RENEW api", &all).unwrap().len(), 1);
    assert!(store.search("renew 续约", &all).unwrap().is_empty());
    assert!(store.search("续签", &all).unwrap().is_empty());
}

#[test]
fn queries_with_fts_syntax_never_error() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "syntax");
    say(
        &store,
        &c,
        Role::User,
        "he said \"AND\" or NOT near(x) * -y ^z",
    );
    for query in [
        "\"",
        "\"\"",
        "AND",
        "a OR b",
        "NOT",
        "NEAR(a b)",
        "*",
        "-",
        "col:val",
        "(",
        ")",
        "^",
        "'",
        "续订\"",
        "",
        "   ",
        "a\"b",
        "{x}",
    ] {
        let result = store.search(query, &SearchOptions::default());
        assert!(result.is_ok(), "{query:?}: {result:?}");
    }
    assert_eq!(
        store
            .search("\"AND\"", &SearchOptions::default())
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        store
            .search("near(x)", &SearchOptions::default())
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn evidences_are_searchable_and_results_can_be_scoped() {
    let (_dir, store) = common::open();
    let a = common::conversation(&store, "a");
    let b = common::conversation(&store, "b");
    store
        .put_evidence(
            &a,
            evidence(
                "e1",
                EvidenceType::RagDoc,
                Some(json!({"title": "续订指南", "body": "调用 renewOrder 接口"})),
            ),
            vec![],
        )
        .unwrap();
    say(&store, &b, Role::User, "续订");
    let hits = store.search("续订", &SearchOptions::default()).unwrap();
    assert_eq!(hits.len(), 2);
    let scoped = store
        .search(
            "续订",
            &SearchOptions {
                conversation_id: Some(a.clone()),
                limit: 10,
            },
        )
        .unwrap();
    assert_eq!(scoped.len(), 1);
    assert_eq!(
        (scoped[0].kind, scoped[0].id.as_str()),
        (HitKind::Evidence, "e1")
    );
    assert_eq!(
        store
            .search("renewOrder", &SearchOptions::default())
            .unwrap()
            .len(),
        1
    );
    // Replacing an evidence replaces its index entry.
    store
        .put_evidence(
            &a,
            evidence("e1", EvidenceType::RagDoc, Some(json!("nothing here"))),
            vec![],
        )
        .unwrap();
    assert!(store
        .search("renewOrder", &SearchOptions::default())
        .unwrap()
        .is_empty());
}

#[test]
fn a_message_kept_as_evidence_is_found_once_by_its_message() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "c");
    let answer = say(&store, &c, Role::Assistant, "Renew it with renewOrder.");
    let kept = evidence(
        "answer-e",
        EvidenceType::LlmOutput,
        Some(json!(answer.message.content)),
    );
    let conversation = c.clone();
    store
        .write(move |tx| tx.put_message_evidence(&conversation, &kept))
        .unwrap();
    let hits = store
        .search("renewOrder", &SearchOptions::default())
        .unwrap();
    assert_eq!(
        hits.iter()
            .map(|h| (h.kind, h.id.as_str()))
            .collect::<Vec<_>>(),
        [(HitKind::Message, answer.id.as_str())],
        "one hit, the message's"
    );
    assert!(store.evidence(&c, "answer-e").unwrap().is_some());
    // An evidence indexed before, written again as a message's, leaves the index.
    store
        .put_evidence(
            &c,
            evidence("e2", EvidenceType::RagDoc, Some(json!("zebra"))),
            vec![],
        )
        .unwrap();
    let again = evidence("e2", EvidenceType::LlmOutput, Some(json!("zebra")));
    let conversation = c.clone();
    store
        .write(move |tx| tx.put_message_evidence(&conversation, &again))
        .unwrap();
    assert!(store
        .search("zebra", &SearchOptions::default())
        .unwrap()
        .is_empty());
}

/// An answer kept as evidence the way the engine keeps one (its source names the message, its
/// content is the message's text), written by any path: one hit, the message's. An evidence
/// that names a message but says something else is indexed as any evidence.
#[test]
fn an_answer_kept_as_evidence_is_found_once_by_any_path() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "c");
    let answer = say(&store, &c, Role::Assistant, "Renew it with renewOrder.");
    let naming = |id: &str, text: &str| {
        let mut e = evidence(id, EvidenceType::LlmOutput, Some(json!(text)));
        e.source.uri = Some(format!(
            "tessera://conversations/{c}/messages/{}",
            answer.id
        ));
        e
    };
    store
        .put_evidence(&c, naming("copy", &answer.message.content), vec![])
        .unwrap();
    store
        .put_evidence(&c, naming("changed", "renewOrder, said otherwise"), vec![])
        .unwrap();
    let found = |store: &Store| {
        let mut hits: Vec<(HitKind, String)> = store
            .search("renewOrder", &SearchOptions::default())
            .unwrap()
            .into_iter()
            .map(|h| (h.kind, h.id))
            .collect();
        hits.sort_by(|a, b| a.1.cmp(&b.1));
        hits
    };
    let expected = vec![
        (HitKind::Message, answer.id.clone()),
        (HitKind::Evidence, "changed".to_owned()),
    ];
    assert_eq!(found(&store), expected);
    // The conversation exported, then imported into another data folder: the same.
    let document = serde_json::to_value(store.export_document(&c).unwrap()).unwrap();
    let (_other_dir, other) = common::open();
    other.import_document(&document).unwrap();
    assert_eq!(found(&other), expected);
    assert!(other.evidence(&c, "copy").unwrap().is_some());
}

#[test]
fn long_texts_are_found_by_words_far_apart_and_leave_the_index_with_their_rows() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "long");
    let other = common::conversation(&store, "other");
    // ~400 KB: several index pieces; its first and last words are far apart.
    let filler: String = (0..40_000).map(|i| format!("w{i} ")).collect();
    let text = format!("alpha {filler} 续订 omega");
    let long = say(&store, &c, Role::Assistant, &text);
    say(&store, &other, Role::User, "alpha only");
    store
        .put_evidence(
            &c,
            evidence(
                "doc",
                EvidenceType::RagDoc,
                Some(json!(format!("gamma {filler} delta"))),
            ),
            vec![],
        )
        .unwrap();
    let all = SearchOptions::default();

    assert_eq!(
        ids(&store.search("alpha omega", &all).unwrap()),
        [long.id.as_str()]
    );
    assert_eq!(
        ids(&store.search("omega 续订", &all).unwrap()),
        [long.id.as_str()]
    );
    // A word in one piece only, and one in a later piece: one hit per text either way.
    let alpha = store.search("alpha", &all).unwrap();
    assert_eq!(alpha.len(), 2, "{alpha:?}");
    // In the last piece of both long texts.
    assert_eq!(store.search("w39999", &all).unwrap().len(), 2);
    let evidence_hit = store.search("gamma delta", &all).unwrap();
    assert_eq!(
        evidence_hit
            .iter()
            .map(|h| (h.kind, h.id.as_str()))
            .collect::<Vec<_>>(),
        [(HitKind::Evidence, "doc")]
    );
    assert!(store.search("alpha delta", &all).unwrap().is_empty());
    let scoped = SearchOptions {
        conversation_id: Some(other.clone()),
        limit: 10,
    };
    assert!(store.search("alpha omega", &scoped).unwrap().is_empty());
    let found = store
        .search_conversations("alpha omega", &Default::default())
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].conversation.id, c);
    assert_eq!(found[0].message.as_ref().unwrap().message_id, long.id);

    // Shortened, the evidence leaves the list of long texts (once indexed again, which the
    // next search does first); deleted, the message does.
    store
        .put_evidence(
            &c,
            evidence("doc", EvidenceType::RagDoc, Some(json!("gamma delta"))),
            vec![],
        )
        .unwrap();
    assert_eq!(store.search("gamma delta", &all).unwrap().len(), 1);
    assert_eq!(count(&store, "search_long_texts"), 1);
    store.delete_conversation(&c).unwrap();
    assert_eq!(count(&store, "search_long_texts"), 0);
    assert!(store.search("omega", &all).unwrap().is_empty());
    assert!(store.search("w17", &all).unwrap().is_empty());
    assert_eq!(ids(&store.search("alpha", &all).unwrap()).len(), 1);
}

fn count(store: &Store, table: &str) -> i64 {
    let db = store.paths().database.clone();
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn deleting_a_conversation_removes_it_everywhere() {
    let (dir, store) = common::open();
    let doomed = common::conversation(&store, "doomed");
    let kept = common::conversation(&store, "kept");
    let only_doomed = store
        .put_attachment(b"only in doomed", Some("image/png"))
        .unwrap();
    let shared = store.put_attachment(b"shared", None).unwrap();
    store
        .put_evidence(
            &doomed,
            evidence("e1", EvidenceType::UserInput, Some(json!("续订截图"))),
            vec![
                AttachmentRef::new(&only_doomed.sha256),
                AttachmentRef::new(&shared.sha256),
            ],
        )
        .unwrap();
    store
        .put_evidence(
            &kept,
            evidence("e2", EvidenceType::UserInput, Some(json!("other"))),
            vec![AttachmentRef::new(&shared.sha256)],
        )
        .unwrap();
    let m = say(&store, &doomed, Role::User, "包周期续订的接口是？");
    say(&store, &kept, Role::User, "包周期续订 kept");
    store
        .append_event(
            &doomed,
            Event::new(
                &doomed,
                EventBody::LlmMessage(LlmMessagePayload {
                    content: Some("x".into()),
                    ..Default::default()
                }),
            ),
        )
        .unwrap();
    store
        .start_model_turn(
            &doomed,
            NewModelTurn {
                turn_id: None,
                run_id: None,
                provider: "p".into(),
                model: "m".into(),
                request: json!({}),
                assembly: None,
            },
        )
        .unwrap();
    store
        .create_interaction(
            &doomed,
            NewInteraction {
                interaction_id: None,
                run_id: None,
                kind: InteractionKind::Form,
                request: json!({}),
            },
        )
        .unwrap();
    store
        .grant_consent("tool", ConsentScope::Conversation, Some(&doomed))
        .unwrap();
    store
        .apply_context_update(
            &doomed,
            serde_json::from_value::<ContextUpdate>(
                json!({"operation": "UPDATE_STATE", "path": "currentTopic", "value": "续订"}),
            )
            .unwrap(),
        )
        .unwrap();
    assert_eq!(
        store
            .search("续订", &SearchOptions::default())
            .unwrap()
            .len(),
        3
    );

    let report = store.delete_conversation(&doomed).unwrap();
    assert_eq!(
        report.attachments_removed,
        std::slice::from_ref(&only_doomed.sha256)
    );
    assert!(store.conversation(&doomed).unwrap().is_none());
    assert!(matches!(store.events_after(&doomed, None, None), Ok(ref v) if v.is_empty()));
    assert!(store.message(&doomed, &m.id).unwrap().is_none());
    assert!(store.context(&doomed).unwrap().is_none());
    assert!(store.context_state(&doomed).unwrap().is_none());
    assert!(store.consent_grants(true).unwrap().is_empty());
    let hits = store.search("续订", &SearchOptions::default()).unwrap();
    assert!(hits.iter().all(|h| h.conversation_id == kept), "{hits:?}");
    assert_eq!(hits.len(), 1);
    for table in [
        "messages",
        "evidences",
        "events",
        "model_turns",
        "interactions",
        "contexts",
        "context_changes",
        "evidence_attachments",
    ] {
        let left = count(
            &store,
            &format!(
                "{table} WHERE {}",
                if table == "evidence_attachments" {
                    "evidence_pk NOT IN (SELECT pk FROM evidences)"
                } else {
                    "conversation_id = 'x' OR conversation_id NOT IN (SELECT id FROM conversations)"
                }
            ),
        );
        assert_eq!(left, 0, "{table}");
    }
    // The FTS index holds exactly the kept rows (one message, one evidence).
    assert_eq!(count(&store, "search_index"), 2);
    assert!(!dir
        .path()
        .join("attachments")
        .join(&only_doomed.sha256)
        .exists());
    assert!(
        dir.path().join("attachments").join(&shared.sha256).exists(),
        "still referenced"
    );
    assert!(matches!(
        store.read_attachment(&only_doomed.sha256),
        Err(StoreError::NotFound {
            entity: Entity::Attachment,
            ..
        })
    ));
    assert!(matches!(
        store.delete_conversation(&doomed),
        Err(StoreError::NotFound { .. })
    ));
}

#[test]
fn deleting_a_long_conversation_works() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "long");
    let conversation = c.clone();
    store
        .write(move |tx| {
            for i in 0..3000 {
                tx.append_message(
                    &conversation,
                    tessera_store::NewMessage::new(tessera_store::text_message(
                        Role::User,
                        format!("m{i}"),
                    )),
                )?;
            }
            Ok(())
        })
        .unwrap();
    store.delete_conversation(&c).unwrap();
    assert_eq!(count(&store, "messages"), 0);
}

#[test]
fn orphan_attachment_files_are_swept_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let unreferenced = store.put_attachment(b"never cited", None).unwrap();
    drop(store);
    let stray = dir.path().join("attachments").join("a".repeat(64));
    std::fs::write(&stray, b"stray").unwrap();
    std::fs::write(dir.path().join("attachments").join(".tmp-crashed"), b"half").unwrap();
    let _store = Store::open(dir.path()).unwrap();
    assert!(!stray.exists());
    assert!(!unreferenced.path.exists());
    assert_eq!(
        std::fs::read_dir(dir.path().join("attachments"))
            .unwrap()
            .count(),
        0
    );
}

#[test]
fn broad_queries_rank_the_newest_matches_and_scoped_ones_rank_all() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "many");
    let conversation = c.clone();
    let total = tessera_store::search::RANKED_WINDOW as usize + 50;
    store
        .write(move |tx| {
            for i in 0..total {
                let message = tessera_store::text_message(Role::User, format!("续订 第 {i} 条"));
                tx.append_message(&conversation, tessera_store::NewMessage::new(message))?;
            }
            Ok(())
        })
        .unwrap();
    let hits = store
        .search(
            "续订",
            &SearchOptions {
                conversation_id: None,
                limit: total,
            },
        )
        .unwrap();
    assert_eq!(hits.len(), tessera_store::search::RANKED_WINDOW as usize);
    assert!(
        hits.iter().all(|h| !h.snippet.ends_with(" 0 条")),
        "the oldest is outside the window"
    );
    let scoped = store
        .search(
            "续订",
            &SearchOptions {
                conversation_id: Some(c),
                limit: total,
            },
        )
        .unwrap();
    assert_eq!(scoped.len(), total);
}

#[test]
fn a_conversation_known_to_exist_is_not_once_deleted_and_is_again_once_made_anew() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "known");
    assert!(store.conversation_exists(&c).unwrap());
    assert!(store.conversation_exists(&c).unwrap(), "known now");
    assert!(!store.conversation_exists("nobody").unwrap());
    store.delete_conversation(&c).unwrap();
    assert!(
        !store.conversation_exists(&c).unwrap(),
        "gone from its commit on"
    );
    // Made again under the same id (as a direct call to a conversation id does).
    store
        .create_conversation(tessera_store::NewConversation {
            id: Some(c.clone()),
            title: "again".into(),
            ..Default::default()
        })
        .unwrap();
    assert!(store.conversation_exists(&c).unwrap());
    assert_eq!(store.conversation(&c).unwrap().unwrap().title, "again");
}
