#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{contents, say};
use tessera_protocol::request::Role;
use tessera_store::{text_message, Entity, NewMessage, Parent, StoreError};

#[test]
fn edit_and_resend_keeps_the_old_branch_and_switching_shows_it_again() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "tree");
    let system = say(&store, &c, Role::System, "你是助手");
    let question = say(&store, &c, Role::User, "包周期续订的接口是？");
    let answer = say(&store, &c, Role::Assistant, "是 renew 接口");
    assert_eq!(system.depth, 0);
    assert_eq!(answer.depth, 2);
    assert_eq!(answer.parent_id.as_deref(), Some(question.id.as_str()));

    // Edit-and-resend: a sibling of the question, then its answer.
    let edited = store
        .append_message(
            &c,
            NewMessage::new(text_message(Role::User, "包年续订的接口是？"))
                .with_parent(Parent::SiblingOf(question.id.clone())),
        )
        .unwrap();
    assert_eq!(edited.parent_id.as_deref(), Some(system.id.as_str()));
    say(&store, &c, Role::Assistant, "是 renewYearly 接口");
    assert_eq!(
        contents(&store.active_branch(&c).unwrap()),
        ["你是助手", "包年续订的接口是？", "是 renewYearly 接口"]
    );

    // Regenerate the new answer: a third leaf.
    let active = store.active_branch(&c).unwrap();
    let regenerated = store
        .append_message(
            &c,
            NewMessage::new(text_message(
                Role::Assistant,
                "renewYearly，或 renew 加参数",
            ))
            .with_parent(Parent::SiblingOf(active[2].id.clone())),
        )
        .unwrap();
    let siblings = store.read(|r| r.sibling_ids(&c, &regenerated.id)).unwrap();
    assert_eq!(siblings, [active[2].id.clone(), regenerated.id.clone()]);

    // The old branch is still there, whole.
    let old = store.read(|r| r.branch_to(&c, &answer.id)).unwrap();
    assert_eq!(
        contents(&old),
        ["你是助手", "包周期续订的接口是？", "是 renew 接口"]
    );
    let tree = store.read(|r| r.message_tree(&c)).unwrap();
    assert_eq!(tree.len(), 6);
    let user_turns = store.read(|r| r.children(&c, Some(&system.id))).unwrap();
    assert_eq!(
        contents(&user_turns),
        ["包周期续订的接口是？", "包年续订的接口是？"]
    );

    // Switching to the old question shows its branch down to its leaf.
    let leaf = store.switch_branch(&c, &question.id).unwrap();
    assert_eq!(leaf, answer.id);
    assert_eq!(
        store.conversation(&c).unwrap().unwrap().active_leaf_id,
        Some(answer.id.clone())
    );
    assert_eq!(
        contents(&store.active_branch(&c).unwrap()),
        ["你是助手", "包周期续订的接口是？", "是 renew 接口"]
    );
    // A new message continues the branch shown.
    let follow_up = say(&store, &c, Role::User, "参数呢？");
    assert_eq!(follow_up.parent_id.as_deref(), Some(answer.id.as_str()));

    // Switching to the edited question picks its newest leaf (the regenerated answer).
    assert_eq!(store.switch_branch(&c, &edited.id).unwrap(), regenerated.id);
}

#[test]
fn the_newest_messages_come_oldest_first() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "tail");
    for i in 0..30 {
        say(&store, &c, Role::User, &format!("m{i}"));
    }
    let tail = store.active_branch_tail(&c, 3).unwrap();
    assert_eq!(contents(&tail), ["m27", "m28", "m29"]);
    assert_eq!(tail[0].depth, 27);
    assert_eq!(store.active_branch(&c).unwrap().len(), 30);
    assert!(store
        .active_branch_tail(&common::conversation(&store, "empty"), 5)
        .unwrap()
        .is_empty());
}

#[test]
fn inactive_appends_and_bad_parents() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "p");
    let root = say(&store, &c, Role::User, "root");
    let mut background = NewMessage::new(text_message(Role::Assistant, "background"))
        .with_parent(Parent::Message(root.id.clone()));
    background.activate = false;
    store.append_message(&c, background).unwrap();
    assert_eq!(
        store.conversation(&c).unwrap().unwrap().active_leaf_id,
        Some(root.id.clone())
    );

    let err = store
        .append_message(
            &c,
            NewMessage::new(text_message(Role::User, "x"))
                .with_parent(Parent::Message("nope".into())),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NotFound {
                entity: Entity::Message,
                ..
            }
        ),
        "{err}"
    );
    let err = store
        .append_message(
            &c,
            NewMessage::new(text_message(Role::User, "dup")).with_id(root.id.clone()),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::AlreadyExists {
                entity: Entity::Message,
                ..
            }
        ),
        "{err}"
    );
    let err = store
        .append_message(
            "no-such-conversation",
            NewMessage::new(text_message(Role::User, "x")),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NotFound {
                entity: Entity::Conversation,
                ..
            }
        ),
        "{err}"
    );
    // A failed write leaves nothing behind.
    assert_eq!(store.read(|r| r.message_tree(&c)).unwrap().len(), 2);
    // A message of another conversation is not a parent here.
    let other = common::conversation(&store, "other");
    let err = store
        .append_message(
            &other,
            NewMessage::new(text_message(Role::User, "x"))
                .with_parent(Parent::Message(root.id.clone())),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NotFound {
                entity: Entity::Message,
                ..
            }
        ),
        "{err}"
    );
}
