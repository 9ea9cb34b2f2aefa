//! Differences that are not news: the known dialects of the official SDK helpers, and the
//! places where the spec leaves the text open and the reference merely decided.
//!
//! Each is a normalisation applied to both texts. A difference is explained when the texts are
//! equal once every normalisation has been applied; the explanation names only the ones that
//! were needed (each is dropped in turn to see whether equality survives).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Whether a normalisation is a dialect (another implementation's wording) or a decision of
/// the reference where the spec is silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowance {
    /// A known dialect: the text is another implementation's wording of the same answer.
    Dialect,
    /// The spec leaves this open; the reference decided (an INFO rule).
    Open,
}

struct Normaliser {
    name: &'static str,
    kind: Allowance,
    rule: &'static str,
    /// The text normalised; borrowed when there is nothing to change, which is almost always
    /// (a million-line view is looked at, never copied).
    apply: fn(&str) -> Cow<'_, str>,
}

/// Why two differing texts are nonetheless equivalent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The names of the normalisations needed (`error-prefix-missing`, `final-newline`).
    pub names: Vec<&'static str>,
    /// The rule behind the first needed one.
    pub rule: &'static str,
    /// Whether any of them is a dialect (else all are open decisions).
    pub dialect: bool,
}

static PHANTOM_LAST_LINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\n *[0-9]+\t$").ok());
static LISTING_SIZE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^[^\t\n]+\t/memories").ok());

const LISTING_HEADER: &str = "Here're the files and directories up to 2 levels deep in ";
const SDK_SNIPPET: &str =
    "The memory file has been edited. Here is the snippet showing the change (with line numbers):";

const NORMALISERS: &[Normaliser] = &[
    Normaliser {
        name: "error-prefix",
        kind: Allowance::Dialect,
        rule: "decide.error-prefix",
        apply: |text| Cow::Borrowed(text.strip_prefix("Error: ").unwrap_or(text)),
    },
    Normaliser {
        name: "python-sdk-listing-header",
        kind: Allowance::Dialect,
        rule: "view.dir.header",
        apply: |text| match text.split_once('\n') {
            Some((first, rest)) if first.starts_with(LISTING_HEADER) => Cow::Owned(format!(
                "{}\n{rest}",
                first.replace(
                    ", excluding hidden items and node_modules:",
                    ", excluding hidden items:"
                )
            )),
            _ => Cow::Borrowed(text),
        },
    },
    Normaliser {
        name: "sdk-snippet-header",
        kind: Allowance::Dialect,
        rule: "str-replace.success",
        apply: |text| match text.strip_prefix(SDK_SNIPPET) {
            Some(rest) => Cow::Owned(format!("The memory file has been edited.{rest}")),
            None => Cow::Borrowed(text),
        },
    },
    Normaliser {
        name: "size-format",
        kind: Allowance::Open,
        rule: "decide.size-format",
        apply: |text| match (&*LISTING_SIZE, text.starts_with(LISTING_HEADER)) {
            (Some(size), true) => size.replace_all(text, "{size}\t/memories"),
            _ => Cow::Borrowed(text),
        },
    },
    Normaliser {
        name: "listing-order",
        kind: Allowance::Open,
        rule: "decide.listing-order",
        apply: |text| {
            if !text.starts_with(LISTING_HEADER) {
                return Cow::Borrowed(text);
            }
            let mut lines: Vec<&str> = text.split('\n').collect();
            if lines.len() > 2 {
                lines[2..].sort_unstable();
            }
            Cow::Owned(lines.join("\n"))
        },
    },
    Normaliser {
        name: "final-newline",
        kind: Allowance::Open,
        rule: "decide.final-newline",
        apply: |text| match &*PHANTOM_LAST_LINE {
            Some(phantom)
                if text.contains(" with line numbers:") || text.contains(" has been edited") =>
            {
                phantom.replace(text, "")
            }
            _ => Cow::Borrowed(text),
        },
    },
];

/// Explains why `other` differs from `reference`, if a known dialect or an open decision does.
pub fn explain(reference: &str, other: &str) -> Option<Explanation> {
    if reference == other {
        return None;
    }
    let all: Vec<usize> = (0..NORMALISERS.len()).collect();
    if !equal_under(&all, reference, other) {
        return None;
    }
    let mut needed = all;
    let mut i = 0;
    while i < needed.len() {
        let mut without = needed.clone();
        without.remove(i);
        if equal_under(&without, reference, other) {
            needed = without;
        } else {
            i += 1;
        }
    }
    let names = needed
        .iter()
        .map(|&n| match NORMALISERS[n].name {
            "error-prefix" if other.starts_with("Error: ") => "error-prefix-added",
            "error-prefix" => "error-prefix-missing",
            name => name,
        })
        .collect();
    let first = needed.first().map(|&n| &NORMALISERS[n]);
    Some(Explanation {
        names,
        rule: first.map_or("commands.recommended-strings", |n| n.rule),
        dialect: needed
            .iter()
            .any(|&n| NORMALISERS[n].kind == Allowance::Dialect),
    })
}

fn equal_under(normalisers: &[usize], a: &str, b: &str) -> bool {
    normalised(normalisers, a) == normalised(normalisers, b)
}

/// `text` with `normalisers` applied in turn.
fn normalised<'t>(normalisers: &[usize], text: &'t str) -> Cow<'t, str> {
    normalisers
        .iter()
        .fold(Cow::Borrowed(text), |text, &n| match text {
            // What changes nothing, or only cuts (a prefix), still borrows the original.
            Cow::Borrowed(text) => (NORMALISERS[n].apply)(text),
            Cow::Owned(text) => Cow::Owned((NORMALISERS[n].apply)(&text).into_owned()),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_prefix_both_ways() {
        let e = explain(
            "Error: File /memories/a already exists",
            "File /memories/a already exists",
        );
        assert_eq!(
            e.map(|e| (e.names, e.dialect)),
            Some((vec!["error-prefix-missing"], true))
        );
        let e = explain(
            "The path /memories/x does not exist",
            "Error: The path /memories/x does not exist",
        );
        assert_eq!(e.map(|e| e.names), Some(vec!["error-prefix-added"]));
    }

    #[test]
    fn python_listing_and_sizes() {
        let reference = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n13B\t/memories\n13B\t/memories/a.md";
        let python = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n4K\t/memories\n13B\t/memories/a.md";
        let e = explain(reference, python);
        assert_eq!(
            e.map(|e| e.names),
            Some(vec!["python-sdk-listing-header", "size-format"])
        );
    }

    #[test]
    fn phantom_line_is_open_not_a_dialect() {
        let reference = "Here's the content of /memories/a.md with line numbers:\n     1\tx";
        let python = "Here's the content of /memories/a.md with line numbers:\n     1\tx\n     2\t";
        let e = explain(reference, python);
        assert_eq!(
            e.map(|e| (e.rule, e.dialect)),
            Some(("decide.final-newline", false))
        );
    }

    #[test]
    fn tab_against_spaces_is_not_explained() {
        let reference = "Here's the content of /memories/a.md with line numbers:\n     1\tx\ty";
        let other = "Here's the content of /memories/a.md with line numbers:\n     1\tx    y";
        assert_eq!(explain(reference, other), None);
    }
}
