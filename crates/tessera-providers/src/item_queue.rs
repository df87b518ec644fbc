//! The items a stream has decoded and not yet handed out.
//!
//! Kept newest first in a `Vec`, so that taking the next one is a `pop` and adding what one
//! event decoded (usually a single item, into a `Vec` the decoder reuses) is a reverse and a
//! swap of buffers, with no item moved one by one: a `VecDeque` extended from a `Drain` per
//! delta was a tenth of the layer's own cost.

use crate::stream::StreamItem;

#[derive(Default)]
pub(crate) struct ItemQueue {
    /// The next item last.
    items: Vec<StreamItem>,
}

impl ItemQueue {
    /// The next item.
    pub(crate) fn pop(&mut self) -> Option<StreamItem> {
        self.items.pop()
    }

    /// Puts `decoded` (in order) after the items already waiting, and leaves it empty.
    pub(crate) fn take_from(&mut self, decoded: &mut Vec<StreamItem>) {
        decoded.reverse();
        // The usual case: the queue was emptied before the next event was decoded.
        if self.items.is_empty() {
            std::mem::swap(&mut self.items, decoded);
            return;
        }
        decoded.append(&mut self.items);
        std::mem::swap(&mut self.items, decoded);
    }

    /// Puts `items` after the items already waiting.
    pub(crate) fn extend(&mut self, items: impl IntoIterator<Item = StreamItem>) {
        let mut items: Vec<StreamItem> = items.into_iter().collect();
        self.take_from(&mut items);
    }

    /// Leaves only `item`.
    pub(crate) fn replace_with(&mut self, item: StreamItem) {
        self.items.clear();
        self.items.push(item);
    }

    /// Whether any waiting item is part of the answer itself.
    pub(crate) fn has_output(&self) -> bool {
        self.items.iter().any(StreamItem::is_output)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn text(t: &str) -> StreamItem {
        StreamItem::TextDelta { text: t.into() }
    }

    #[test]
    fn items_come_out_in_the_order_they_went_in() {
        let mut queue = ItemQueue::default();
        let mut decoded = vec![text("a"), text("b")];
        queue.take_from(&mut decoded);
        assert!(decoded.is_empty());
        assert_eq!(queue.pop(), Some(text("a")));
        decoded.push(text("c"));
        queue.take_from(&mut decoded);
        queue.extend([text("d"), text("e")]);
        let rest: Vec<_> = std::iter::from_fn(|| queue.pop()).collect();
        assert_eq!(rest, [text("b"), text("c"), text("d"), text("e")]);
        queue.extend([text("f")]);
        queue.replace_with(text("g"));
        assert_eq!(queue.pop(), Some(text("g")));
        assert_eq!(queue.pop(), None);
    }
}
