//! Duplicate keys in a JSON object. RFC 8259 says the names within an object SHOULD be unique
//! and leaves the meaning of a repeated one to the reader (serde_json keeps the last): a body
//! that says two things at once is refused instead of read one way here and another elsewhere.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserializer;

/// The path (`a.b[2].c`) of the first key written twice in one object of `json`, if any;
/// `Err` when `json` is not JSON.
pub fn first_duplicate_key(json: &[u8]) -> Result<Option<String>, serde_json::Error> {
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(json);
    Check {
        path: String::new(),
        found: &found,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(found.into_inner())
}

struct Check<'a> {
    path: String,
    found: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Check<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Check<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while seq
            .next_element_seed(Check {
                path: format!("{}[{i}]", self.path),
                found: self.found,
            })?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if !keys.insert(key) && self.found.borrow().is_none() {
                *self.found.borrow_mut() = Some(path.clone());
            }
            map.next_value_seed(Check {
                path,
                found: self.found,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::first_duplicate_key;

    #[test]
    fn the_first_key_written_twice_is_named_by_its_path() {
        let check =
            |text: &str| first_duplicate_key(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(check(r#"{"a": 1, "b": {"c": [1, {"d": 1}]}}"#), None);
        assert_eq!(check(r#"{"a": 1, "a": 2}"#).as_deref(), Some("a"));
        assert_eq!(
            check(r#"{"content": {"calls": [{"x": 1}, {"name": "a", "name": "b"}]}}"#).as_deref(),
            Some("content.calls[1].name")
        );
        // The same key in two objects is no duplicate.
        assert_eq!(check(r#"[{"a": 1}, {"a": 2}]"#), None);
        assert!(first_duplicate_key(b"{\"a\": ").is_err());
        // Deep nesting stops at serde_json's recursion limit with an error, not a crash.
        let deep = "[".repeat(100_000);
        assert!(first_duplicate_key(deep.as_bytes()).is_err());
    }
}
