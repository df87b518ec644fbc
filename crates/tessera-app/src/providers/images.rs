//! Whether a model takes images: the person's setting for that model of that provider, else a
//! guess from its name. The composer asks before a picture is sent, and the settings page shows
//! what the guess is; the encoders (`ProviderConfig::accepts_images`) follow the same rule.

use crate::views::providers::{ImageInput, ImageInputSource};
use crate::App;

use super::Outcome;

impl App {
    /// Whether `model` of the provider `provider` takes images. The model new runs use is
    /// answered from the configuration it runs with (a model named on the command line has
    /// none saved); any other from the saved provider or its preset. No model: the provider's
    /// default.
    pub fn image_input(&self, provider: &str, model: Option<&str>) -> Outcome<ImageInput> {
        let current = self
            .engine
            .model()
            .filter(|choice| choice.client.config().name == provider)
            .filter(|choice| model.is_none_or(|m| m == choice.model));
        let (config, model) = match current {
            Some(choice) => (choice.client.config().clone(), choice.model.clone()),
            None => {
                let (config, _) = self.providers().require(provider)?;
                let model = match model {
                    Some(m) => m.to_owned(),
                    None => config.default_model.clone().unwrap_or_default(),
                };
                (config, model)
            }
        };
        let set = config.model(&model).and_then(|m| m.image_input);
        Ok(ImageInput {
            provider: provider.to_owned(),
            takes_images: config.accepts_images(&model),
            source: match set {
                Some(true) => ImageInputSource::On,
                Some(false) => ImageInputSource::Off,
                None => ImageInputSource::Guessed,
            },
            model,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use tessera_providers::config::ModelSettings;
    use tessera_providers::{ProviderConfig, WireKind};

    use crate::models::ModelOverrides;
    use crate::views::providers::ImageInputSource;
    use crate::App;

    fn said(image_input: Option<bool>) -> ModelSettings {
        ModelSettings {
            image_input,
            ..ModelSettings::default()
        }
    }

    #[tokio::test]
    async fn the_persons_setting_wins_over_the_guess_from_the_name(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let app = App::open_for_command(dir.path(), ModelOverrides::default())?;
        let mut config = ProviderConfig::new("lab", WireKind::Openai, "http://127.0.0.1:9/v1");
        config.default_model = Some("scripted-model".into());
        config.models = BTreeMap::from([
            ("gpt-4o".to_owned(), said(Some(false))),
            ("my-vision-finetune".to_owned(), said(None)),
            ("house-model".to_owned(), said(Some(true))),
        ]);
        app.providers().save(&config)?;
        // Read back from the data folder, as a later process would.
        drop(app);
        let app = App::open_for_command(dir.path(), ModelOverrides::default())?;

        let default = app.image_input("lab", None)?;
        assert_eq!(
            (default.model.as_str(), default.takes_images),
            ("scripted-model", false)
        );
        assert_eq!(default.source, ImageInputSource::Guessed);
        let guessed = app.image_input("lab", Some("my-vision-finetune"))?;
        assert!(guessed.takes_images);
        assert_eq!(guessed.source, ImageInputSource::Guessed);
        let off = app.image_input("lab", Some("gpt-4o"))?;
        assert!(!off.takes_images, "set off, though its name says it sees");
        assert_eq!(off.source, ImageInputSource::Off);
        let on = app.image_input("lab", Some("house-model"))?;
        assert!(on.takes_images);
        assert_eq!(on.source, ImageInputSource::On);
        // What the requests to the provider follow is the same rule.
        let saved = app.providers().saved("lab")?.ok_or("saved")?;
        assert!(!saved.accepts_images("gpt-4o") && saved.accepts_images("house-model"));
        assert!(app.image_input("nobody", None).is_err());
        Ok(())
    }

    #[tokio::test]
    async fn the_model_in_use_is_answered_from_what_it_runs_with(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let setup = App::open_for_command(dir.path(), ModelOverrides::default())?;
        let mut config = ProviderConfig::new("local", WireKind::Openai, "http://127.0.0.1:9/v1");
        config.requires_key = false;
        config.models = BTreeMap::from([("llava:7b".to_owned(), said(Some(false)))]);
        setup.providers().save(&config)?;
        setup.providers().set_default("local")?;
        drop(setup);
        let overrides = ModelOverrides {
            model: Some("llava:7b".into()),
            ..ModelOverrides::default()
        };
        let app = App::open(dir.path(), overrides, Vec::new()).await?;
        let status = crate::model_status(app.engine());
        assert_eq!(status.provider.as_deref(), Some("local"));
        let found = app.image_input("local", None)?;
        assert_eq!(
            found.model, "llava:7b",
            "the model in use, not the provider's default"
        );
        assert!(!found.takes_images);
        assert_eq!(found.source, ImageInputSource::Off);
        Ok(())
    }
}
