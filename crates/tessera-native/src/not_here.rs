//! Why a native tool cannot run on this machine, and why a picked file is left out. Their words
//! are what the person reads at start-up and what the model reads in a pick's `skipped` list.

/// Why a tool is not offered on this machine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotHere {
    #[error("a Wayland session without a session bus: no screenshot portal")]
    WaylandWithoutBus,
    #[error("no X display (DISPLAY is not set); screen capture needs X11 or XWayland")]
    NoDisplay,
    #[error("the X display does not answer: {0}")]
    DisplayDoesNotAnswer(String),
    #[error("no clipboard here: {0}")]
    NoClipboard(String),
}

/// Why a picked file is left out of what the model gets.
#[derive(Debug, thiserror::Error)]
pub enum LeftOut {
    #[error("its type is not one the pick asked for")]
    NotAskedFor,
    #[error("it cannot be read ({0})")]
    Unreadable(#[source] std::io::Error),
    #[error("it is not a file")]
    NotAFile,
    #[error("it is {:.1} MB, over the {} MB limit", *.size as f64 / 1_048_576.0, .limit / 1_048_576)]
    TooLarge { size: u64, limit: u64 },
    #[error("it grew past the {} MB limit", .limit / 1_048_576)]
    Grew { limit: u64 },
    #[error("it could not be read ({0})")]
    Interrupted(String),
    #[error(transparent)]
    Content(#[from] tessera_engine::attachments::Unreadable),
    #[error("{0}")]
    ImageNotKept(String),
    #[error("it is neither text, a PDF nor an image (PNG, JPEG, GIF, WebP)")]
    Unsupported,
}
