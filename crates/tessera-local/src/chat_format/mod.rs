//! A model family's chat format: its template rendered with the conversation and its tools,
//! and the tool calls it writes parsed back.
