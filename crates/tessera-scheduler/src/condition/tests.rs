use serde_json::{json, Value};

use super::{Condition, ConditionError};

fn ctx() -> Value {
    json!({
        "dependencies": {
            "inst_1": {
                "status": "COMPLETED",
                "result": {
                    "count": 3,
                    "score": 0.85,
                    "anomaly_detected": true,
                    "label": "high (urgent) AND rising",
                    "tags": ["a", "b"],
                    "items": [{"name": "first"}, {"name": "second"}],
                    "empty": [],
                    "nothing": null,
                    "text": "",
                    "blank": "  \n\t"
                }
            },
            "inst_2": {"status": "FAILED", "error": {"code": "E"}}
        }
    })
}

fn eval(text: &str) -> Result<bool, ConditionError> {
    Ok(Condition::parse(text)?.evaluate(&ctx()))
}

fn check(cases: &[(&str, bool)]) -> Result<(), ConditionError> {
    for (text, expected) in cases {
        assert_eq!(eval(text)?, *expected, "{text}");
    }
    Ok(())
}

#[test]
fn the_seed_examples_work() -> Result<(), ConditionError> {
    check(&[
        ("dependencies.inst_1.result.count > 0", true),
        ("dependencies.inst_1.status == 'COMPLETED'", true),
        ("dependencies.inst_1.result.anomaly_detected == true", true),
        (
            "dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8",
            true,
        ),
    ])
}

#[test]
fn success_is_a_synonym_of_completed_for_status() -> Result<(), ConditionError> {
    check(&[
        ("dependencies.inst_1.status == 'SUCCESS'", true),
        ("'SUCCESS' == dependencies.inst_1.status", true),
        ("dependencies.inst_1.status != 'SUCCESS'", false),
        ("dependencies.inst_2.status == 'SUCCESS'", false),
        // Only for a status: elsewhere SUCCESS is just a string.
        ("dependencies.inst_1.result.label == 'SUCCESS'", false),
    ])
}

#[test]
fn precedence_is_not_then_comparison_then_and_then_or() -> Result<(), ConditionError> {
    check(&[
        // OR binds looser than AND: true OR (false AND false)
        ("true OR false AND false", true),
        ("(true OR false) AND false", false),
        // NOT binds tighter than AND/OR
        ("NOT false AND false", false),
        ("NOT (false AND false)", true),
        ("not true or true", true),
        // NOT negates the whole comparison (seed 000 §6.2's evaluator, SQL): NOT (x == y)
        (
            "NOT dependencies.inst_1.result.anomaly_detected == false",
            true,
        ),
        ("NOT dependencies.inst_1.status == 'FAILED'", true),
        ("NOT dependencies.inst_1.status == 'COMPLETED'", false),
        (
            "NOT dependencies.inst_1.status == 'FAILED' AND false",
            false,
        ),
        ("NOT 1 == 1 OR true", true),
        ("!dependencies.inst_1.status == 'COMPLETED'", false),
        ("!(1 == 2)", true),
        ("1 < 2 && 2 < 3 || false", true),
        ("false || !false && 1 == 1", true),
    ])
}

#[test]
fn keywords_in_any_case_and_symbol_forms() -> Result<(), ConditionError> {
    check(&[
        ("true and true", true),
        ("TRUE And FALSE", false),
        ("false Or true", true),
        ("NoT false", true),
        ("NULL == null", true),
        ("true && !false", true),
        ("1 <> 2", true),
    ])
}

#[test]
fn string_literals_may_hold_operators_and_parentheses() -> Result<(), ConditionError> {
    check(&[
        (
            "dependencies.inst_1.result.label == 'high (urgent) AND rising'",
            true,
        ),
        (
            "dependencies.inst_1.result.label == \"high (urgent) AND rising\"",
            true,
        ),
        ("'a OR b' == 'a OR b' AND 'NOT (x)' != ')'", true),
        ("contains(dependencies.inst_1.result.label, ' AND ')", true),
        ("'it\\'s' == \"it's\"", true),
    ])
}

#[test]
fn comparisons_follow_json_types() -> Result<(), ConditionError> {
    check(&[
        ("3 == 3.0", true),
        ("dependencies.inst_1.result.count >= 3", true),
        ("dependencies.inst_1.result.count <= 2", false),
        ("-1 < 0", true),
        ("1e3 == 1000", true),
        ("'b' > 'a'", true),
        ("'10' == 10", false),
        ("'10' != 10", true),
        // Ordering across types is false both ways.
        ("'10' > 5", false),
        ("'10' < 5", false),
        ("true > false", false),
        ("null < 1", false),
        (
            "dependencies.inst_1.result.tags == dependencies.inst_1.result.tags",
            true,
        ),
    ])
}

#[test]
fn missing_paths_are_null() -> Result<(), ConditionError> {
    check(&[
        ("dependencies.inst_9.status == null", true),
        ("dependencies.inst_1.result.nope == null", true),
        ("dependencies.inst_1.result.nothing == null", true),
        ("dependencies.inst_1.result.nope > 0", false),
        ("dependencies.inst_1.result.nope", false),
        ("NOT dependencies.inst_1.result.nope", true),
        ("dependencies.inst_1.result.count.deeper == null", true),
    ])
}

#[test]
fn paths_take_indices() -> Result<(), ConditionError> {
    check(&[
        ("dependencies.inst_1.result.items[1].name == 'second'", true),
        ("dependencies.inst_1.result.items[5].name == null", true),
        ("dependencies.inst_1.result.tags[0] == 'a'", true),
    ])
}

#[test]
fn functions_and_methods() -> Result<(), ConditionError> {
    check(&[
        ("contains(dependencies.inst_1.result.tags, 'b')", true),
        ("contains(dependencies.inst_1.result.tags, 'z')", false),
        ("dependencies.inst_1.result.tags.contains('a')", true),
        ("dependencies.inst_1.result.label.contains('urgent')", true),
        ("contains(dependencies.inst_1.result, 'score')", true),
        ("contains(dependencies.inst_1.result.count, 3)", false),
        ("isEmpty(dependencies.inst_1.result.empty)", true),
        ("isEmpty(dependencies.inst_1.result.text)", true),
        // Whitespace only is empty (the seed's `value.trim().length === 0`).
        ("isEmpty(dependencies.inst_1.result.blank)", true),
        ("dependencies.inst_1.result.blank.isEmpty()", true),
        ("isEmpty(dependencies.inst_1.result.label)", false),
        ("isEmpty(dependencies.inst_1.result.nope)", true),
        ("ISEMPTY(dependencies.inst_1.result.tags)", false),
        ("dependencies.inst_1.result.empty.isEmpty()", true),
        (
            "NOT isEmpty(dependencies.inst_1.result.tags) AND contains('abc', 'b')",
            true,
        ),
    ])
}

#[test]
fn bare_values_as_booleans() -> Result<(), ConditionError> {
    check(&[
        ("dependencies.inst_1.result.anomaly_detected", true),
        ("dependencies.inst_1.result.count", true),
        ("dependencies.inst_1.result.empty", false),
        ("0", false),
        ("'x'", true),
    ])
}

fn error_at(text: &str) -> (usize, String) {
    match Condition::parse(text) {
        Err(e) => (e.position, e.message),
        Ok(c) => panic!("`{text}` parsed: {c:?}"),
    }
}

#[test]
fn syntax_errors_name_their_column() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 1, "empty"),
        ("a ==", 5, "expected a value"),
        ("(a == 1", 8, "closing the `(` at column 1"),
        ("a == 1)", 7, "without a matching"),
        ("a = 1", 3, "use `==`"),
        ("a == 'open", 6, "never closed"),
        ("a == 1 == 2", 8, "do not chain"),
        ("a AND AND b", 7, "expected a value"),
        ("a == 1 b", 8, "expected AND, OR"),
        ("foo(1)", 1, "unknown function"),
        ("contains(a)", 11, "two arguments"),
        ("a[x]", 3, "expected an index"),
        ("a # b", 3, "unexpected character"),
        ("a.", 3, "expected a name"),
    ];
    for (text, position, fragment) in cases {
        let (pos, message) = error_at(text);
        assert_eq!(pos, *position, "`{text}`: {message}");
        assert!(message.contains(fragment), "`{text}`: {message}");
    }
}

#[test]
fn errors_display_with_the_column() {
    let Err(e) = Condition::parse("x >") else {
        panic!("parsed")
    };
    assert_eq!(
        e.to_string(),
        "syntax error at column 4: expected a value, found the end of the condition"
    );
}

#[test]
fn referenced_ids_and_status_tests_are_known() -> Result<(), ConditionError> {
    let c = Condition::parse(
        "dependencies.a.status == 'FAILED' OR contains(dependencies.b.result.x, 1) OR results.c.status",
    )?;
    assert_eq!(c.referenced_ids("dependencies"), vec!["a", "b"]);
    assert_eq!(c.referenced_ids("results"), vec!["c"]);
    assert!(c.tests_status_of(&["dependencies"], "a"));
    assert!(!c.tests_status_of(&["dependencies"], "b"));
    assert!(c.tests_status_of(&["dependencies", "results"], "c"));
    Ok(())
}

#[test]
fn ids_with_hyphens_and_digits_are_paths() -> Result<(), ConditionError> {
    let c = Condition::parse("dependencies.inst-2.result.n == 2")?;
    assert!(c.evaluate(&json!({"dependencies": {"inst-2": {"result": {"n": 2}}}})));
    let c = Condition::parse("a.b.0 == 1")?;
    assert!(c.evaluate(&json!({"a": {"b": {"0": 1}}})));
    Ok(())
}

#[test]
fn deep_nesting_is_a_syntax_error_not_a_crash() {
    let deep = [
        ("NOT ".repeat(10_000) + "x", 4 * 64 + 1),
        ("(".repeat(10_000) + "x" + &")".repeat(10_000), 65),
        ("!".repeat(10_000) + "x", 65),
        (
            "isEmpty(".repeat(10_000) + "x" + &")".repeat(10_000),
            64 * 8 + 8,
        ),
        ("x".to_owned() + &".isEmpty()".repeat(10_000), 64 * 10 + 3),
        ("x.contains(".repeat(10_000), 64 * 11 + 3),
    ];
    for (text, column) in deep {
        let (pos, message) = error_at(&text);
        assert_eq!(message, "nested too deeply (more than 64 levels)");
        assert_eq!(pos, column, "{}…", &text[..20]);
        let Err(e) = Condition::parse(&text) else {
            panic!("parsed")
        };
        assert_eq!(
            e.to_string(),
            format!("syntax error at column {column}: nested too deeply (more than 64 levels)")
        );
    }
}

#[test]
fn sixty_four_levels_still_parse_and_evaluate() -> Result<(), ConditionError> {
    let nots = "NOT ".repeat(64) + "true";
    assert!(Condition::parse(&nots)?.evaluate(&ctx()));
    let parens = "(".repeat(64) + "true" + &")".repeat(64);
    assert!(Condition::parse(&parens)?.evaluate(&ctx()));
    // A deep tree 64 levels allow: every `(` adds OR, AND and a comparison.
    let mut text = "x".to_owned();
    for _ in 0..64 {
        text = format!("(false OR true AND {text} == false)");
    }
    let c = Condition::parse(&text)?;
    c.evaluate(&ctx());
    drop(c);
    let methods = "x".to_owned() + &".isEmpty()".repeat(64);
    Condition::parse(&methods)?.evaluate(&ctx());
    Ok(())
}

#[test]
fn long_and_or_chains_are_flat() -> Result<(), ConditionError> {
    // Length is not nesting: 100,000 operands parse, evaluate and drop without deep recursion.
    let ands = vec!["true"; 100_000].join(" AND ");
    assert!(Condition::parse(&ands)?.evaluate(&ctx()));
    let ors = vec!["false"; 100_000].join(" || ") + " || x == null";
    assert!(Condition::parse(&ors)?.evaluate(&ctx()));
    let mixed = vec!["false AND true"; 50_000].join(" OR ");
    assert!(!Condition::parse(&mixed)?.evaluate(&ctx()));
    Ok(())
}
