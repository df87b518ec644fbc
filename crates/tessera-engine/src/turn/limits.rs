//! Spending limits, checked before every paid call of a turn (tool rounds included).

use jiff::Zoned;
use tessera_providers::cost::record::rfc3339_utc;
use tessera_providers::cost::{day_start, PriceTable, SpendingLimits, Spent};
use tessera_providers::{ProviderClient, ProviderError};
use tessera_store::{Store, StoreError};

/// Whether a new paid call may start: checked before every call of a turn, and of the calls
/// outside one (routing, the summary, a specialist). `limits` None reads them from the app
/// settings. A call known to cost nothing (a local model) is never stopped by a spending limit.
pub(crate) fn check_spending(
    store: &Store,
    client: &ProviderClient,
    model: &str,
    conversation_id: &str,
    limits: Option<&SpendingLimits>,
    prices: &PriceTable,
) -> Result<(), ProviderError> {
    let limits = match limits {
        Some(l) => *l,
        // A limit that cannot be read stops paid calls rather than lifting the limit.
        None => match store.app_setting(tessera_providers::cost::SPENDING_LIMITS_SETTING) {
            Ok(None) => SpendingLimits::default(),
            Ok(Some(value)) => serde_json::from_value(value).map_err(|err| {
                ProviderError::Config(format!(
                    "the spending limits setting is not readable ({err}); set it again with \
                     `tessera provider limits`"
                ))
            })?,
            Err(err) => {
                return Err(ProviderError::Config(format!(
                    "cannot read the spending limits: {err}"
                )))
            }
        },
    };
    limits.validate()?;
    let free = prices
        .price_for(client.config(), model)
        .is_some_and(|p| p.input_per_mtok == 0.0 && p.output_per_mtok == 0.0);
    if limits.is_unlimited() || free {
        return Ok(());
    }
    let now = Zoned::now();
    let unreadable =
        |err: StoreError| ProviderError::Config(format!("cannot add up spending: {err}"));
    let spent = Spent {
        today_usd: store
            .spend_since(&rfc3339_utc(day_start(&now)?))
            .map_err(unreadable)?,
        conversation_usd: store
            .conversation_spend(conversation_id)
            .map_err(unreadable)?,
    };
    limits.check(spent, &now)
}
