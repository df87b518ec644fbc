//! `tessera chat --ask`: the forms and consent requests of a turn, asked on the terminal. The
//! questions go to standard error (standard output keeps the answer, or the events); the
//! answers are read a line at a time from standard input, so a script can answer too.
//!
//! A form is asked field by field. Each field's line ends with its kind in brackets
//! (`  Email [email, required]`), choices are numbered below it, and the answer is typed after
//! `> `. An empty line leaves an optional field out; `/decline` or `/cancel` answers the whole
//! form so. Values the form refuses are named and only those fields are asked again. The end
//! of input cancels the form and denies a consent.

use std::io::{BufRead, Write};

use serde_json::{Map, Number, Value};
use tessera_app::{Interaction, InteractionKind};
use tessera_engine::forms::{check_form_schema, ChoiceOption, FieldKind, FormField, TextFormat};
use tessera_engine::interactions::{Answer, AnswerError};
use tessera_protocol::easyflow::{ConsentDecision, FormAction};

/// Where the questions go and the answers come from.
pub struct Terminal<R, W> {
    pub input: R,
    pub output: W,
}

/// What a form's field-by-field answer came to.
enum Typed {
    Value(Value),
    Skip,
    Whole(FormAction),
}

impl<R: BufRead, W: Write> Terminal<R, W> {
    /// One line of input without its line ending; None at the end of input.
    fn line(&mut self) -> std::io::Result<Option<String>> {
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        Ok(Some(line.trim_end_matches(['\n', '\r']).to_owned()))
    }

    fn say(&mut self, text: &str) -> std::io::Result<()> {
        writeln!(self.output, "{text}")
    }

    fn prompt(&mut self) -> std::io::Result<Option<String>> {
        write!(self.output, "> ")?;
        self.output.flush()?;
        self.line()
    }

    /// Asks `interaction`, and hands each answer to `answer` until one is taken.
    pub fn ask(
        &mut self,
        interaction: &Interaction,
        mut answer: impl FnMut(&Answer) -> Result<(), AnswerError>,
    ) -> anyhow::Result<()> {
        match interaction.kind {
            InteractionKind::Consent => {
                let decision = self.consent(&interaction.request)?;
                answer(&Answer::Consent { decision })?;
                Ok(())
            }
            InteractionKind::Form => self.form(&interaction.request, answer),
        }
    }

    fn consent(&mut self, request: &Value) -> std::io::Result<ConsentDecision> {
        let tool = shown(request.get("tool").and_then(Value::as_str).unwrap_or("?"));
        // JSON escapes the arguments' control characters; direction overrides are left.
        let arguments = request.get("arguments").cloned().unwrap_or(Value::Null);
        let arguments = shown(&arguments.to_string());
        self.say(&format!(
            "The assistant wants to run the tool {tool} with {arguments}."
        ))?;
        if let Some(touches) = request.get("touches").and_then(Value::as_array) {
            let touches: Vec<String> = touches
                .iter()
                .filter_map(Value::as_str)
                .map(shown)
                .collect();
            self.say(&format!("It touches: {}.", touches.join(", ")))?;
        }
        loop {
            self.say("Allow it? [o]nce, for this [c]onversation, [a]lways, or [n]o (the default)")?;
            let Some(line) = self.prompt()? else {
                return Ok(ConsentDecision::Deny);
            };
            match line.trim().to_lowercase().as_str() {
                "o" | "once" | "y" | "yes" => return Ok(ConsentDecision::AllowOnce),
                "c" | "conversation" => return Ok(ConsentDecision::AllowConversation),
                "a" | "always" => return Ok(ConsentDecision::AllowAlways),
                "" | "n" | "no" => return Ok(ConsentDecision::Deny),
                other => self.say(&format!("`{other}` is not one of o, c, a or n."))?,
            }
        }
    }

    fn form(
        &mut self,
        request: &Value,
        mut answer: impl FnMut(&Answer) -> Result<(), AnswerError>,
    ) -> anyhow::Result<()> {
        let title = request.get("title").and_then(Value::as_str).unwrap_or("");
        let schema = request.get("schema").cloned().unwrap_or(Value::Null);
        // The engine checked it when the model asked; a schema it refuses now cannot be shown.
        let schema = check_form_schema(&schema)
            .map_err(|issues| anyhow::anyhow!("the form cannot be shown: {}", issues[0]))?;
        self.say(&format!(
            "The assistant asks you to fill in a form: {}",
            shown(title)
        ))?;
        if let Some(description) = request.get("description").and_then(Value::as_str) {
            self.say(&shown(description))?;
        }
        self.say("(An empty line leaves an optional field out; /decline or /cancel answers the whole form.)")?;
        let mut values = Map::new();
        let mut ask: Vec<&FormField> = schema.fields.iter().collect();
        loop {
            for field in ask {
                match self.field(field)? {
                    Typed::Value(value) => {
                        values.insert(field.name.clone(), value);
                    }
                    Typed::Skip => {
                        values.remove(&field.name);
                    }
                    Typed::Whole(action) => {
                        answer(&Answer::Form {
                            action,
                            values: None,
                        })?;
                        return Ok(());
                    }
                }
            }
            let accepted = Answer::Form {
                action: FormAction::Accept,
                values: Some(Value::Object(values.clone())),
            };
            match answer(&accepted) {
                Ok(()) => return Ok(()),
                Err(AnswerError::FieldErrors(errors)) => {
                    let mut again = Vec::new();
                    for error in &errors {
                        let field = schema.fields.iter().find(|f| f.name == error.field);
                        let label = field.map_or_else(|| shown(&error.field), label);
                        self.say(&format!("{label}: {}", shown(&error.message)))?;
                        again.extend(field);
                    }
                    if again.is_empty() {
                        again = schema.fields.iter().collect();
                    }
                    ask = again;
                }
                Err(other) => return Err(other.into()),
            }
        }
    }

    /// Asks one field until what is typed reads as its kind.
    fn field(&mut self, field: &FormField) -> std::io::Result<Typed> {
        let required = if field.required { ", required" } else { "" };
        self.say(&format!(
            "  {} [{}{required}]",
            label(field),
            kind_name(&field.kind)
        ))?;
        if let Some(help) = &field.description {
            self.say(&format!("  {}", shown(help)))?;
        }
        if let FieldKind::Choice { options } | FieldKind::MultiChoice { options, .. } = &field.kind
        {
            for (i, option) in options.iter().enumerate() {
                self.say(&format!("    {}. {}", i + 1, option_label(option)))?;
            }
        }
        loop {
            let Some(line) = self.prompt()? else {
                return Ok(Typed::Whole(FormAction::Cancel));
            };
            let text = line.trim();
            match text {
                "/decline" => return Ok(Typed::Whole(FormAction::Decline)),
                "/cancel" => return Ok(Typed::Whole(FormAction::Cancel)),
                "" => return Ok(Typed::Skip),
                _ => {}
            }
            match read_value(&field.kind, text) {
                Ok(value) => return Ok(Typed::Value(value)),
                Err(why) => self.say(&format!("  {}", shown(&why)))?,
            }
        }
    }
}

/// `text` as the terminal may show it: the model and tool servers write these words, so a
/// control character (an escape sequence could rewrite the screen or the terminal's title),
/// a line break (a line that seems to be another field's) or a direction override (words that
/// read backwards) is shown as its code, never obeyed.
pub fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}'
        );
        if c.is_control() || bidi {
            out.push_str(&format!("\\u{{{:04x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn label(field: &FormField) -> String {
    shown(field.title.as_deref().unwrap_or(&field.name))
}

fn option_label(option: &ChoiceOption) -> String {
    shown(option.title.as_deref().unwrap_or(&option.value))
}

/// The kind as the field's line names it.
fn kind_name(kind: &FieldKind) -> &'static str {
    match kind {
        FieldKind::Text { format: None, .. } => "text",
        FieldKind::Text {
            format: Some(format),
            ..
        } => match format {
            TextFormat::Email => "email",
            TextFormat::Uri => "url",
            TextFormat::Date => "date YYYY-MM-DD",
            TextFormat::DateTime => "date-time YYYY-MM-DDThh:mm:ssZ",
        },
        FieldKind::Number { integer: true, .. } => "whole number",
        FieldKind::Number { integer: false, .. } => "number",
        FieldKind::Boolean => "yes/no",
        FieldKind::Choice { .. } => "one choice: its number",
        FieldKind::MultiChoice { .. } => "choices: numbers, comma-separated",
    }
}

/// What `text` is as a value of `kind`, or why it is not one.
fn read_value(kind: &FieldKind, text: &str) -> Result<Value, String> {
    match kind {
        FieldKind::Text { .. } => Ok(Value::String(text.to_owned())),
        FieldKind::Number { integer, .. } => {
            let number = if *integer {
                text.parse::<i64>().ok().map(Number::from)
            } else {
                text.parse::<f64>().ok().and_then(Number::from_f64)
            };
            number.map(Value::Number).ok_or_else(|| {
                let what = if *integer {
                    "a whole number"
                } else {
                    "a number"
                };
                format!("`{text}` is not {what}")
            })
        }
        FieldKind::Boolean => match text.to_lowercase().as_str() {
            "y" | "yes" | "true" | "是" => Ok(Value::Bool(true)),
            "n" | "no" | "false" | "否" => Ok(Value::Bool(false)),
            _ => Err(format!("`{text}`: answer yes or no")),
        },
        FieldKind::Choice { options } => pick(options, text).map(Value::String),
        FieldKind::MultiChoice { options, .. } => text
            .split(',')
            .map(|part| pick(options, part.trim()).map(Value::String))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
    }
}

/// The choice `text` names, by its number or its words.
fn pick(options: &[ChoiceOption], text: &str) -> Result<String, String> {
    if let Ok(n) = text.parse::<usize>() {
        if let Some(option) = n.checked_sub(1).and_then(|i| options.get(i)) {
            return Ok(option.value.clone());
        }
    }
    options
        .iter()
        .find(|o| o.value == text || o.title.as_deref() == Some(text))
        .map(|o| o.value.clone())
        .ok_or_else(|| format!("`{text}` is not one of the choices 1–{}", options.len()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    fn form_interaction(schema: Value) -> Interaction {
        Interaction {
            interaction_id: "f1".into(),
            conversation_id: "c1".into(),
            run_id: Some("r1".into()),
            kind: InteractionKind::Form,
            state: tessera_app::InteractionState::Pending,
            request: json!({"form_id": "f1", "title": "Trip", "schema": schema}),
            answer: None,
            created_at: tessera_protocol::wire::Timestamp("2026-11-27T00:00:00Z".into()),
            updated_at: tessera_protocol::wire::Timestamp("2026-11-27T00:00:00Z".into()),
        }
    }

    fn asked(input: &str, schema: Value, refuse_first: bool) -> (Vec<Answer>, String) {
        let mut terminal = Terminal {
            input: input.as_bytes(),
            output: Vec::new(),
        };
        let mut answers = Vec::new();
        terminal
            .ask(&form_interaction(schema), |a| {
                answers.push(a.clone());
                if refuse_first && answers.len() == 1 {
                    return Err(AnswerError::FieldErrors(vec![
                        tessera_engine::forms::FieldError {
                            field: "nights".into(),
                            message: "must be at least 1".into(),
                        },
                    ]));
                }
                Ok(())
            })
            .unwrap();
        (answers, String::from_utf8(terminal.output).unwrap())
    }

    fn trip() -> Value {
        json!({"type": "object", "required": ["nights"], "properties": {
            "nights": {"type": "integer", "title": "Nights"},
            "room": {"type": "string", "enum": ["single", "double"]},
            "pets": {"type": "boolean"},
            "note": {"type": "string"}
        }})
    }

    #[test]
    fn each_field_is_asked_and_typed_as_its_kind() {
        let (answers, shown) = asked("two\n2\n2\nyes\n\n", trip(), false);
        assert_eq!(
            answers,
            [Answer::Form {
                action: FormAction::Accept,
                values: Some(json!({"nights": 2, "room": "double", "pets": true}))
            }]
        );
        assert!(
            shown.contains("  Nights [whole number, required]"),
            "{shown}"
        );
        assert!(shown.contains("`two` is not a whole number"), "{shown}");
        assert!(shown.contains("    2. double"), "{shown}");
    }

    #[test]
    fn a_refused_value_is_named_and_only_its_field_asked_again() {
        let (answers, shown) = asked("0\n1\nn\nhi\n3\n", trip(), true);
        assert_eq!(answers.len(), 2);
        assert!(shown.contains("Nights: must be at least 1"), "{shown}");
        assert_eq!(
            answers[1],
            Answer::Form {
                action: FormAction::Accept,
                values: Some(json!({"nights": 3, "room": "single", "pets": false, "note": "hi"}))
            }
        );
    }

    #[test]
    fn decline_and_the_end_of_input_answer_the_whole_form() {
        let (answers, _) = asked("/decline\n", trip(), false);
        assert_eq!(
            answers,
            [Answer::Form {
                action: FormAction::Decline,
                values: None
            }]
        );
        let (answers, _) = asked("", trip(), false);
        assert_eq!(
            answers,
            [Answer::Form {
                action: FormAction::Cancel,
                values: None
            }]
        );
    }

    #[test]
    fn a_consent_is_asked_with_the_call_and_no_answer_denies() {
        let mut interaction = form_interaction(Value::Null);
        interaction.kind = InteractionKind::Consent;
        interaction.request = json!({"tool": "write_file", "arguments": {"path": "a"},
                                     "touches": ["writes files"]});
        for (typed, wanted) in [
            ("o\n", ConsentDecision::AllowOnce),
            ("maybe\nc\n", ConsentDecision::AllowConversation),
            ("\n", ConsentDecision::Deny),
            ("", ConsentDecision::Deny),
        ] {
            let mut terminal = Terminal {
                input: typed.as_bytes(),
                output: Vec::new(),
            };
            let mut got = None;
            terminal
                .ask(&interaction, |a| {
                    got = Some(a.clone());
                    Ok(())
                })
                .unwrap();
            assert_eq!(got, Some(Answer::Consent { decision: wanted }));
            let shown = String::from_utf8(terminal.output).unwrap();
            assert!(shown.contains(r#"write_file with {"path":"a"}"#), "{shown}");
        }
    }

    #[test]
    fn what_the_model_wrote_cannot_drive_the_terminal() {
        let mut interaction = form_interaction(json!({"type": "object", "properties": {
            "a": {"type": "string", "title": "Name\u{1b}]0;pwned\u{7}\n  Fake [yes/no]",
                  "description": "help\u{202e}evil"}}}));
        interaction.request["title"] = json!("Trip\u{1b}[2J");
        let mut terminal = Terminal {
            input: "x\n".as_bytes(),
            output: Vec::new(),
        };
        terminal.ask(&interaction, |_| Ok(())).unwrap();
        let out = String::from_utf8(terminal.output).unwrap();
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains('\u{202e}'));
        assert!(out.contains("Trip\\u{001b}[2J"), "{out}");
        assert!(
            out.contains("  Name\\u{001b}]0;pwned\\u{0007}\\u{000a}  Fake [yes/no] [text]\n"),
            "one line per field: {out}"
        );
        assert!(out.contains("help\\u{202e}evil"), "{out}");
    }
}
