//! One turn outside the engine's runs, for a command that answers and exits (`tessera chat`):
//! recorded in the data folder like any conversation, its events handed to the caller as they
//! are stored.

use tessera_engine::turn::{run_turn, TurnError, TurnInput, TurnOutcome};
use tessera_providers::ProviderClient;
use tokio_util::sync::CancellationToken;

use crate::{App, StoredEvent};

impl App {
    pub async fn run_one_turn(
        &self,
        client: &ProviderClient,
        input: TurnInput<'_>,
        cancel: CancellationToken,
        on_event: impl FnMut(StoredEvent) + Send,
    ) -> Result<TurnOutcome, TurnError> {
        run_turn(self.engine.store(), client, input, cancel, on_event).await
    }
}
