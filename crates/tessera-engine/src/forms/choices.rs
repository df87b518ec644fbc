//! Choices: single-select (`enum`, `oneOf` of `{const, title}`) and multi-select fields.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::schema::Checker;
use super::{ChoiceOption, FieldKind};

impl Checker {
    pub(super) fn multi(&mut self, path: &str, obj: &Map<String, Value>) -> Option<FieldKind> {
        let at = |key: &str| format!("{path}.{key}");
        let min_items = self.count(&at("minItems"), obj.get("minItems"));
        let max_items = self.count(&at("maxItems"), obj.get("maxItems"));
        let (lo, hi) = (min_items.map(|n| n as f64), max_items.map(|n| n as f64));
        self.ordered(&at("minItems"), lo, "maxItems", hi);
        let items_path = at("items");
        let Some(items) = obj.get("items").and_then(Value::as_object) else {
            let m = "is required: an object with the choices in `enum` or `anyOf`";
            self.issue(&items_path, m);
            return None;
        };
        let item_at = |key: &str| format!("{items_path}.{key}");
        match items.get("type") {
            Some(Value::String(t)) if t == "object" => {
                let m = "a list of objects is not allowed: a multi-select lists choices";
                self.issue(&item_at("type"), m);
                return None;
            }
            Some(t) if t != "string" => self.issue(&item_at("type"), "must be \"string\""),
            _ => {}
        }
        for key in items.keys() {
            let known = ["type", "enum", "enumNames", "anyOf"].contains(&key.as_str());
            if !known && !key.starts_with("x-") {
                self.unknown(&item_at(key), key, "type, enum, anyOf");
            }
        }
        let options = match (items.get("enum"), items.get("anyOf")) {
            (Some(e), None) => self.plain_choices(&items_path, e, items.get("enumNames"))?,
            (None, Some(a)) => self.titled_choices(&item_at("anyOf"), a)?,
            (Some(_), Some(_)) => {
                self.issue(&items_path, "use either `enum` or `anyOf`, not both");
                return None;
            }
            (None, None) => {
                let m = "must list the choices with `enum` or `anyOf` of {const, title}";
                self.issue(&items_path, m);
                return None;
            }
        };
        if let Some(n) = min_items {
            if n as usize > options.len() {
                let m = format!("asks for more choices than the {} there are", options.len());
                self.issue(&at("minItems"), m);
            }
        }
        Some(FieldKind::MultiChoice {
            options,
            min_items,
            max_items,
        })
    }

    /// `enum` (with MCP's legacy `enumNames` as titles).
    pub(super) fn plain_choices(
        &mut self,
        path: &str,
        list: &Value,
        names: Option<&Value>,
    ) -> Option<Vec<ChoiceOption>> {
        let enum_path = format!("{path}.enum");
        let mut options = self.choice_list(&enum_path, list, |v| {
            let value = v.as_str()?.to_owned();
            Some(ChoiceOption { value, title: None })
        })?;
        if let Some(names) = names {
            match names.as_array() {
                Some(n) if n.len() == options.len() && n.iter().all(Value::is_string) => {
                    for (option, title) in options.iter_mut().zip(n) {
                        option.title = title.as_str().map(str::to_owned);
                    }
                }
                _ => self.issue(
                    &format!("{path}.enumNames"),
                    "must list one title (a string) per choice",
                ),
            }
        }
        Some(options)
    }

    /// `oneOf` / `anyOf` of `{const, title}`.
    pub(super) fn titled_choices(&mut self, path: &str, list: &Value) -> Option<Vec<ChoiceOption>> {
        let mut bad = Vec::new();
        let items = list.as_array().map(Vec::as_slice).unwrap_or_default();
        for (i, item) in items.iter().enumerate() {
            let ok = item.as_object().is_some_and(|o| {
                o.get("const").is_some_and(Value::is_string)
                    && o.get("title").is_none_or(Value::is_string)
                    && o.keys().all(|k| k == "const" || k == "title")
            });
            if !ok {
                bad.push(i);
            }
        }
        for i in &bad {
            let m = "must be {\"const\": \"value\", \"title\": \"shown text\"}";
            self.issue(&format!("{path}[{i}]"), m);
        }
        let options = self.choice_list(path, list, |v| {
            let o = v.as_object()?;
            let value = o.get("const")?.as_str()?.to_owned();
            let title = o.get("title").and_then(Value::as_str).map(str::to_owned);
            Some(ChoiceOption { value, title })
        })?;
        bad.is_empty().then_some(options)
    }

    /// A non-empty list of choices with distinct values.
    fn choice_list(
        &mut self,
        path: &str,
        list: &Value,
        parse: impl Fn(&Value) -> Option<ChoiceOption>,
    ) -> Option<Vec<ChoiceOption>> {
        let Some(items) = list.as_array().filter(|a| !a.is_empty()) else {
            self.issue(path, "must be a non-empty list of choices");
            return None;
        };
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match parse(item) {
                Some(v) => {
                    if !seen.insert(v.value.clone()) {
                        self.issue(&format!("{path}[{i}]"), "repeats an earlier choice");
                        ok = false;
                    }
                    out.push(v);
                }
                None => ok = false,
            }
        }
        if out.len() != items.len() && path.ends_with(".enum") {
            self.issue(path, "choices must be strings");
        }
        ok.then_some(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::{json, Value};

    use crate::forms::check_form_schema;

    fn issues(field: Value) -> Vec<String> {
        check_form_schema(&json!({"type": "object", "properties": {"f": field}}))
            .expect_err("refused")
            .into_iter()
            .map(|i| i.to_string())
            .collect()
    }

    #[test]
    fn enum_names_need_one_title_per_choice() {
        let i = issues(json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}));
        assert_eq!(
            i,
            ["properties.f.enumNames: must list one title (a string) per choice"]
        );
    }

    #[test]
    fn enum_choices_are_strings() {
        let i = issues(json!({"type": "string", "enum": ["a", 2]}));
        assert_eq!(i, ["properties.f.enum: choices must be strings"]);
    }

    #[test]
    fn titled_choices_have_only_const_and_title() {
        let i = issues(json!({"type": "array",
            "items": {"anyOf": [{"const": "a", "title": "A", "extra": 1}]}}));
        assert_eq!(i.len(), 1, "{i:?}");
        assert!(i[0].starts_with("properties.f.items.anyOf[0]: must be {"));
    }

    #[test]
    fn items_are_string_choices() {
        let i = issues(json!({"type": "array", "items": {"type": "number", "enum": ["1"]}}));
        assert_eq!(i, ["properties.f.items.type: must be \"string\""]);
        let i = issues(json!({"type": "array", "items": {"enum": ["a"], "anyOf": []}}));
        assert_eq!(
            i,
            ["properties.f.items: use either `enum` or `anyOf`, not both"]
        );
        let i = issues(json!({"type": "array"}));
        assert!(i[0].starts_with("properties.f.items: is required"));
        let i = issues(json!({"type": "array", "uniqueItems": false, "items": {"enum": ["a"]}}));
        assert_eq!(
            i,
            ["properties.f.uniqueItems: may only be true: each choice is picked once"]
        );
    }
}
