//! The Rust types the UI reads that live above tessera-protocol (whose own types are always
//! generated): `tessera-gen` adds these, so `ui/src/generated/` has every type once.

use tessera_protocol::generate::Collector;

/// Adds the engine's types and the answers this crate composes (`tessera_app::views`).
pub fn add_roots(collector: &mut Collector<'_>) {
    // `GET /v1/runs/{id}/context`: `TurnContext.assembly` (typed there by name only, as the
    // protocol cannot see the engine).
    collector.add::<tessera_engine::assembler::Explanation>();
    // `/v1/profiles` and `/v1/specialists`.
    collector.add::<tessera_engine::profiles::Profile>();
    collector.add::<tessera_engine::specialists::SpecialistSpec>();
    // Their errors' `details.problems`.
    collector.add::<tessera_app::views::agents::AgentProblems>();
    collector.add::<tessera_app::views::agents::ProfilesView>();
    collector.add::<tessera_app::views::agents::SpecialistsView>();
    collector.add::<tessera_app::views::projects::ProjectList>();
    collector.add::<tessera_app::views::projects::ProjectDetail>();
    collector.add::<tessera_app::views::projects::NewProjectBody>();
    collector.add::<tessera_app::views::projects::ProjectEdit>();
    collector.add::<tessera_app::views::projects::KnowledgeSourceBody>();
    collector.add::<tessera_app::views::projects::KnowledgeAdded>();
    collector.add::<tessera_app::views::projects::KnowledgeSearch>();
    collector.add::<tessera_app::views::projects::ConversationProjectBody>();
    collector.add::<tessera_app::views::projects::MemoryList>();
    collector.add::<tessera_app::views::projects::MemoryEdit>();
    // `/v1/conversations…`.
    collector.add::<tessera_app::views::conversations::ConversationList>();
    collector.add::<tessera_app::views::conversations::ConversationDetail>();
    collector.add::<tessera_app::views::conversations::ConversationDeleted>();
    collector.add::<tessera_app::views::conversations::ConversationImported>();
    collector.add::<tessera_app::views::conversations::ConversationEdit>();
    // What a stored user message lists under `attachments`.
    collector.add::<tessera_engine::attachments::MessageAttachment>();
    collector.add::<tessera_app::views::conversations::ExportFormat>();
    // `/v1/interactions…`, `/v1/forms`, and the answer the UI sends.
    collector.add::<tessera_app::views::interactions::InteractionList>();
    collector.add::<tessera_app::views::interactions::InteractionAnswered>();
    collector.add::<tessera_engine::interactions::Answer>();
    // `/v1/tools`.
    collector.add::<tessera_app::views::tools::ToolList>();
    // `/v1/providers…`.
    collector.add::<tessera_app::views::providers::ProviderList>();
    collector.add::<tessera_app::views::providers::LocalProviders>();
    collector.add::<tessera_app::views::providers::ProviderSaved>();
    collector.add::<tessera_app::views::providers::ProviderRemoved>();
    collector.add::<tessera_app::views::providers::KeyStored>();
    collector.add::<tessera_app::views::providers::KeyRemoved>();
    collector.add::<tessera_app::views::providers::DefaultProviderSet>();
    collector.add::<tessera_app::views::providers::ProviderModels>();
    collector.add::<tessera_app::views::providers::ImageInput>();
    // `/v1/local-models…`.
    collector.add::<tessera_app::views::local_models::LocalModelsView>();
    collector.add::<tessera_app::views::local_models::DownloadView>();
    collector.add::<tessera_app::views::local_models::DownloadCancelled>();
    collector.add::<tessera_app::views::local_models::LocalFileRemoved>();
    collector.add::<tessera_app::views::local_models::LocalModelChosen>();
    collector.add::<tessera_app::views::local_models::LocalContextSet>();
    collector.add::<tessera_app::views::local_models::WorkerView>();
    // The desktop shell's commands for files dropped on the window.
    collector.add::<tessera_app::views::desktop::DroppedFile>();
}
