//! The specialists in force (the built-ins with the person's over them). They are tools of the
//! model's registry: a change rebuilds the model, so new runs get their `invoke_…` tools.

use tessera_engine::specialists::{self, SpecialistSpec, SETTING_KEY};
use tessera_protocol::settings_api::ModelStatus;

use crate::views::agents::SpecialistsView;
use crate::{App, CoreError};

fn view(
    specialists: Vec<SpecialistSpec>,
    custom: bool,
    model: Option<ModelStatus>,
) -> SpecialistsView {
    SpecialistsView {
        specialists,
        custom,
        builtin: specialists::builtin().into_iter().map(|s| s.name).collect(),
        model,
    }
}

impl App {
    /// The specialists in force, and whether the person has their own.
    pub fn specialists(&self) -> Result<SpecialistsView, CoreError> {
        let store = self.engine.store();
        let custom = store.app_setting(SETTING_KEY)?.is_some();
        Ok(view(specialists::load_specialists(store)?, custom, None))
    }

    /// Saves the person's own (one named like a built-in replaces it), checked first; the
    /// model is rebuilt so runs from now on have them.
    pub async fn save_specialists(
        &self,
        value: &serde_json::Value,
    ) -> Result<SpecialistsView, CoreError> {
        let specs = specialists::save_specialists(self.engine.store(), value)?;
        let model = self.reload_model_status().await;
        Ok(view(specs, true, Some(model)))
    }

    /// The built-in ones again.
    pub async fn reset_specialists(&self) -> Result<SpecialistsView, CoreError> {
        self.engine.store().delete_app_setting(SETTING_KEY)?;
        let model = self.reload_model_status().await;
        Ok(view(specialists::builtin(), false, Some(model)))
    }
}
