//! Grammar inputs per family, and that text shaped by them parses back as calls.

use serde_json::{json, Value};
use tessera_local::chat_format::{
    tool_call_grammar, Activation, GrammarError, LazyTrigger, ToolCallGrammar, ToolChoice,
    ToolFamily,
};

use crate::{call, call_with_id, parse_whole, time_tool, weather_tool};

fn tools() -> Vec<Value> {
    vec![weather_tool(), time_tool()]
}

/// The text a grammar-constrained model would write for these call objects.
fn write_calls(grammar: &ToolCallGrammar, calls: &[Value]) -> String {
    let envelope = &grammar.envelope;
    let bodies: Vec<String> = calls
        .iter()
        .map(|c| {
            format!(
                "{}{}{}",
                envelope.call_prefix,
                serde_json::to_string(c).unwrap(),
                envelope.call_suffix
            )
        })
        .collect();
    format!(
        "{}{}{}",
        envelope.open,
        bodies.join(&envelope.separator),
        envelope.close
    )
}

#[test]
fn hermes_schema_envelope_and_trigger() {
    let grammar = tool_call_grammar(ToolFamily::Hermes, &tools(), &ToolChoice::Auto).unwrap();
    assert_eq!(
        grammar.call_schema,
        json!({"oneOf": [
            {
                "type": "object",
                "properties": {
                    "name": {"const": "get_weather"},
                    "arguments": weather_tool()["function"]["parameters"],
                },
                "required": ["name", "arguments"],
            },
            {
                "type": "object",
                "properties": {
                    "name": {"const": "get_time"},
                    "arguments": time_tool()["function"]["parameters"],
                },
                "required": ["name", "arguments"],
            }
        ]})
    );
    assert_eq!(grammar.envelope.call_prefix, "<tool_call>\n");
    assert_eq!(grammar.envelope.call_suffix, "\n</tool_call>");
    assert!(grammar.envelope.parallel);
    assert_eq!(
        grammar.activation,
        Activation::Lazy {
            triggers: vec![LazyTrigger::Word("<tool_call>".to_owned())]
        }
    );
    // The envelope starts with the trigger, so a lazy grammar can take over there.
    assert!(grammar.envelope.call_prefix.starts_with("<tool_call>"));
}

#[test]
fn required_and_named_choices_force_the_envelope() {
    for family in [ToolFamily::Hermes, ToolFamily::Llama3, ToolFamily::Mistral] {
        let grammar = tool_call_grammar(family, &tools(), &ToolChoice::Required).unwrap();
        assert_eq!(grammar.activation, Activation::FromStart);
        assert_eq!(grammar.call_schema["oneOf"].as_array().unwrap().len(), 2);

        let named =
            tool_call_grammar(family, &tools(), &ToolChoice::Function("get_time".into())).unwrap();
        assert_eq!(named.activation, Activation::FromStart);
        let only = named.call_schema["oneOf"].as_array().unwrap();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0]["properties"]["name"]["const"], "get_time");
    }
    assert_eq!(
        tool_call_grammar(
            ToolFamily::Hermes,
            &tools(),
            &ToolChoice::Function("nope".into())
        ),
        Err(GrammarError::UnknownFunction {
            name: "nope".into()
        })
    );
}

#[test]
fn llama_uses_parameters_and_a_start_pattern() {
    let grammar = tool_call_grammar(ToolFamily::Llama3, &tools(), &ToolChoice::Auto).unwrap();
    let first = &grammar.call_schema["oneOf"][0];
    assert_eq!(first["required"], json!(["name", "parameters"]));
    assert_eq!(
        first["properties"]["parameters"],
        weather_tool()["function"]["parameters"]
    );
    assert!(
        !grammar.envelope.parallel,
        "Llama 3.x templates take one call per turn"
    );
    assert_eq!(grammar.envelope.call_prefix, "");
    match &grammar.activation {
        Activation::Lazy { triggers } => match triggers.as_slice() {
            [LazyTrigger::Pattern(pattern)] => assert!(pattern.starts_with('^')),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(grammar.additional_stops, vec!["<|eom_id|>".to_owned()]);
}

#[test]
fn mistral_requires_nine_character_ids_in_a_list() {
    let grammar = tool_call_grammar(ToolFamily::Mistral, &tools(), &ToolChoice::Auto).unwrap();
    let first = &grammar.call_schema["oneOf"][0];
    assert_eq!(first["required"], json!(["name", "arguments", "id"]));
    assert_eq!(
        first["properties"]["id"],
        json!({"type": "string", "pattern": "^[a-zA-Z0-9]{9}$"})
    );
    assert_eq!(grammar.envelope.open, "[TOOL_CALLS][");
    assert_eq!(grammar.envelope.separator, ", ");
    assert_eq!(grammar.envelope.close, "]");
}

#[test]
fn text_written_to_the_envelope_parses_back() {
    let hermes = tool_call_grammar(ToolFamily::Hermes, &tools(), &ToolChoice::Auto).unwrap();
    let written = write_calls(
        &hermes,
        &[
            json!({"name": "get_weather", "arguments": {"city": "Paris"}}),
            json!({"name": "get_time", "arguments": {"zone": "UTC"}}),
        ],
    );
    assert_eq!(
        parse_whole(ToolFamily::Hermes, &written),
        Ok(vec![
            call(0, "get_weather", r#"{"city":"Paris"}"#),
            call(1, "get_time", r#"{"zone":"UTC"}"#)
        ])
    );

    let llama = tool_call_grammar(ToolFamily::Llama3, &tools(), &ToolChoice::Required).unwrap();
    let written = write_calls(
        &llama,
        &[json!({"name": "get_weather", "parameters": {"city": "Paris"}})],
    );
    assert_eq!(
        parse_whole(ToolFamily::Llama3, &written),
        Ok(vec![call(0, "get_weather", r#"{"city":"Paris"}"#)])
    );

    let mistral = tool_call_grammar(ToolFamily::Mistral, &tools(), &ToolChoice::Auto).unwrap();
    let written = write_calls(
        &mistral,
        &[
            json!({"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcdefghi"}),
            json!({"name": "get_time", "arguments": {"zone": "UTC"}, "id": "123456789"}),
        ],
    );
    assert_eq!(
        parse_whole(ToolFamily::Mistral, &written),
        Ok(vec![
            call_with_id(0, "abcdefghi", "get_weather", r#"{"city":"Paris"}"#),
            call_with_id(1, "123456789", "get_time", r#"{"zone":"UTC"}"#)
        ])
    );
}

#[test]
fn serialises_as_plain_data() {
    let grammar =
        tool_call_grammar(ToolFamily::Hermes, &[weather_tool()], &ToolChoice::Auto).unwrap();
    let value = serde_json::to_value(&grammar).unwrap();
    assert_eq!(value["family"], "hermes");
    assert_eq!(
        value["activation"],
        json!({"kind": "lazy", "triggers": [{"kind": "word", "value": "<tool_call>"}]})
    );
    assert_eq!(value["envelope"]["call_suffix"], "\n</tool_call>");
    assert_eq!(
        value["preserved_tokens"],
        json!(["<tool_call>", "</tool_call>"])
    );
    let forced =
        tool_call_grammar(ToolFamily::Hermes, &[weather_tool()], &ToolChoice::Required).unwrap();
    assert_eq!(
        serde_json::to_value(&forced).unwrap()["activation"],
        json!({"kind": "from_start"})
    );
}

#[test]
fn bad_tools_are_typed_errors() {
    assert_eq!(
        tool_call_grammar(ToolFamily::Hermes, &[], &ToolChoice::Auto),
        Err(GrammarError::NoTools)
    );
    assert_eq!(
        tool_call_grammar(
            ToolFamily::Hermes,
            &[weather_tool(), json!({"type": "retrieval"})],
            &ToolChoice::Auto
        ),
        Err(GrammarError::NotAFunction { index: 1 })
    );
    assert_eq!(
        tool_call_grammar(
            ToolFamily::Hermes,
            &[json!({"type": "function", "function": {"name": "f", "parameters": "none"}})],
            &ToolChoice::Auto
        ),
        Err(GrammarError::ParametersNotAnObject { name: "f".into() })
    );
    // No parameters at all is a function taking an empty object.
    let grammar = tool_call_grammar(
        ToolFamily::Hermes,
        &[json!({"type": "function", "function": {"name": "now"}})],
        &ToolChoice::Auto,
    )
    .unwrap();
    assert_eq!(
        grammar.call_schema["oneOf"][0]["properties"]["arguments"],
        json!({"type": "object", "properties": {}})
    );
}
