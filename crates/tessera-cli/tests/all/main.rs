//! Every integration test of the `tessera` binary and its library, in one test binary: one link
//! instead of one per file (minutes of `make test` on two cores). Each module is one area, named
//! as the file was; `cargo test -p tessera-server --test all serve_mcp::` runs one area.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

mod support;

mod chat_cli;
mod chat_keyring;
mod chat_tools_cli;
mod condition_depth_cli;
mod context_cli;
mod generated;
mod in_process;
mod key_file_guard;
mod local_cli;
mod projects;
mod provider_cli;
mod provider_keyring;
mod run_cli;
mod serve;
mod serve_agents;
mod serve_attachments;
mod serve_branches;
mod serve_consent_paths;
mod serve_context_letter;
mod serve_context_state;
mod serve_conversation_model;
mod serve_conversation_search;
mod serve_conversations;
mod serve_direct_tools;
mod serve_door_limits;
mod serve_front_end_tools;
mod serve_hostile_input;
mod serve_hostile_peers;
mod serve_images;
mod serve_inspect;
mod serve_key_file;
mod serve_keys_moving;
mod serve_local_models;
mod serve_local_providers;
mod serve_mcp;
mod serve_mcp_cp;
mod serve_mcp_direct;
mod serve_mcp_keyring;
mod serve_mcp_secrets;
mod serve_provider_check;
mod serve_remote;
mod serve_requests;
mod serve_resume;
mod serve_seed_letter;
mod serve_settings;
mod serve_tools;
mod serve_ui_keyring;
mod serve_v1;
mod serve_window;
mod system_proxy;
mod validate_cli;
