//! What `CLEAR_HISTORY` took out of the model's reading ([`tessera_store::history_clearing`]):
//! the cleared messages leave the document a prompt is assembled from, and the summary's range
//! (positions on the branch) is renumbered for the messages that remain.

use tessera_protocol::context_doc::ContextDocument;
use tessera_store::history_clearing::is_cleared;

/// `doc` without its cleared messages.
pub(crate) fn without_cleared(doc: &mut ContextDocument) {
    let kept: Vec<bool> = doc
        .session
        .messages
        .iter()
        .map(|m| !is_cleared(&m.extra))
        .collect();
    if kept.iter().all(|k| *k) {
        return;
    }
    // The new position of each old one that stays.
    let mut new_index = Vec::with_capacity(kept.len());
    let mut next = 0u64;
    for k in &kept {
        new_index.push(k.then_some(next));
        if *k {
            next += 1;
        }
    }
    if let Some(summary) = doc.session.summary.as_mut() {
        let renumbered = summary.message_index_range.as_mut().and_then(|range| {
            let position = |i: u64| usize::try_from(i).ok();
            let from = position(range.from.unwrap_or(0))?;
            let to = position(range.to?)?;
            let inside: Vec<u64> = new_index
                .get(from..=to.min(new_index.len().checked_sub(1)?))?
                .iter()
                .flatten()
                .copied()
                .collect();
            let (first, last) = (*inside.first()?, *inside.last()?);
            range.from = Some(first);
            range.to = Some(last);
            Some(())
        });
        // A summary of cleared messages only (or one that cannot be placed) is not read.
        if renumbered.is_none() {
            doc.session.summary = None;
        }
    }
    let mut flags = kept.into_iter();
    doc.session
        .messages
        .retain(|_| flags.next().unwrap_or(true));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(cleared: &[bool], range: Option<(u64, u64)>) -> ContextDocument {
        let messages: Vec<_> = cleared
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut m = json!({"role": "user", "content": format!("m{i}")});
                if *c {
                    m["context_cleared"] = json!({"version": 1});
                }
                m
            })
            .collect();
        let mut session = json!({"session_id": "s", "messages": messages,
            "task_state": {"todo_list": {"tasks": []}}});
        if let Some((from, to)) = range {
            session["summary"] =
                json!({"content": "sum", "message_index_range": {"from": from, "to": to}});
        }
        serde_json::from_value(json!({"schema_version": "1.0", "session": session,
            "evidences": {}, "context_blocks": []}))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn contents(doc: &ContextDocument) -> Vec<&str> {
        doc.session
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect()
    }

    #[test]
    fn cleared_messages_leave_and_the_summary_is_renumbered_or_dropped() {
        let mut d = doc(&[true, true, false, false, false], Some((0, 3)));
        without_cleared(&mut d);
        assert_eq!(contents(&d), ["m2", "m3", "m4"]);
        let range = d
            .session
            .summary
            .as_ref()
            .and_then(|s| s.message_index_range.as_ref());
        assert_eq!(range.map(|r| (r.from, r.to)), Some((Some(0), Some(1))));

        let mut d = doc(&[true, true, false], Some((0, 1)));
        without_cleared(&mut d);
        assert_eq!(contents(&d), ["m2"]);
        assert!(d.session.summary.is_none());

        let mut d = doc(&[false, false], Some((0, 0)));
        without_cleared(&mut d);
        assert_eq!(contents(&d), ["m0", "m1"]);
        assert!(d.session.summary.is_some());
    }
}
