//! Changing a setting: an unknown key or a value of the wrong JSON type is the request's fault
//! (BAD_REQUEST), a value out of range names the setting (INVALID_VALUE); neither changes what
//! is stored.

use serde_json::{json, Value};
use tessera_app::{App, Problem};
use tessera_protocol::error_codes::ErrorCode;

use crate::support::Setup;

const LIMIT: &str = "spending_limit_per_conversation_usd";

async fn refused(app: &App, key: &str, value: Value) -> Problem {
    let err = app.change_setting(key, value.clone()).await.unwrap_err();
    Problem::from(err)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_setting_is_refused_with_its_code_and_status_and_nothing_changes() {
    let setup = Setup::new().await;
    let app = &setup.app;
    app.change_setting(LIMIT, json!(5)).await.unwrap();

    let unknown = refused(app, "spending_limit_usd", json!(1)).await;
    assert_eq!(unknown.code, ErrorCode::BadRequest, "{unknown:?}");
    assert_eq!(unknown.http_status(), 400);
    assert!(
        unknown.message.contains("spending_limit_usd") && unknown.message.contains(LIMIT),
        "names the key and the settings there are: {}",
        unknown.message
    );

    let wrong_type = refused(app, LIMIT, json!(true)).await;
    assert_eq!(wrong_type.code, ErrorCode::BadRequest, "{wrong_type:?}");
    assert_eq!(wrong_type.http_status(), 400);
    assert!(
        wrong_type.message.contains(LIMIT) && wrong_type.message.contains("a boolean"),
        "{}",
        wrong_type.message
    );
    let wrong_name = refused(app, "default_provider", json!(42)).await;
    assert_eq!(wrong_name.code, ErrorCode::BadRequest, "{wrong_name:?}");

    let negative = refused(app, LIMIT, json!(-3)).await;
    assert_eq!(negative.code, ErrorCode::InvalidValue, "{negative:?}");
    assert_eq!(negative.http_status(), 400);
    assert!(
        negative.message.contains("spending limit per conversation")
            && negative.message.contains("-3"),
        "names the setting and the value: {}",
        negative.message
    );

    // What was set before stands, and the model too.
    let settings = app.settings().unwrap();
    assert_eq!(
        settings.settings.spending_limit_per_conversation_usd,
        Some(5.0)
    );
    assert_eq!(settings.settings.default_provider.as_deref(), Some("local"));
    assert!(settings.model.unwrap().ready);
}
