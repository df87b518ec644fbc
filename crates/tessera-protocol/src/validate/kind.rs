//! The kinds of document `tessera validate <kind>` accepts.

use std::fmt;
use std::str::FromStr;

/// A kind of document, named as on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DocumentKind {
    /// An MCP-CP 1.0 message (seed 000 §2.2).
    Message,
    /// An easyflow-chat 1.1 event (seed 002).
    Event,
    /// A request object (seed 003 §1).
    Request,
    /// A response object (seed 003 §2).
    Response,
    /// A context document (seed 004).
    Context,
    /// A tool definition (seed 000 §4.5.1).
    ToolDefinition,
    /// An MCP-CP context structure (seed 000 §8.1).
    McpContext,
    /// A form submission (seed 002 §12).
    FormSubmission,
}

impl DocumentKind {
    /// Every kind, in this order.
    pub const ALL: [DocumentKind; 8] = [
        DocumentKind::Message,
        DocumentKind::Event,
        DocumentKind::Request,
        DocumentKind::Response,
        DocumentKind::Context,
        DocumentKind::ToolDefinition,
        DocumentKind::McpContext,
        DocumentKind::FormSubmission,
    ];

    /// The kind's name: `message`, `event`, `request`, `response`, `context`,
    /// `tool-definition`, `mcp-context`, `form-submission`.
    pub fn as_str(&self) -> &'static str {
        match self {
            DocumentKind::Message => "message",
            DocumentKind::Event => "event",
            DocumentKind::Request => "request",
            DocumentKind::Response => "response",
            DocumentKind::Context => "context",
            DocumentKind::ToolDefinition => "tool-definition",
            DocumentKind::McpContext => "mcp-context",
            DocumentKind::FormSubmission => "form-submission",
        }
    }
}

impl fmt::Display for DocumentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A kind name that is not one of [`DocumentKind::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown document kind {:?}; valid kinds: {}", .0, valid_kinds())]
pub struct UnknownKind(pub String);

fn valid_kinds() -> String {
    DocumentKind::ALL.map(|kind| kind.as_str()).join(", ")
}

impl FromStr for DocumentKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DocumentKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in DocumentKind::ALL {
            assert_eq!(kind.as_str().parse::<DocumentKind>().unwrap(), kind);
            assert_eq!(kind.to_string(), kind.as_str());
        }
    }

    #[test]
    fn unknown_kind_names_the_valid_ones() {
        let err = "messages".parse::<DocumentKind>().unwrap_err();
        let text = err.to_string();
        assert!(text.contains("\"messages\""), "{text}");
        for kind in DocumentKind::ALL {
            assert!(text.contains(kind.as_str()), "{text}");
        }
    }
}
