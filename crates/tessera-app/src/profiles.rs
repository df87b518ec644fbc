//! The agent profiles in force (the built-in one until the person saves their own), as the
//! settings page edits them; runs read them as they start.

use tessera_engine::profiles::{Profiles, SETTING_KEY};

use crate::views::agents::ProfilesView;
use crate::{App, CoreError};

fn view(profiles: &Profiles, custom: bool) -> ProfilesView {
    ProfilesView {
        profiles: profiles.all().to_vec(),
        custom,
    }
}

impl App {
    /// The profiles in force, and whether they are the person's own.
    pub fn profiles(&self) -> Result<ProfilesView, CoreError> {
        let store = self.engine.store();
        let custom = store.app_setting(SETTING_KEY)?.is_some();
        Ok(view(&Profiles::load(store)?, custom))
    }

    /// Replaces the person's profiles with the whole list `value`, checked first (nothing is
    /// written when anything is wrong).
    pub fn save_profiles(&self, value: &serde_json::Value) -> Result<ProfilesView, CoreError> {
        Ok(view(
            &Profiles::save_value(self.engine.store(), value)?,
            true,
        ))
    }

    /// The built-in profile applies again.
    pub fn reset_profiles(&self) -> Result<ProfilesView, CoreError> {
        Profiles::reset(self.engine.store())?;
        Ok(view(&Profiles::builtin(), false))
    }
}
