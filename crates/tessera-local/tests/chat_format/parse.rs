//! Recorded outputs of each family parsed whole, in pieces, and split at every point.

use tessera_local::chat_format::{ParseError, Parsed, ToolCallParser, ToolFamily};

use crate::{call, call_with_id, normalise, parse_byte_pieces, parse_pieces, parse_whole, text};

const PARIS: &str = r#"{"city":"Paris"}"#;
const LYON: &str = r#"{"city":"Lyon"}"#;

/// (family, model output, what it must parse to). Outputs are shaped as each family writes
/// them; the Qwen ones follow Qwen 2.5 / Qwen3, the Mistral ones Nemo and Small 3.2.
fn recorded() -> Vec<(ToolFamily, &'static str, Vec<Parsed>)> {
    use ToolFamily::{Generic, Hermes, Llama3, Mistral};
    vec![
        // Hermes / Qwen
        (Hermes, "The weather in Paris is 18°C. 中文 😀 done.", vec![text("The weather in Paris is 18°C. 中文 😀 done.")]),
        (Hermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", vec![call(0, "get_weather", PARIS)]),
        (Hermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}}\n</tool_call>", vec![call(0, "get_weather", PARIS), call(1, "get_weather", LYON)]),
        (Hermes, "Let me check the weather for you 😀.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", vec![text("Let me check the weather for you 😀."), call(0, "get_weather", PARIS)]),
        (Hermes, "<think>\nThe user wants the weather in 巴黎.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", vec![text("<think>\nThe user wants the weather in 巴黎.\n</think>"), call(0, "get_weather", PARIS)]),
        (Hermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\nI asked for the weather.", vec![call(0, "get_weather", PARIS), text("\nI asked for the weather.")]),
        // Arguments written as a JSON string, as on the OpenAI wire.
        (Hermes, "<tool_call>{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}</tool_call>", vec![call(0, "get_weather", PARIS)]),
        // A tool with no parameters.
        (Hermes, "<tool_call>\n{\"name\": \"list_files\"}\n</tool_call>", vec![call(0, "list_files", "{}")]),
        // Malformed JSON inside a complete marker: kept as text.
        (Hermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}\n</tool_call>", vec![text("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}\n</tool_call>")]),
        (Hermes, "<tool_call>\n{\"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", vec![text("<tool_call>\n{\"arguments\": {\"city\": \"Paris\"}}\n</tool_call>")]),
        (Hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": [1, 2]}\n</tool_call> ok", vec![text("<tool_call>\n{\"name\": \"f\", \"arguments\": [1, 2]}\n</tool_call> ok")]),
        // Marker-like strings in prose.
        (Hermes, "You can use <tool_call> tags to call tools, and </tool_call> to close them.", vec![text("You can use <tool_call> tags to call tools, and </tool_call> to close them.")]),
        (Hermes, "Write <tool_call>{\"name\": \"x\"} then text</tool_call>.", vec![text("Write <tool_call>{\"name\": \"x\"} then text</tool_call>.")]),
        (Hermes, "a < b and <tool is not a tag <tool_cal", vec![text("a < b and <tool is not a tag <tool_cal")]),
        // The closing tag swallowed by a stop word: the complete JSON still counts.
        (Hermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n", vec![call(0, "get_weather", PARIS)]),
        // Generic templates use the same envelope.
        (Generic, "Sure.\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}}\n</tool_call>", vec![text("Sure."), call(0, "get_weather", LYON)]),
        // Llama 3.x
        (Llama3, "It is 18°C and sunny in Paris. 😀", vec![text("It is 18°C and sunny in Paris. 😀")]),
        (Llama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", vec![call(0, "get_weather", PARIS)]),
        (Llama3, "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", vec![call(0, "get_weather", PARIS)]),
        (Llama3, "\n\n{\"type\": \"function\", \"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", vec![call(0, "get_weather", PARIS)]),
        (Llama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}; {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Lyon\"}}", vec![call(0, "get_weather", PARIS), call(1, "get_weather", LYON)]),
        (Llama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Lyon\"}}\n", vec![call(0, "get_weather", PARIS), call(1, "get_weather", LYON)]),
        (Llama3, "Let me look that up.<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", vec![text("Let me look that up."), call(0, "get_weather", PARIS)]),
        // JSON that is not a call, JSON after prose, and braces in prose are all text.
        (Llama3, "{\"answer\": 42}", vec![text("{\"answer\": 42}")]),
        (Llama3, "Sure: {\"name\": \"get_weather\", \"parameters\": {}}", vec![text("Sure: {\"name\": \"get_weather\", \"parameters\": {}}")]),
        (Llama3, "{braces} are used in 中文 code too", vec![text("{braces} are used in 中文 code too")]),
        (Llama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}} and then words", vec![call(0, "get_weather", PARIS), text(" and then words")]),
        // Mistral Nemo
        (Mistral, "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"abc123XYZ\"}]", vec![call_with_id(0, "abc123XYZ", "get_weather", PARIS)]),
        (Mistral, "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}, \"id\": \"q1w2e3r4t\"}]", vec![call(0, "get_weather", PARIS), call_with_id(1, "q1w2e3r4t", "get_weather", LYON)]),
        (Mistral, "Let me check 中文.[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]", vec![text("Let me check 中文."), call(0, "get_weather", PARIS)]),
        (Mistral, " [TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}]", vec![call(0, "get_weather", PARIS)]),
        // Mistral Small 3.2 / Devstral
        (Mistral, "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Lyon\"}", vec![call(0, "get_weather", PARIS), call(1, "get_weather", LYON)]),
        (Mistral, "[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{\"city\": \"Paris\"}", vec![call_with_id(0, "a1b2c3d4e", "get_weather", PARIS)]),
        // Not calls.
        (Mistral, "The [TOOL_CALLS] token starts a call; [TOOL_CALLS][oops] is not one.", vec![text("The [TOOL_CALLS] token starts a call; [TOOL_CALLS][oops] is not one.")]),
        (Mistral, "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"arguments\": {}}]", vec![text("[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"arguments\": {}}]")]),
    ]
}

#[test]
fn recorded_outputs_parse_as_expected() {
    for (family, output, expected) in recorded() {
        assert_eq!(
            parse_whole(family, output),
            Ok(expected),
            "{family:?}: {output:?}"
        );
    }
}

#[test]
fn every_split_point_gives_the_same_result() {
    for (family, output, _) in recorded() {
        let whole = parse_whole(family, output);
        for (i, _) in output.char_indices().skip(1) {
            let split = parse_pieces(family, &[&output[..i], &output[i..]]);
            assert_eq!(split, whole, "{family:?} split at {i}: {output:?}");
        }
        // Byte splits, including inside multi-byte characters (中文, emoji).
        let bytes = output.as_bytes();
        for i in 1..bytes.len() {
            let split = parse_byte_pieces(family, &[&bytes[..i], &bytes[i..]]);
            assert_eq!(split, whole, "{family:?} byte split at {i}: {output:?}");
        }
    }
}

#[test]
fn every_pair_of_split_points_gives_the_same_result() {
    for (family, output, _) in recorded() {
        let whole = parse_whole(family, output);
        let bytes = output.as_bytes();
        for i in 1..bytes.len() {
            for j in i + 1..bytes.len() {
                let split = parse_byte_pieces(family, &[&bytes[..i], &bytes[i..j], &bytes[j..]]);
                assert_eq!(split, whole, "{family:?} splits {i},{j}: {output:?}");
            }
        }
    }
}

#[test]
fn one_character_and_one_byte_at_a_time() {
    for (family, output, expected) in recorded() {
        let chars: Vec<String> = output.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(
            parse_pieces(family, &pieces),
            Ok(expected.clone()),
            "{output:?}"
        );
        let bytes: Vec<&[u8]> = output.as_bytes().chunks(1).collect();
        assert_eq!(
            parse_byte_pieces(family, &bytes),
            Ok(expected),
            "{output:?}"
        );
    }
}

#[test]
fn text_streams_as_it_arrives() {
    let mut parser = ToolCallParser::new(ToolFamily::Hermes);
    assert_eq!(parser.push("Hello wor"), vec![text("Hello wor")]);
    // Trailing whitespace and a possible marker start wait; everything before goes out.
    assert_eq!(
        parser.push("ld. The answer is <tool"),
        vec![text("ld. The answer is")]
    );
    assert_eq!(parser.push("bar> here"), vec![text(" <toolbar> here")]);
    assert_eq!(parser.push(" <"), Vec::<Parsed>::new());
    assert_eq!(
        parser.push("tool_call>\n{\"name\": \"get_weather\", "),
        vec![]
    );
    let done = parser.push("\"arguments\": {\"city\": \"Paris\"}}\n</tool_call>");
    assert_eq!(normalise(done), vec![call(0, "get_weather", PARIS)]);
    assert_eq!(parser.finish(), Ok(vec![]));

    // A Llama answer that does not open with `{` streams at once.
    let mut parser = ToolCallParser::new(ToolFamily::Llama3);
    assert_eq!(parser.push("It"), vec![text("It")]);
    assert_eq!(parser.push(" is sunny"), vec![text(" is sunny")]);
}

#[test]
fn utf8_split_across_byte_pieces_waits_for_its_last_byte() {
    let mut parser = ToolCallParser::new(ToolFamily::Hermes);
    let emoji = "😀".as_bytes();
    assert_eq!(parser.push_bytes(b"ok "), vec![text("ok")]);
    assert_eq!(parser.push_bytes(&emoji[..2]), vec![]);
    assert_eq!(parser.push_bytes(&emoji[2..]), vec![text(" 😀")]);
    // A character cut off at the very end is not silently dropped.
    let mut parser = ToolCallParser::new(ToolFamily::Hermes);
    assert_eq!(parser.push_bytes(&"中".as_bytes()[..2]), vec![]);
    assert_eq!(parser.finish(), Ok(vec![text("\u{FFFD}")]));
    // Invalid bytes become U+FFFD and the rest still streams.
    let mut parser = ToolCallParser::new(ToolFamily::Hermes);
    assert_eq!(parser.push_bytes(b"a\xffb"), vec![text("a\u{FFFD}b")]);
}

#[test]
fn generated_ids_are_distinct() {
    let output = "<tool_call>{\"name\": \"a\"}</tool_call><tool_call>{\"name\": \"b\"}</tool_call>";
    let mut parser = ToolCallParser::new(ToolFamily::Hermes);
    let mut items = parser.push(output);
    items.extend(parser.finish().unwrap());
    let ids: Vec<String> = items
        .into_iter()
        .filter_map(|item| match item {
            Parsed::ToolCall { id, .. } => Some(id),
            Parsed::Text(_) => None,
        })
        .collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
    assert!(ids
        .iter()
        .all(|id| id.starts_with("call_") && id.len() == 29));
}

#[test]
fn unterminated_calls_are_reported_with_their_text() {
    let cases = [
        (
            ToolFamily::Hermes,
            "Checking.\n",
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"ci",
        ),
        (
            ToolFamily::Llama3,
            "",
            "{\"name\": \"get_weather\", \"parameters\": {",
        ),
        (
            ToolFamily::Mistral,
            "",
            "[TOOL_CALLS][{\"name\": \"get_weather\"",
        ),
        (
            ToolFamily::Mistral,
            "",
            "[TOOL_CALLS]get_weather[ARGS]{\"city\": ",
        ),
    ];
    for (family, before, call_text) in cases {
        let output = format!("{before}{call_text}");
        let mut parser = ToolCallParser::new(family);
        let shown = normalise(parser.push(&output));
        let expected_shown = before.trim_end();
        if expected_shown.is_empty() {
            assert_eq!(shown, vec![]);
        } else {
            assert_eq!(shown, vec![text(expected_shown)]);
        }
        let leading_ws = &before[expected_shown.len()..];
        assert_eq!(
            parser.finish(),
            Err(ParseError::UnterminatedToolCall {
                raw: format!("{leading_ws}{call_text}")
            }),
            "{family:?}: {output:?}"
        );
    }
    // A bare marker at the end never started a call: it is text.
    assert_eq!(
        parse_whole(ToolFamily::Hermes, "see <tool_call>"),
        Ok(vec![text("see <tool_call>")])
    );
    assert_eq!(
        parse_whole(ToolFamily::Mistral, "[TOOL_CALLS]get_weather[AR"),
        Ok(vec![text("[TOOL_CALLS]get_weather[AR")])
    );
}
