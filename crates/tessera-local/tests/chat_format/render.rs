//! Real templates rendered exactly as Hugging Face transformers would render them.
//!
//! Expected prompts are derived by hand from each template, and the call shapes agree with
//! llama.cpp's tests/test-chat.cpp expectations (`<tool_call>\n{"name": …, "arguments":
//! {…}}\n</tool_call>`, `[TOOL_CALLS][{"name": …, "arguments": {…}, "id": "…"}]`,
//! `{"name": …, "parameters": {…}}`).

use serde_json::{json, Value};
use tessera_local::chat_format::{ChatTemplate, TemplateError, ToolFamily};

use crate::{fixture, time_tool, weather_conversation, weather_tool, FIXED_TIME};

const QWEN_TOOL_JSON: &str = r#"{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city name"}}, "required": ["city"]}}}"#;

const LLAMA_TOOL_JSON: &str = r#"{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {
                    "type": "string",
                    "description": "The city name"
                }
            },
            "required": [
                "city"
            ]
        }
    }
}"#;

fn qwen() -> ChatTemplate {
    ChatTemplate::new(&fixture("Qwen-Qwen2.5-7B-Instruct.jinja"), "", "<|im_end|>").unwrap()
}

fn llama() -> ChatTemplate {
    ChatTemplate::new(
        &fixture("meta-llama-Llama-3.2-3B-Instruct.jinja"),
        "<|begin_of_text|>",
        "<|eot_id|>",
    )
    .unwrap()
    .with_fixed_time(FIXED_TIME)
}

fn nemo() -> ChatTemplate {
    ChatTemplate::new(
        &fixture("mistralai-Mistral-Nemo-Instruct-2407.jinja"),
        "<s>",
        "</s>",
    )
    .unwrap()
}

fn mistral_small() -> ChatTemplate {
    ChatTemplate::new(
        &fixture("Mistral-Small-3.2-24B-Instruct-2506.jinja"),
        "<s>",
        "</s>",
    )
    .unwrap()
    .with_fixed_time(FIXED_TIME)
}

#[test]
fn a_compiled_template_can_be_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ChatTemplate>();
}

#[test]
fn families_are_detected_from_the_real_templates() {
    assert_eq!(qwen().family(), ToolFamily::Hermes);
    assert_eq!(llama().family(), ToolFamily::Llama3);
    assert_eq!(nemo().family(), ToolFamily::Mistral);
    assert_eq!(mistral_small().family(), ToolFamily::Mistral);
    let chatml =
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}";
    assert_eq!(ToolFamily::detect(chatml), ToolFamily::Generic);
    // Llama 3.0 has the header tokens but no tool role.
    let llama3_0 = "{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n{{ m.content }}<|eot_id|>{% endfor %}";
    assert_eq!(ToolFamily::detect(llama3_0), ToolFamily::Generic);
}

#[test]
fn qwen_renders_a_tool_conversation_exactly() {
    let tools = [weather_tool()];
    let prompt = qwen()
        .render(&weather_conversation("call_abc123"), Some(&tools), true)
        .unwrap();
    let expected = format!(
        "<|im_start|>system\nYou are a helpful assistant.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{QWEN_TOOL_JSON}\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call><|im_end|>\n\
<|im_start|>user\nWhat's the weather in Paris?<|im_end|>\n\
<|im_start|>assistant\n<tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"Paris\"}}}}\n</tool_call><|im_end|>\n\
<|im_start|>user\n<tool_response>\n18°C, sunny\n</tool_response><|im_end|>\n\
<|im_start|>assistant\nIt is 18°C and sunny in Paris.<|im_end|>\n\
<|im_start|>user\nThanks! And in Lyon?<|im_end|>\n\
<|im_start|>assistant\n"
    );
    assert_eq!(prompt, expected);
}

#[test]
fn add_generation_prompt_adds_only_the_assistant_header() {
    let tools = [weather_tool()];
    let messages = weather_conversation("call_abc123");
    let with = qwen().render(&messages, Some(&tools), true).unwrap();
    let without = qwen().render(&messages, Some(&tools), false).unwrap();
    assert_eq!(with, format!("{without}<|im_start|>assistant\n"));

    let with = llama().render(&messages, Some(&tools), true).unwrap();
    let without = llama().render(&messages, Some(&tools), false).unwrap();
    assert_eq!(
        with,
        format!("{without}<|start_header_id|>assistant<|end_header_id|>\n\n")
    );
}

#[test]
fn qwen_without_tools_uses_the_plain_system_turn() {
    let messages = [
        json!({"role": "user", "content": "Hi"}),
        json!({"role": "assistant", "content": "Hello!"}),
        json!({"role": "user", "content": "  spaces kept  "}),
    ];
    let prompt = qwen().render(&messages, None, true).unwrap();
    assert_eq!(
        prompt,
        "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n\
<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n\
<|im_start|>user\n  spaces kept  <|im_end|>\n<|im_start|>assistant\n"
    );
    // An empty tool list is no tools.
    assert_eq!(qwen().render(&messages, Some(&[]), true).unwrap(), prompt);
}

#[test]
fn qwen_renders_parallel_calls_and_their_results() {
    let messages = [
        json!({"role": "user", "content": "Weather and time in Paris?"}),
        json!({"role": "assistant", "content": "Checking both.", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
            {"id": "b", "type": "function", "function": {"name": "get_time", "arguments": "{\"zone\": \"Europe/Paris\"}"}}
        ]}),
        json!({"role": "tool", "tool_call_id": "a", "content": "sunny"}),
        json!({"role": "tool", "tool_call_id": "b", "content": "14:00"}),
    ];
    let prompt = qwen()
        .render(&messages, Some(&[weather_tool(), time_tool()]), false)
        .unwrap();
    let turns = prompt.split_once("<|im_start|>user\nWeather").unwrap().1;
    assert_eq!(
        turns,
        " and time in Paris?<|im_end|>\n\
<|im_start|>assistant\nChecking both.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Europe/Paris\"}}\n</tool_call><|im_end|>\n\
<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\n14:00\n</tool_response><|im_end|>\n"
    );
}

#[test]
fn llama_renders_a_tool_conversation_exactly() {
    let tools = [weather_tool()];
    let prompt = llama()
        .render(&weather_conversation("call_abc123"), Some(&tools), true)
        .unwrap();
    // The template's default puts the tools in the first user turn; the tool result is a
    // string, which Jinja counts as iterable, so the template prints it through `tojson`.
    let expected = format!(
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nYou are a helpful assistant.<|eot_id|>\
<|start_header_id|>user<|end_header_id|>\n\nGiven the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\nRespond in the format {{\"name\": function name, \"parameters\": dictionary of argument name and its value}}.Do not use variables.\n\n{LLAMA_TOOL_JSON}\n\nWhat's the weather in Paris?<|eot_id|>\
<|start_header_id|>assistant<|end_header_id|>\n\n{{\"name\": \"get_weather\", \"parameters\": {{\"city\": \"Paris\"}}}}<|eot_id|>\
<|start_header_id|>ipython<|end_header_id|>\n\n\"18°C, sunny\"<|eot_id|>\
<|start_header_id|>assistant<|end_header_id|>\n\nIt is 18°C and sunny in Paris.<|eot_id|>\
<|start_header_id|>user<|end_header_id|>\n\nThanks! And in Lyon?<|eot_id|>\
<|start_header_id|>assistant<|end_header_id|>\n\n"
    );
    assert_eq!(prompt, expected);
}

#[test]
fn llama_reads_the_date_from_strftime_now() {
    let messages = [json!({"role": "user", "content": "Hi"})];
    let prompt = llama().render(&messages, None, true).unwrap();
    assert_eq!(
        prompt,
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|>\
<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
    );
    // Unfrozen, the clock is today's: only check the line is there and well formed.
    let live = ChatTemplate::new(
        &fixture("meta-llama-Llama-3.2-3B-Instruct.jinja"),
        "",
        "<|eot_id|>",
    )
    .unwrap()
    .render(&messages, None, true)
    .unwrap();
    let date = live
        .split("Today Date: ")
        .nth(1)
        .unwrap()
        .split('\n')
        .next()
        .unwrap();
    let parts: Vec<&str> = date.split(' ').collect();
    assert_eq!(parts.len(), 3, "{date}");
    assert!(parts[2].parse::<u32>().unwrap() >= 2024, "{date}");
}

#[test]
fn llama_template_refuses_two_calls_in_one_turn() {
    let messages = [
        json!({"role": "user", "content": "Weather and time?"}),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
        ]}),
    ];
    let err = llama()
        .render(&messages, Some(&[weather_tool(), time_tool()]), false)
        .unwrap_err();
    match err {
        TemplateError::Raised { message } => {
            assert_eq!(
                message,
                "This model only supports single tool-calls at once!"
            )
        }
        other => panic!("expected Raised, got {other:?}"),
    }
}

#[test]
fn nemo_renders_a_tool_conversation_exactly() {
    let tools = [weather_tool()];
    let prompt = nemo()
        .render(&weather_conversation("abc123XYZ"), Some(&tools), true)
        .unwrap();
    // `tool.items()` keeps the function's key order; the result is printed raw (no quotes);
    // the system message joins the last user turn; there is no generation header.
    let expected = "<s>[INST]What's the weather in Paris?[/INST]\
[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"abc123XYZ\"}]</s>\
[TOOL_RESULTS]{\"content\": 18°C, sunny, \"call_id\": \"abc123XYZ\"}[/TOOL_RESULTS]\
It is 18°C and sunny in Paris.</s>\
[AVAILABLE_TOOLS][{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Get the current weather for a city\", \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\", \"description\": \"The city name\"}}, \"required\": [\"city\"]}}}][/AVAILABLE_TOOLS]\
[INST]You are a helpful assistant.\n\nThanks! And in Lyon?[/INST]";
    assert_eq!(prompt, expected);
}

fn ids_in(prompt: &str, key: &str) -> Vec<String> {
    prompt
        .split(key)
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_owned())
        .collect()
}

#[test]
fn nemo_rewrites_openai_ids_to_nine_alphanumerics() {
    let tools = [weather_tool()];
    // Our own stored calls carry `call_` + 24 characters, which Nemo's template rejects.
    let id = "call_Zx81bQk2LmN0pQrStUvWxYz1";
    let prompt = nemo()
        .render(&weather_conversation(id), Some(&tools), true)
        .unwrap();
    let call_ids = ids_in(&prompt, "\"id\": \"");
    let result_ids = ids_in(&prompt, "\"call_id\": \"");
    assert_eq!(call_ids.len(), 1);
    assert_eq!(call_ids, result_ids, "the result must still name its call");
    let rewritten = &call_ids[0];
    assert_eq!(rewritten.len(), 9);
    assert!(rewritten.bytes().all(|b| b.is_ascii_alphanumeric()));
    assert!(!prompt.contains(id));
    // Stable: the same conversation gives the same prompt (and the same prompt cache).
    let again = nemo()
        .render(&weather_conversation(id), Some(&tools), true)
        .unwrap();
    assert_eq!(prompt, again);
    // Two different long ids do not collapse into one.
    let mut messages = weather_conversation("call_first_one_xxxxxxxxxxxxxxxx");
    messages.insert(
        4,
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_second_one_xxxxxxxxxxxxxxx", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Nice\"}"}}]}),
    );
    messages.insert(
        5,
        json!({"role": "tool", "tool_call_id": "call_second_one_xxxxxxxxxxxxxxx", "content": "rain"}),
    );
    let prompt = nemo().render(&messages, Some(&tools), false).unwrap();
    let call_ids = ids_in(&prompt, "\"id\": \"");
    assert_eq!(call_ids.len(), 2);
    assert_ne!(call_ids[0], call_ids[1]);
    assert_eq!(call_ids, ids_in(&prompt, "\"call_id\": \""));
}

#[test]
fn nemo_raises_on_roles_that_do_not_alternate() {
    let messages = [
        json!({"role": "user", "content": "one"}),
        json!({"role": "user", "content": "two"}),
    ];
    match nemo().render(&messages, None, true) {
        Err(TemplateError::Raised { message }) => assert_eq!(
            message,
            "After the optional system message, conversation roles must alternate user/assistant/user/assistant/..."
        ),
        other => panic!("expected Raised, got {other:?}"),
    }
}

#[test]
fn mistral_small_renders_the_args_form_and_the_date() {
    let tools = [weather_tool()];
    let prompt = mistral_small()
        .render(&weather_conversation("call_abc123"), Some(&tools), true)
        .unwrap();
    let id = ids_in(&prompt.replace("[CALL_ID]", "[CALL_ID]\""), "[CALL_ID]\"")
        .pop()
        .unwrap();
    let id = &id[..9];
    assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()));
    let expected = format!(
        "<s>[SYSTEM_PROMPT]You are a helpful assistant.[/SYSTEM_PROMPT]\
[INST]What's the weather in Paris?[/INST]\
[TOOL_CALLS]get_weather[CALL_ID]{id}[ARGS]{{\"city\": \"Paris\"}}</s>\
[TOOL_RESULTS]{id}[TOOL_CONTENT]18°C, sunny[/TOOL_RESULTS]\
It is 18°C and sunny in Paris.</s>\
[AVAILABLE_TOOLS][{QWEN_TOOL_JSON}][/AVAILABLE_TOOLS]\
[INST]Thanks! And in Lyon?[/INST]"
    );
    assert_eq!(prompt, expected);

    let no_system = [json!({"role": "user", "content": "Hi"})];
    let prompt = mistral_small().render(&no_system, None, true).unwrap();
    assert!(
        prompt.contains("The current date is 2024-07-26."),
        "{prompt}"
    );
    assert!(prompt.ends_with("[/SYSTEM_PROMPT][INST]Hi[/INST]"));
}

/// The HF-specific environment: `tojson` without HTML escaping and with Python's layout,
/// Python string and dict methods, `raise_exception`, `strftime_now`, whitespace control.
#[test]
fn hugging_face_jinja_behaviour() {
    let source = "{%- for m in messages %}\n    {{- m | tojson }}|{{ m.content | tojson(indent=2) }}|{{ m.content.strip().split(' ')[0] }}|{{ m.content.startswith('  <a') }}\n{%- endfor %}\n{%- for k, v in messages[0].items() %}[{{ k }}={{ v | tojson }}]{% endfor %}\n{{ strftime_now('%Y/%m/%d') }}\n";
    let template = ChatTemplate::new(source, "", "")
        .unwrap()
        .with_fixed_time(FIXED_TIME);
    let messages = [
        json!({"role": "user", "content": "  <a href='x'>&amp; é 中文 😀\n\"q\"</a>  ", "n": [1, 2.5, 1e20, true, null, {}]}),
    ];
    let out = template.render(&messages, None, false).unwrap();
    let expected = concat!(
        r#"{"role": "user", "content": "  <a href='x'>&amp; é 中文 😀\n\"q\"</a>  ", "n": [1, 2.5, 1e+20, true, null, {}]}"#,
        // A boolean prints as Python prints it.
        r#"|"  <a href='x'>&amp; é 中文 😀\n\"q\"</a>  "|<a|True"#,
        r#"[role="user"][content="  <a href='x'>&amp; é 中文 😀\n\"q\"</a>  "][n=[1, 2.5, 1e+20, true, null, {}]]"#,
        // trim_blocks eats the newline after `{% endfor %}`; the final one is dropped.
        "2024/07/26"
    );
    assert_eq!(out, expected);

    let indented = ChatTemplate::new("{{ messages[0] | tojson(indent=2) }}", "", "").unwrap();
    let out = indented
        .render(&[json!({"a": [], "b": {"c": [1, "x"]}})], None, false)
        .unwrap();
    assert_eq!(
        out,
        "{\n  \"a\": [],\n  \"b\": {\n    \"c\": [\n      1,\n      \"x\"\n    ]\n  }\n}"
    );

    let raising =
        ChatTemplate::new("{{ raise_exception('no ' + messages[0].role) }}", "", "").unwrap();
    match raising.render(&[json!({"role": "system"})], None, false) {
        Err(TemplateError::Raised { message }) => assert_eq!(message, "no system"),
        other => panic!("expected Raised, got {other:?}"),
    }
}

#[test]
fn broken_templates_and_messages_are_typed_errors() {
    assert!(matches!(
        ChatTemplate::new("{% for m in messages %}", "", ""),
        Err(TemplateError::Syntax(_))
    ));
    let template = qwen();
    assert!(matches!(
        template.render(&[json!("just a string")], None, true),
        Err(TemplateError::InvalidMessage { index: 0, .. })
    ));
    let unknown = ChatTemplate::new("{{ messages | no_such_filter }}", "", "").unwrap();
    assert!(matches!(
        unknown.render(&[], None, false),
        Err(TemplateError::Render(_))
    ));
}

#[test]
fn arguments_that_are_not_json_stay_a_string() {
    let messages = [
        json!({"role": "user", "content": "x"}),
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "not json {"}}
        ]}),
    ];
    let prompt = qwen().render(&messages, None, false).unwrap();
    assert!(
        prompt.contains("{\"name\": \"f\", \"arguments\": \"not json {\"}"),
        "{prompt}"
    );
}

#[test]
fn text_parts_are_joined_into_one_string() {
    let messages = [json!({"role": "user", "content": [
        {"type": "text", "text": "first"},
        {"type": "text", "text": "second"}
    ]})];
    let prompt = qwen().render(&messages, None, true).unwrap();
    assert!(
        prompt.contains("<|im_start|>user\nfirst\nsecond<|im_end|>"),
        "{prompt}"
    );
}

const CHATML: &str = "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

#[test]
fn generic_templates_get_tools_in_the_system_message() {
    let template = ChatTemplate::new(CHATML, "", "").unwrap();
    assert_eq!(template.family(), ToolFamily::Generic);
    let tools = [weather_tool()];
    let prompt = template
        .render(&weather_conversation("call_abc123"), Some(&tools), true)
        .unwrap();
    let expected = format!(
        "<|im_start|>system\nYou are a helpful assistant.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{QWEN_TOOL_JSON}\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call><|im_end|>\n\
<|im_start|>user\nWhat's the weather in Paris?<|im_end|>\n\
<|im_start|>assistant\n<tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"Paris\"}}}}\n</tool_call><|im_end|>\n\
<|im_start|>user\n<tool_response>\n18°C, sunny\n</tool_response><|im_end|>\n\
<|im_start|>assistant\nIt is 18°C and sunny in Paris.<|im_end|>\n\
<|im_start|>user\nThanks! And in Lyon?<|im_end|>\n\
<|im_start|>assistant\n"
    );
    assert_eq!(prompt, expected);

    // No system message: one is added.
    let prompt = template
        .render(
            &[json!({"role": "user", "content": "Hi"})],
            Some(&tools),
            false,
        )
        .unwrap();
    assert!(
        prompt.starts_with("<|im_start|>system\n# Tools\n"),
        "{prompt}"
    );
    assert!(prompt.ends_with("</tool_call><|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"));
}

#[test]
fn generic_templates_without_a_system_role_get_it_in_the_first_user_turn() {
    // Shaped like Gemma 2's template, which raises on a system message.
    let gemma_like = "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %}";
    let template = ChatTemplate::new(gemma_like, "<bos>", "<eos>").unwrap();
    assert_eq!(template.family(), ToolFamily::Generic);
    let prompt = template
        .render(
            &weather_conversation("call_abc123"),
            Some(&[weather_tool()]),
            true,
        )
        .unwrap();
    assert!(
        prompt.starts_with("<bos><start_of_turn>user\nYou are a helpful assistant.\n\n# Tools\n"),
        "{prompt}"
    );
    assert!(prompt.contains("\n\nWhat's the weather in Paris?<end_of_turn>\n<start_of_turn>model\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><end_of_turn>\n<start_of_turn>user\n<tool_response>\n18°C, sunny\n</tool_response><end_of_turn>\n"), "{prompt}");
    assert!(prompt.ends_with("<start_of_turn>model\n"));
}

#[test]
fn the_rendered_tools_value_is_the_callers_list() {
    // `tools` reaches the template as given (a list of OpenAI tool objects), and is `none`
    // when absent, as transformers passes it. (The comment makes it a Hermes template, since
    // a Generic one describes tools itself and passes none.)
    let probe = ChatTemplate::new(
        "{# <tool_call> #}{{ tools is none }}|{% if tools %}{{ tools | length }}:{{ tools[0].function.name }}{% endif %}",
        "",
        "",
    )
    .unwrap();
    assert_eq!(probe.render(&[], None, false).unwrap(), "True|");
    let tools: Vec<Value> = vec![weather_tool(), time_tool()];
    assert_eq!(
        probe.render(&[], Some(&tools), false).unwrap(),
        "False|2:get_weather"
    );
}
