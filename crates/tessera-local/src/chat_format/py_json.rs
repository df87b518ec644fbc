//! The `tojson` filter as Hugging Face defines it for chat templates.
//!
//! Jinja's own `tojson` (and minijinja's) HTML-escapes `<`, `>`, `&` and `'` and writes
//! compact separators. Transformers overrides it with plain `json.dumps(x,
//! ensure_ascii=False, indent=…, separators=…, sort_keys=…)`, and models were trained on that
//! exact text: `{"a": 1, "b": [1, 2]}` with a space after `,` and `:`, non-ASCII kept as is,
//! and `indent=4` laid out like Python. This module reproduces that byte for byte.

use minijinja::value::{Kwargs, ValueKind};
use minijinja::{Error, ErrorKind, Value};

/// Templates only ever serialise tools and arguments; this bounds recursion on anything a
/// template builds itself.
const MAX_DEPTH: usize = 256;

struct Style {
    indent: Option<String>,
    item_separator: String,
    key_separator: String,
    ensure_ascii: bool,
    sort_keys: bool,
}

/// `value | tojson`, `value | tojson(4)`, `value | tojson(indent=2, sort_keys=true)`.
pub(crate) fn tojson_filter(
    value: &Value,
    indent: Option<Value>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let indent = match kwargs.get::<Option<Value>>("indent")? {
        Some(kw) => Some(kw),
        None => indent,
    };
    let indent = match indent {
        None => None,
        Some(v) if v.is_none() || v.is_undefined() => None,
        Some(v) => match v.as_str() {
            Some(s) => Some(s.to_owned()),
            None => {
                let width = v.as_usize().ok_or_else(|| {
                    Error::new(
                        ErrorKind::InvalidOperation,
                        "tojson indent must be a number",
                    )
                })?;
                Some(" ".repeat(width.min(64)))
            }
        },
    };
    // Python picks `,` without a trailing space when indenting, since the newline separates.
    let (mut item_separator, mut key_separator) = match indent {
        Some(_) => (",".to_owned(), ": ".to_owned()),
        None => (", ".to_owned(), ": ".to_owned()),
    };
    if let Some(separators) = kwargs.get::<Option<Value>>("separators")? {
        if !separators.is_none() {
            let item = separators.get_item_by_index(0)?;
            let key = separators.get_item_by_index(1)?;
            match (item.as_str(), key.as_str()) {
                (Some(i), Some(k)) => {
                    item_separator = i.to_owned();
                    key_separator = k.to_owned();
                }
                _ => {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        "tojson separators must be two strings",
                    ))
                }
            }
        }
    }
    let style = Style {
        indent,
        item_separator,
        key_separator,
        ensure_ascii: kwargs.get::<Option<bool>>("ensure_ascii")?.unwrap_or(false),
        sort_keys: kwargs.get::<Option<bool>>("sort_keys")?.unwrap_or(false),
    };
    kwargs.assert_all_used()?;
    let mut out = String::new();
    write_value(&mut out, value, &style, 0)?;
    Ok(Value::from_safe_string(out))
}

/// Python's `json.dumps(value, ensure_ascii=False)` with default separators.
pub(crate) fn dumps(value: &Value) -> Result<String, Error> {
    let style = Style {
        indent: None,
        item_separator: ", ".to_owned(),
        key_separator: ": ".to_owned(),
        ensure_ascii: false,
        sort_keys: false,
    };
    let mut out = String::new();
    write_value(&mut out, value, &style, 0)?;
    Ok(out)
}

fn write_value(out: &mut String, value: &Value, style: &Style, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "tojson: value nested too deeply",
        ));
    }
    match value.kind() {
        ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number => write_number(out, value)?,
        ValueKind::String => write_string(out, value.as_str().unwrap_or_default(), style),
        ValueKind::Seq | ValueKind::Iterable => {
            let items: Vec<Value> = value.try_iter()?.collect();
            write_container(out, style, depth, '[', ']', items.len(), |out, i| {
                write_value(out, &items[i], style, depth + 1)
            })?;
        }
        ValueKind::Map => {
            let mut keys: Vec<Value> = value.try_iter()?.collect();
            if style.sort_keys {
                keys.sort();
            }
            write_container(out, style, depth, '{', '}', keys.len(), |out, i| {
                let key = &keys[i];
                write_string(out, &key_text(key), style);
                out.push_str(&style.key_separator);
                write_value(out, &value.get_item(key)?, style, depth + 1)
            })?;
        }
        // Python raises on `json.dumps(Undefined)`; failing here keeps the two in step.
        kind => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("tojson cannot serialise a value of kind {kind}"),
            ))
        }
    }
    Ok(())
}

fn write_container(
    out: &mut String,
    style: &Style,
    depth: usize,
    open: char,
    close: char,
    len: usize,
    mut write_item: impl FnMut(&mut String, usize) -> Result<(), Error>,
) -> Result<(), Error> {
    out.push(open);
    if len == 0 {
        out.push(close);
        return Ok(());
    }
    for i in 0..len {
        if i > 0 {
            out.push_str(&style.item_separator);
        }
        if let Some(indent) = &style.indent {
            out.push('\n');
            out.push_str(&indent.repeat(depth + 1));
        }
        write_item(out, i)?;
    }
    if let Some(indent) = &style.indent {
        out.push('\n');
        out.push_str(&indent.repeat(depth));
    }
    out.push(close);
    Ok(())
}

/// Python turns non-string keys into their JSON text (`1` → `"1"`, `True` → `"true"`).
fn key_text(key: &Value) -> String {
    match key.kind() {
        ValueKind::String => key.as_str().unwrap_or_default().to_owned(),
        ValueKind::None => "null".to_owned(),
        ValueKind::Bool => (if key.is_true() { "true" } else { "false" }).to_owned(),
        _ => key.to_string(),
    }
}

fn write_number(out: &mut String, value: &Value) -> Result<(), Error> {
    if value.is_integer() {
        out.push_str(&value.to_string());
        return Ok(());
    }
    let float = f64::try_from(value.clone())?;
    out.push_str(&python_float_repr(float));
    Ok(())
}

/// Python's `repr(float)`: shortest round-trip digits, a `.0` on whole numbers, and
/// exponent notation (`1e+16`, `1e-05`) outside `1e-4 <= |x| < 1e16`.
pub(crate) fn python_float_repr(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        }
        .to_owned();
    }
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..16).contains(&exponent) {
        let plain = format!("{value}");
        if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        }
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
    }
}

/// Python's string escaping: `"`, `\`, the named control escapes, `\u00XX` for the other
/// control characters, and (only with `ensure_ascii`) `\uXXXX` surrogate pairs above ASCII.
fn write_string(out: &mut String, text: &str, style: &Style) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if style.ensure_ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
