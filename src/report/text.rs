//! What every format does to text before it leaves memspec, whichever command made it: escape
//! what a terminal, a log or a browser would act on or hide (one table,
//! [`crate::diff::escape_control`]: C0 and C1 controls, bidirectional overrides, zero-width and
//! invisible characters), and bound what is too long to read (a line cut to its head and tail,
//! with its length and a hash; a long JSON text as an object of the same).

use std::borrow::Cow;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::schema::BoundedText;

use crate::diff::escape_control;

/// The most characters of one line a human, Markdown, JUnit, TAP or HTML report shows.
pub const LINE_LIMIT: usize = 2_000;

/// Characters kept from the start of a cut line.
const LINE_HEAD: usize = 1_200;

/// Characters kept from the end of a cut line.
const LINE_TAIL: usize = 300;

/// The longest text a JSON report holds as a string; a longer one becomes
/// `{"head", "tail", "length", "sha256"}` unless the report is asked for full texts.
pub const JSON_TEXT_LIMIT: usize = 4_096;

/// Characters kept at each end of a bounded JSON text.
const JSON_END: usize = 1_024;

/// `text` with every character of [`escape_control`]'s table escaped, except newlines and tabs,
/// which the formats lay out themselves.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    let kept = |c: char| c == '\n' || c == '\t';
    if !text
        .chars()
        .any(|c| !kept(c) && escape_control(c).is_some())
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match escape_control(c).filter(|_| !kept(c)) {
            Some(escaped) => out.push_str(&escaped),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The SHA-256 of `text`, in hex.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `text` with each line over [`LINE_LIMIT`] characters cut to its head and tail, with what was
/// cut said in between (how many characters, and the whole line's hash, so that two cut lines
/// can still be told apart).
pub fn bound_lines(text: &str) -> Cow<'_, str> {
    if !text.split('\n').any(|line| long(line, LINE_LIMIT)) {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text
        .split('\n')
        .map(|line| {
            if !long(line, LINE_LIMIT) {
                return Cow::Borrowed(line);
            }
            let count = line.chars().count();
            let head: String = line.chars().take(LINE_HEAD).collect();
            let tail: String = line.chars().skip(count - LINE_TAIL).collect();
            let hash = sha256_hex(line);
            Cow::Owned(format!(
                "{head} … [{} characters cut of {count}; sha256 {}; the JSON report with --full-texts has them all] … {tail}",
                count - LINE_HEAD - LINE_TAIL,
                &hash[..12]
            ))
        })
        .collect();
    Cow::Owned(lines.join("\n"))
}

/// A text ready for a report a person reads: escaped, then bounded.
pub fn for_display(text: &str) -> String {
    bound_lines(&sanitize(text)).into_owned()
}

/// Whether `text` has more than `limit` characters (without counting them all).
fn long(text: &str, limit: usize) -> bool {
    text.len() > limit && text.chars().nth(limit).is_some()
}

/// Every string in `value` longer than [`JSON_TEXT_LIMIT`] characters replaced by its
/// [`BoundedText`] (length in characters, hash of the whole text).
pub fn bound_json(value: &mut Value) {
    match value {
        Value::String(text) if long(text, JSON_TEXT_LIMIT) => {
            let count = text.chars().count();
            let bounded = BoundedText {
                head: text.chars().take(JSON_END).collect(),
                tail: text.chars().skip(count - JSON_END).collect(),
                length: count,
                sha256: sha256_hex(text),
            };
            if let Ok(bounded) = serde_json::to_value(bounded) {
                *value = bounded;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(bound_json),
        Value::Object(map) => map.values_mut().for_each(bound_json),
        _ => {}
    }
}

/// `value` as pretty JSON ending in a newline, with the characters of [`escape_control`]'s table
/// that JSON would carry raw (C1 controls, bidirectional and invisible characters; serde
/// already escapes C0) written as `\uXXXX` escapes: the same text once parsed, but nothing that
/// reorders or hides what a person reading the file sees.
pub fn json_text(value: &Value) -> String {
    let text =
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    let mut out = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        if u32::from(c) >= 0x7f && escape_control(c).is_some() {
            // Every character of the table is in the Basic Multilingual Plane.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_and_invisible_characters_are_escaped_newlines_kept() {
        let text = "a\u{202e}b\u{200b}c\u{2066}d\n\te\u{1b}[31m\u{85}";
        assert_eq!(
            sanitize(text),
            "a\\u{202e}b\\u{200b}c\\u{2066}d\n\te\\x1b[31m\\u{85}"
        );
        assert!(matches!(sanitize("plain\ttext\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_long_line_keeps_its_ends_its_length_and_its_hash() {
        let line = format!("{}{}", "a".repeat(5_000), "z".repeat(500));
        let text = format!("short\n{line}\nshort");
        let bounded = bound_lines(&text);
        let lines: Vec<&str> = bounded.split('\n').collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].chars().count() < LINE_LIMIT, "{}", lines[1].len());
        assert!(lines[1].starts_with(&"a".repeat(LINE_HEAD)));
        assert!(lines[1].ends_with(&"z".repeat(LINE_TAIL)));
        assert!(lines[1].contains("[4000 characters cut of 5500; sha256 "));
        assert!(lines[1].contains(&sha256_hex(&line)[..12]));
    }

    #[test]
    fn long_json_texts_become_head_tail_length_and_hash() {
        let long_text = "x".repeat(JSON_TEXT_LIMIT + 1);
        let mut value = serde_json::json!({"a": [long_text.clone(), "short"], "b": 1});
        bound_json(&mut value);
        assert_eq!(value["a"][1], "short");
        assert_eq!(value["a"][0]["length"], JSON_TEXT_LIMIT + 1);
        assert_eq!(value["a"][0]["sha256"], sha256_hex(&long_text));
        assert_eq!(value["a"][0]["head"].as_str().map(str::len), Some(JSON_END));
    }

    #[test]
    fn json_escapes_what_it_would_carry_raw_and_parses_back_the_same() {
        let value = serde_json::json!({"text": "a\u{202e}b\u{85}c\u{feff}"});
        let text = json_text(&value);
        assert!(text.contains("a\\u202eb\\u0085c\\ufeff"), "{text}");
        let parsed: Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(parsed, value);
    }
}
