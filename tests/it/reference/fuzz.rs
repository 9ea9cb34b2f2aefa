//! Property test: random sequences of random tool inputs over the attack sandbox. Whatever the
//! input, the reference must not panic, must not touch anything outside `memories/`, must not leak
//! a secret and must not leave a temp file.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use serde_json::{Map, Value, json};

use super::attacks::{BAIT, arena, hostile_call, outside};

/// A path segment: traversal spellings, the sandbox's symlink names, look-alikes, escapes,
/// control characters, unicode and plain names.
fn segment() -> BoxedStrategy<String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "..", ".", "", "...", ".. ", "link_out", "link_file_out", "link_abs", "link_in",
            "link_dir_in", "link_base", "link_root", "loop", "loop_a", "dangling", "dangling_dir",
            "sub", "deep_link", "notes.txt", "file.txt", "secret.txt", "new.txt", "fifo",
            "outside", "memories", "memoriesX", "canary.txt", ".memspec-tmp",
            "\u{FF0E}\u{FF0E}", "\u{2025}", "\u{FE30}", "\u{2024}", "a\u{2215}b", "\u{FF0F}",
            "\u{FF3C}", "%2e%2e", "%2E%2e%2F", "%2f", "%252e%252e%252f", "..%2f", "%5c", "%00",
            "%", "%2", "%zz", "a\0b", "\0", "..\\", "\\", "\t", "\u{7f}", "é", "日本語", "\u{1F600}",
            " ", "node_modules", ".hidden",
        ]).prop_map(str::to_string),
        1 => "[a-z0-9._%\\\\-]{1,8}",
        1 => any::<String>().prop_map(|s| s.chars().take(12).collect()),
        1 => (200usize..300).prop_map(|n| "x".repeat(n)),
    ]
    .boxed()
}

/// A path: a prefix, segments joined by `/` or `//`, maybe a trailing slash. `{base}` stands
/// for the sandbox's host path and is filled in per case.
fn path() -> BoxedStrategy<String> {
    let prefix = prop::sample::select(vec![
        "/memories",
        "/memories",
        "/memories",
        "/memories/",
        "memories",
        "",
        "/",
        "/memoriesX",
        "//memories",
        "{base}",
        "{base}/memories",
        "/memories\\",
        "\u{FF0F}memories",
    ]);
    (
        prefix,
        prop::collection::vec((segment(), any::<bool>()), 0..5),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.02),
    )
        .prop_map(|(prefix, segments, trailing, huge)| {
            let mut p = prefix.to_string();
            for (s, double) in segments {
                p.push_str(if double { "//" } else { "/" });
                p.push_str(&s);
            }
            if trailing {
                p.push('/');
            }
            if huge {
                p.push_str(&"/y".repeat(2100));
            }
            p
        })
        .boxed()
}

fn text() -> BoxedStrategy<String> {
    prop_oneof![
        Just(String::new()),
        Just(BAIT.to_string()),
        Just("inside".to_string()),
        Just("\n".to_string()),
        "[a-z \n\r\t]{0,24}",
        any::<String>().prop_map(|s| s.chars().take(24).collect()),
    ]
    .boxed()
}

fn integer() -> BoxedStrategy<Value> {
    prop_oneof![
        4 => (-3i64..8).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => Just(Value::from(u64::MAX)),
        1 => Just(Value::from(i64::MIN)),
        1 => Just(json!(1e300)),
        1 => Just(json!(2.0)),
    ]
    .boxed()
}

/// Anything at all, for fields given the wrong type.
fn junk() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        integer(),
        Just(json!([])),
        Just(json!([1, 2])),
        Just(json!({"path": "/memories"})),
        text().prop_map(Value::from),
        Just(json!(-0.5)),
    ]
    .boxed()
}

/// A field: usually present with a plausible value, sometimes missing or of the wrong type.
fn field(value: BoxedStrategy<Value>) -> BoxedStrategy<Option<Value>> {
    prop_oneof![
        8 => value.prop_map(Some),
        1 => Just(None),
        1 => junk().prop_map(Some),
    ]
    .boxed()
}

fn view_range() -> BoxedStrategy<Value> {
    prop_oneof![
        (integer(), integer()).prop_map(|(a, b)| json!([a, b])),
        junk(),
        Just(json!([1, -1])),
        Just(json!([1, 2, 3])),
    ]
    .boxed()
}

fn input() -> BoxedStrategy<Value> {
    let command: BoxedStrategy<Value> = prop_oneof![
        10 => prop::sample::select(vec![
            "view", "create", "str_replace", "insert", "delete", "rename",
        ]).prop_map(Value::from),
        1 => prop::sample::select(vec!["View", "", "bogus", "str-replace"]).prop_map(Value::from),
        1 => junk(),
    ]
    .boxed();
    let string = || path().prop_map(Value::from).boxed();
    let words = || text().prop_map(Value::from).boxed();
    let fields = (
        field(string()),
        field(words()),
        field(words()),
        field(words()),
        field(integer().boxed()),
        field(words()),
        prop::option::weighted(0.3, view_range()).boxed(),
        field(string()),
        field(string()),
    );
    (
        prop::option::weighted(0.97, command),
        fields,
        prop::bool::weighted(0.03),
    )
        .prop_map(|(command, f, not_object)| {
            if not_object {
                return json!(["not", "an", "object"]);
            }
            let mut map = Map::new();
            if let Some(c) = command {
                map.insert("command".into(), c);
            }
            let named = [
                ("path", f.0),
                ("file_text", f.1),
                ("old_str", f.2),
                ("new_str", f.3),
                ("insert_line", f.4),
                ("insert_text", f.5),
                ("view_range", f.6),
                ("old_path", f.7),
                ("new_path", f.8),
            ];
            for (name, value) in named {
                if let Some(v) = value {
                    map.insert(name.into(), v);
                }
            }
            Value::Object(map)
        })
        .boxed()
}

/// Fills `{base}` in every string of `value`.
fn fill_base(value: &mut Value, base: &str) {
    match value {
        Value::String(s) if s.contains("{base}") => *s = s.replace("{base}", base),
        Value::Array(items) => items.iter_mut().for_each(|v| fill_base(v, base)),
        Value::Object(map) => map.values_mut().for_each(|v| fill_base(v, base)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 384,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    })]

    #[test]
    fn random_inputs_never_escape(inputs in prop::collection::vec(input(), 1..8)) {
        let sb = arena();
        let before = outside(&sb);
        let base = sb.base.to_string_lossy().into_owned();
        for mut input in inputs {
            fill_base(&mut input, &base);
            hostile_call(&sb, &input, &before);
        }
    }
}
