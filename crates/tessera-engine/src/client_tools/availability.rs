//! `TOOL_AVAILABILITY_REQUEST` → `TOOL_AVAILABILITY_RESPONSE` (seed 000 §4.7.2): for each tool
//! asked, whether it can run in this conversation — an engine tool, or a front-end tool a
//! client of the conversation announced in a version and with the capabilities asked — and,
//! when not, the reason (`NOT_FOUND`, `VERSION_TOO_OLD`, `CAPABILITY_MISSING`).

use serde_json::Value;
use tessera_protocol::mcp_cp::{
    PermissionLevel, ToolAvailability, ToolAvailabilityQuery, ToolAvailabilityRequest,
    ToolAvailabilityResponse,
};
use tessera_protocol::wire::JsonObject;

use super::announcement::ClientTool;
use crate::tools::ToolRegistry;

/// Dotted numeric versions compared part by part (`1.10.0` > `1.9`); a part that is not a
/// number compares as 0 so `1.0.0-beta` reads as `1.0.0`.
fn version_at_least(have: &str, want: &str) -> bool {
    let parts = |v: &str| -> Vec<u64> {
        v.trim_start_matches(['v', 'V'])
            .split('.')
            .map(|p| {
                p.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse()
                    .unwrap_or(0)
            })
            .collect()
    };
    let (have, want) = (parts(have), parts(want));
    let len = have.len().max(want.len());
    for i in 0..len {
        let (h, w) = (
            have.get(i).copied().unwrap_or(0),
            want.get(i).copied().unwrap_or(0),
        );
        if h != w {
            return h > w;
        }
    }
    true
}

fn unavailable(tool_id: &str, reason: &str, message: String) -> ToolAvailability {
    ToolAvailability {
        tool_id: tool_id.to_owned(),
        available: false,
        version: None,
        capabilities: None,
        reason: Some(reason.to_owned()),
        message: Some(message),
        extra: JsonObject::new(),
    }
}

fn permission_str(level: PermissionLevel) -> &'static str {
    match level {
        PermissionLevel::None => "NONE",
        PermissionLevel::UserConsent => "USER_CONSENT",
        PermissionLevel::AlwaysAsk => "ALWAYS_ASK",
    }
}

fn client_answer(query: &ToolAvailabilityQuery, tool: &ClientTool) -> ToolAvailability {
    let version = tool.announced.version.clone();
    let capabilities = tool.announced.capabilities.clone().unwrap_or_default();
    if let Some(min) = &query.min_version {
        match &version {
            Some(v) if version_at_least(v, min) => {}
            Some(v) => {
                return unavailable(
                    &query.tool_id,
                    "VERSION_TOO_OLD",
                    format!(
                        "the client `{}` runs version {v}, below {min}",
                        tool.client_id
                    ),
                )
            }
            None => {
                return unavailable(
                    &query.tool_id,
                    "VERSION_TOO_OLD",
                    format!(
                    "the client `{}` did not say which version it runs (at least {min} was asked)",
                    tool.client_id
                ),
                )
            }
        }
    }
    let missing: Vec<&str> = query
        .required_capabilities
        .iter()
        .flatten()
        .filter(|c| !capabilities.contains(c))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return unavailable(
            &query.tool_id,
            "CAPABILITY_MISSING",
            format!(
                "the client `{}` does not offer {}",
                tool.client_id,
                missing.join(", ")
            ),
        );
    }
    let mut extra = JsonObject::new();
    extra.insert("runtime".into(), Value::String("FRONTEND".into()));
    extra.insert("clientId".into(), Value::String(tool.client_id.clone()));
    ToolAvailability {
        tool_id: query.tool_id.clone(),
        available: true,
        version,
        capabilities: tool.announced.capabilities.clone(),
        reason: None,
        message: None,
        extra,
    }
}

/// Answers each query from the engine's tools and the conversation's announced client tools.
pub fn availability(
    request: &ToolAvailabilityRequest,
    engine_tools: Option<&ToolRegistry>,
    client_tools: &[ClientTool],
) -> ToolAvailabilityResponse {
    let available_tools = request
        .tools
        .iter()
        .map(|query| {
            if let Some(tool) = engine_tools.and_then(|r| r.get(&query.tool_id)) {
                // Engine tools have no version or capabilities to compare against: they are
                // the ones this server runs.
                let mut extra = JsonObject::new();
                extra.insert("runtime".into(), Value::String("BACKEND".into()));
                extra.insert(
                    "permissionLevel".into(),
                    Value::String(permission_str(tool.spec.permission).into()),
                );
                return ToolAvailability {
                    tool_id: query.tool_id.clone(),
                    available: true,
                    version: None,
                    capabilities: None,
                    reason: None,
                    message: None,
                    extra,
                };
            }
            let offered: Vec<&ClientTool> = client_tools
                .iter()
                .filter(|t| t.spec.name == query.tool_id)
                .collect();
            match offered.first() {
                Some(tool) => client_answer(query, tool),
                None => unavailable(
                    &query.tool_id,
                    "NOT_FOUND",
                    format!(
                        "this server has no tool `{}` and no client of this conversation announced it",
                        query.tool_id
                    ),
                ),
            }
        })
        .collect();
    ToolAvailabilityResponse {
        available_tools,
        extra: JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::version_at_least;

    #[test]
    fn versions_compare_part_by_part() {
        assert!(version_at_least("1.2.0", "1.0.0"));
        assert!(version_at_least("1.10", "1.9.5"));
        assert!(version_at_least("1.0", "1.0.0"));
        assert!(!version_at_least("0.9.9", "1.0.0"));
        assert!(!version_at_least("1.0.0-beta", "1.0.1"));
    }
}
