//! The specialists in force (the built-ins with the person's over them). They are tools of the
//! model's registry: after a change, [`App::reload_model`] gives new runs their `invoke_…` tools.

use tessera_engine::specialists::{self, SpecialistSpec, SpecialistsError, SETTING_KEY};

use crate::App;

impl App {
    /// The specialists in force, and whether the person has their own.
    pub fn specialists(&self) -> Result<(Vec<SpecialistSpec>, bool), SpecialistsError> {
        let store = self.engine.store();
        let custom = store.app_setting(SETTING_KEY)?.is_some();
        Ok((specialists::load_specialists(store)?, custom))
    }

    /// Saves the person's own (one named like a built-in replaces it), checked first.
    pub fn save_specialists(
        &self,
        value: &serde_json::Value,
    ) -> Result<Vec<SpecialistSpec>, SpecialistsError> {
        specialists::save_specialists(self.engine.store(), value)
    }

    /// The built-in ones again.
    pub fn reset_specialists(&self) -> Result<Vec<SpecialistSpec>, SpecialistsError> {
        self.engine.store().delete_app_setting(SETTING_KEY)?;
        Ok(specialists::builtin())
    }
}
