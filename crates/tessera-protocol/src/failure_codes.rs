//! The codes of what fails inside a run, beside the API's [`ErrorCode`](crate::error_codes::ErrorCode):
//! a model call's ([`ProviderFailureCode`], a `system/error.code`), a tool call's
//! ([`ToolFailureCode`], a tool result's `error.code` or `reason.code`), and the engine's own
//! reasons to end a run ([`RunErrorCode`], a `system/error.code`). One enum each, exported to
//! TypeScript, so the UI's message tables are checked against them. The wire strings are as
//! they have always been: snake_case for a provider's and the engine's, mostly upper case for a
//! tool's (the executor's and the native tools' codes came first and stay as clients know them).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

macro_rules! wire_codes {
    (
        $(#[doc = $enum_doc:literal])*
        pub enum $name:ident {
            $( $(#[doc = $doc:literal])* $variant:ident => $wire:literal, )+
        }
    ) => {
        $(#[doc = $enum_doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
        pub enum $name {
            $( $(#[doc = $doc])* #[serde(rename = $wire)] $variant, )+
        }

        impl $name {
            /// Every code, in the order declared.
            pub const ALL: &'static [$name] = &[$( $name::$variant, )+];

            /// The code as written on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $wire, )+
                }
            }

            /// The code written `wire`, when it is one of these.
            pub fn from_wire(wire: &str) -> Option<Self> {
                match wire {
                    $( $wire => Some($name::$variant), )+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    };
}

wire_codes! {
    /// Why a model call failed (`ProviderError::code` in tessera-providers): a run's fatal or
    /// retried `system/error.code`, `provider_code` beside a `business/error`.
    pub enum ProviderFailureCode {
        /// HTTP 401 or 403: the key was refused.
        AuthFailed => "auth_failed",
        /// The account has no quota left (OpenAI's `insufficient_quota`).
        QuotaExceeded => "quota_exceeded",
        /// The request is longer than the model's context window.
        ContextLength => "context_length",
        /// HTTP 429.
        RateLimited => "rate_limited",
        /// HTTP 529 or an `overloaded_error`.
        Overloaded => "overloaded",
        /// HTTP 5xx.
        ProviderUnavailable => "provider_unavailable",
        /// HTTP 400, 404, 413 or 422.
        BadRequest => "bad_request",
        /// Any other HTTP error.
        HttpError => "http_error",
        /// An error event inside the stream.
        StreamError => "stream_error",
        ConnectTimeout => "connect_timeout",
        FirstByteTimeout => "first_byte_timeout",
        IdleTimeout => "idle_timeout",
        /// Connection refused, reset, DNS, TLS…
        NetworkError => "network_error",
        /// The answer could not be read.
        DecodeError => "decode_error",
        Cancelled => "cancelled",
        MissingApiKey => "missing_api_key",
        /// The provider's configuration is not usable.
        ConfigError => "config_error",
        /// The person's spending limit stopped the call before it was made.
        SpendingLimit => "spending_limit",
        KeyringError => "keyring_error",
        /// The model on this computer could not start, or its worker stopped.
        LocalModelStopped => "local_model_stopped",
    }
}

wire_codes! {
    /// Why a tool call did not succeed, as Tessera says it: the executor's, the consent gate's,
    /// the turn's, and those of the tools Tessera ships (built-in, specialists, knowledge, MCP,
    /// native, and the web UI's own tools). A client or a plugin may report codes of its own;
    /// those pass through as they came and are not listed here.
    pub enum ToolFailureCode {
        // The executor.
        /// No tool of that name (also for an instruction's action).
        ToolNotFound => "TOOL_NOT_FOUND",
        /// The arguments do not match the tool's schema (or a tool cannot use them); the tool
        /// did not run.
        InvalidArguments => "INVALID_ARGUMENTS",
        /// A call it depends on failed, or a `${…}` placeholder has no value (seed 000 §7.1).
        DependencyError => "DEPENDENCY_ERROR",
        Timeout => "TIMEOUT",
        Cancelled => "CANCELLED",
        /// Another call failed with `fallbackBehavior: ABORT`.
        Aborted => "ABORTED",
        /// The result does not match the tool's result schema.
        InvalidResult => "INVALID_RESULT",
        /// The tool's code panicked.
        ToolCrashed => "TOOL_CRASHED",
        /// Skipped: a condition was false or a dependency did not complete.
        Skipped => "SKIPPED",
        /// The arguments after substitution are over the limit; the tool did not run.
        ArgumentsTooLarge => "ARGUMENTS_TOO_LARGE",
        /// A call to a client would send a file bigger than the client's announced maxFileSize.
        FileTooLarge => "FILE_TOO_LARGE",
        /// The result is over the limit; it was not kept.
        ResultTooLarge => "RESULT_TOO_LARGE",
        /// The set's arguments and results together reached their limit; the call did not run.
        SetLimitReached => "SET_LIMIT_REACHED",
        /// A run's tool arguments and results together reached their limit (also the run's
        /// `system/error` when it stops for it).
        RunLimitReached => "RUN_LIMIT_REACHED",
        /// The consent gate refused it (no grant, or the grant could not be read); also a
        /// native tool the system refused.
        PermissionDenied => "PERMISSION_DENIED",
        /// The scheduler stalled, or a call never ran; a built-in tool's task failed.
        Internal => "INTERNAL",
        // The turn: calls it settles itself.
        /// A `request_form` call whose form cannot be shown.
        InvalidForm => "invalid_form",
        /// The tool needs the person's consent and the client cannot ask for it.
        ConsentRequired => "consent_required",
        /// The person did not allow the call.
        Denied => "denied",
        /// The person's answer (to a form or a consent) never came.
        NotAnswered => "cancelled",
        /// The call started and never finished (the app stopped), or has no result; never run
        /// again.
        Interrupted => "interrupted",
        /// No tool of that name where there are no tools, or what the tool was asked for is
        /// not there (a memory, an image, a window, an element of the page).
        NotFound => "NOT_FOUND",
        /// A direct round of calls the scheduler refuses.
        InvalidCalls => "INVALID_CALLS",
        // Front-end tools (run by a client).
        /// A tool only checked, never run.
        NotRunnable => "NOT_RUNNABLE",
        /// No client answered in time.
        ClientTimeout => "CLIENT_TIMEOUT",
        /// The client reported ERROR without saying why.
        ClientError => "CLIENT_ERROR",
        ClientDenied => "CLIENT_DENIED",
        ClientSkipped => "CLIENT_SKIPPED",
        ClientCancelled => "CLIENT_CANCELLED",
        ClientInterrupted => "CLIENT_INTERRUPTED",
        ClientNotFound => "CLIENT_NOT_FOUND",
        // Built-in tools and specialists.
        UnknownTimeZone => "UNKNOWN_TIME_ZONE",
        CalculationError => "CALCULATION_ERROR",
        /// A busy or locked context database, worth one more try.
        ContextDatabaseUnavailable => "CONTEXT_DATABASE_UNAVAILABLE",
        ContextDatabaseError => "CONTEXT_DATABASE_ERROR",
        /// The planner's plan cannot be run.
        InvalidPlan => "INVALID_PLAN",
        KnowledgeSearchFailed => "KNOWLEDGE_SEARCH_FAILED",
        // MCP servers.
        McpServerUnavailable => "MCP_SERVER_UNAVAILABLE",
        McpCallFailed => "MCP_CALL_FAILED",
        /// The MCP tool answered with `isError`.
        McpToolError => "MCP_TOOL_ERROR",
        // Native tools and the web UI's tools.
        /// What the tool needs is not there on this machine (a service, a portal, a window).
        Unavailable => "UNAVAILABLE",
        /// An argument the screen tool cannot use (its word for `INVALID_ARGUMENTS`, kept as it
        /// was).
        InvalidArgument => "INVALID_ARGUMENT",
        CaptureFailed => "CAPTURE_FAILED",
        /// The window asked for is not on the screen.
        NotVisible => "NOT_VISIBLE",
        ClipboardFailed => "CLIPBOARD_FAILED",
        /// The clipboard holds no text.
        Empty => "EMPTY",
        /// What the tool would return is over its limit.
        TooLarge => "TOO_LARGE",
        DialogFailed => "DIALOG_FAILED",
        /// None of the picked files could be read.
        NothingReadable => "NOTHING_READABLE",
        WriteFailed => "WRITE_FAILED",
        NotificationFailed => "NOTIFICATION_FAILED",
        StorageFailed => "STORAGE_FAILED",
        NotAnImage => "NOT_AN_IMAGE",
        ResizeFailed => "RESIZE_FAILED",
        EncodeFailed => "ENCODE_FAILED",
        /// A CSS selector the page cannot read (`highlight_element`).
        InvalidSelector => "INVALID_SELECTOR",
        /// The image to draw on cannot be fetched (`overlay_image`).
        ImageUnavailable => "IMAGE_UNAVAILABLE",
    }
}

wire_codes! {
    /// The engine's own reasons for a `system/error` (a provider's are [`ProviderFailureCode`],
    /// a retried tool's and the run's tool limit are [`ToolFailureCode`]).
    pub enum RunErrorCode {
        /// The context database failed.
        StoreError => "store_error",
        /// The conversation, or the person's message to answer, is not there.
        NotFound => "not_found",
        /// A suspended run cannot be resumed.
        CannotResume => "cannot_resume",
        /// The message, the system prompt and the tools together pass the model's window.
        ContextWindowExceeded => "context_window_exceeded",
        /// The person's message alone passes the model's window.
        MessageTooLong => "message_too_long",
        Internal => "internal",
        /// The app stopped while the run was going on.
        Interrupted => "interrupted",
        /// The answer is not the JSON the agent must give (retryable while it is corrected).
        InvalidResponse => "invalid_response",
        /// A tool call cut off or unreadable; it was not run.
        IncompleteToolCall => "incomplete_tool_call",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T>(all: &[T], as_str: fn(&T) -> &'static str, from_wire: fn(&str) -> Option<T>)
    where
        T: Serialize + PartialEq + std::fmt::Debug,
    {
        let mut seen = std::collections::HashSet::new();
        for code in all {
            let wire = as_str(code);
            assert!(seen.insert(wire), "{wire} twice");
            assert_eq!(from_wire(wire).as_ref(), Some(code));
            assert_eq!(
                serde_json::to_value(code).ok(),
                Some(serde_json::Value::String(wire.to_owned()))
            );
        }
    }

    #[test]
    fn every_code_is_written_once_and_reads_back() {
        check(
            ProviderFailureCode::ALL,
            |c| c.as_str(),
            ProviderFailureCode::from_wire,
        );
        check(
            ToolFailureCode::ALL,
            |c| c.as_str(),
            ToolFailureCode::from_wire,
        );
        check(RunErrorCode::ALL, |c| c.as_str(), RunErrorCode::from_wire);
    }

    #[test]
    fn a_provider_code_reads_as_its_old_string() {
        assert_eq!(ProviderFailureCode::RateLimited, "rate_limited");
        assert_eq!(
            ProviderFailureCode::SpendingLimit.to_string(),
            "spending_limit"
        );
        assert_eq!(ToolFailureCode::NotAnswered.as_str(), "cancelled");
    }
}
