//! Front-end tools that need the desktop (screen capture, dialogs, clipboard, notifications,
//! image resize), without depending on Tauri. Filled in by the desktop issue.
