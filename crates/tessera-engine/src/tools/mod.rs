//! Tools: declarations ([`ToolSpec`]), handlers ([`ToolHandler`]), the registry with argument
//! validation ([`ToolRegistry`]), and simulated stand-ins for dry runs ([`simulated`]).

pub mod failure;
pub mod gate;
pub mod handler;
pub mod images;
pub mod registry;
pub mod simulated;
pub mod source;
pub mod spec;

pub use failure::{FailureCode, ToolFailure};
pub use gate::{Clearance, ConsentGate, RequestedBy};
pub use handler::{CallReporter, SharedHandler, ToolContext, ToolFuture, ToolHandler};
pub use images::{attach_image, ToolImage, TOOL_IMAGES_KEY};
pub use registry::{RegisteredTool, RegistryError, ToolRegistry};
pub(crate) use source::{with_sourced_tools, MergedTools};
pub use source::{SourcedTools, ToolSource};
pub use spec::{RetryPolicy, ToolKind, ToolSpec};
pub use tessera_protocol::failure_codes::ToolFailureCode;
