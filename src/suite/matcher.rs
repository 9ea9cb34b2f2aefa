//! Matching a backend's text against an expectation.

use regex::Regex;

use super::case::{Matcher, TextExpectation};

/// A human-readable size: `4.0K`, `4K`, `1023B`, `512`, `1.2M`, `1.0k`.
const SIZE: &str = r"\d+(?:\.\d+)?\s?(?:[BKMGTPEbkmgtpe](?:i?B)?)?";

/// Whether `actual` satisfies `expected`.
pub fn matches(expected: &TextExpectation, actual: &str) -> Result<bool, String> {
    Ok(match expected {
        TextExpectation::Exact(text) => text == actual,
        TextExpectation::Matcher(Matcher::Prefix(prefix)) => actual.starts_with(prefix.as_str()),
        TextExpectation::Matcher(Matcher::Template(template)) => {
            compile(template)?.is_match(actual)
        }
        TextExpectation::Matcher(Matcher::Listing { header, lines }) => {
            listing_matches(header, lines, actual)?
        }
    })
}

/// Compiles a template into an anchored regex. Errors name the bad placeholder.
pub fn compile(template: &str) -> Result<Regex, String> {
    let mut pattern = String::from("(?s)^");
    let mut literal = String::new();
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        literal.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            literal.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if tail.starts_with('}') {
            return Err(format!(
                "unmatched `}}` in template {template:?} (write `}}}}` for a literal brace)"
            ));
        }
        let Some(end) = tail.find('}') else {
            return Err(format!("unclosed placeholder in template {template:?}"));
        };
        pattern.push_str(&regex::escape(&literal));
        literal.clear();
        pattern.push_str(match &tail[1..end] {
            "size" => SIZE,
            "any" => "[^\n]*",
            "int" => "-?[0-9]+",
            "lines" => "(?s:.*?)",
            other => {
                return Err(format!(
                    "unknown placeholder `{{{other}}}` in template {template:?} (known: size, any, int, lines)"
                ));
            }
        });
        rest = &tail[end + 1..];
    }
    literal.push_str(rest);
    pattern.push_str(&regex::escape(&literal));
    pattern.push('$');
    Regex::new(&pattern).map_err(|e| format!("template {template:?} does not compile: {e}"))
}

/// A listing: first line exactly `header`, then the other lines matched as a set against
/// `lines`. A trailing `/` on a line is not significant here (the folder marker is a decision,
/// tested by its own case).
fn listing_matches(header: &str, lines: &[String], actual: &str) -> Result<bool, String> {
    let mut actual_lines = actual.split('\n');
    if actual_lines.next() != Some(header) {
        return Ok(false);
    }
    let mut remaining: Vec<&str> = actual_lines
        .map(|l| l.strip_suffix('/').unwrap_or(l))
        .collect();
    if remaining.len() != lines.len() {
        return Ok(false);
    }
    for template in lines {
        let template = template.strip_suffix('/').unwrap_or(template);
        let regex = compile(template)?;
        match remaining.iter().position(|line| regex.is_match(line)) {
            Some(i) => {
                remaining.swap_remove(i);
            }
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// The expectation as text, for reports.
pub fn describe(expected: &TextExpectation) -> String {
    match expected {
        TextExpectation::Exact(text) => text.clone(),
        TextExpectation::Matcher(Matcher::Template(t)) => t.clone(),
        TextExpectation::Matcher(Matcher::Prefix(p)) => format!("{p}{{any…}}"),
        TextExpectation::Matcher(Matcher::Listing { header, lines }) => {
            let mut out = header.clone();
            for line in lines {
                out.push('\n');
                out.push_str(line);
            }
            out
        }
    }
}

/// Marks a template line that matched nothing in a diff, so that it does not read as a literal
/// line the backend left out.
pub const TEMPLATE_MARK: &str = "  (template)";

/// The expectation as a diff should show it against `actual`: each template line that matches
/// an actual line is replaced by that line (so the diff shows it unchanged), and each one that
/// does not stays as written, marked [`TEMPLATE_MARK`]. `None` for an exact text, which is
/// shown as it is.
pub fn aligned(expected: &TextExpectation, actual: &str) -> Result<Option<String>, String> {
    Ok(match expected {
        TextExpectation::Exact(_) | TextExpectation::Matcher(Matcher::Prefix(_)) => None,
        TextExpectation::Matcher(Matcher::Template(template)) => {
            Some(aligned_template(template, actual)?)
        }
        TextExpectation::Matcher(Matcher::Listing { header, lines }) => {
            Some(aligned_listing(header, lines, actual)?)
        }
    })
}

fn has_placeholder(line: &str) -> bool {
    line.replace("{{", "").replace("}}", "").contains('{')
}

/// Line by line, the n-th template line against the n-th actual line; after a `{lines}`
/// placeholder, line positions no longer correspond, so lines are only marked.
fn aligned_template(template: &str, actual: &str) -> Result<String, String> {
    let mut actual_lines = actual.split('\n');
    let mut aligned = true;
    let mut out = Vec::new();
    for line in template.split('\n') {
        let counterpart = if aligned { actual_lines.next() } else { None };
        if line.contains("{lines}") {
            aligned = false;
        }
        if !has_placeholder(line) {
            out.push(compile_literal(line)?);
            continue;
        }
        match counterpart {
            Some(candidate) if aligned && compile(line)?.is_match(candidate) => {
                out.push(candidate.to_string());
            }
            _ => out.push(format!("{line}{TEMPLATE_MARK}")),
        }
    }
    Ok(out.join("\n"))
}

/// A template line without placeholders, its `{{`/`}}` escapes undone.
fn compile_literal(line: &str) -> Result<String, String> {
    Ok(line.replace("{{", "{").replace("}}", "}"))
}

/// The header, then the actual lines that some template matched, in the actual order, then
/// the templates that matched nothing.
fn aligned_listing(header: &str, lines: &[String], actual: &str) -> Result<String, String> {
    let mut templates: Vec<(&str, Regex)> = Vec::new();
    for line in lines {
        let bare = line.strip_suffix('/').unwrap_or(line);
        templates.push((line.as_str(), compile(bare)?));
    }
    let mut out = vec![header.to_string()];
    for line in actual.split('\n').skip(1) {
        let bare = line.strip_suffix('/').unwrap_or(line);
        if let Some(i) = templates.iter().position(|(_, re)| re.is_match(bare)) {
            templates.remove(i);
            out.push(line.to_string());
        }
    }
    for (line, _) in templates {
        out.push(format!("{line}{TEMPLATE_MARK}"));
    }
    Ok(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(t: &str) -> TextExpectation {
        TextExpectation::Matcher(Matcher::Template(t.to_string()))
    }

    #[test]
    fn templates_match_placeholders_and_nothing_more() {
        let t = template("{size}\t/memories/a.txt");
        assert_eq!(matches(&t, "1.5K\t/memories/a.txt"), Ok(true));
        assert_eq!(matches(&t, "4K\t/memories/a.txt"), Ok(true));
        assert_eq!(matches(&t, "4K /memories/a.txt"), Ok(false));
        assert_eq!(matches(&template("a{{b}}"), "a{b}"), Ok(true));
        assert_eq!(matches(&template("x{lines}y"), "x\n1\n2\ny"), Ok(true));
        assert!(matches(&template("{nope}"), "").is_err());
    }

    #[test]
    fn listings_ignore_order_and_folder_markers() {
        let listing = TextExpectation::Matcher(Matcher::Listing {
            header: "H".to_string(),
            lines: vec![
                "{size}\t/m".into(),
                "{size}\t/m/a".into(),
                "{size}\t/m/d/".into(),
            ],
        });
        assert_eq!(matches(&listing, "H\n1K\t/m\n2K\t/m/d\n3K\t/m/a"), Ok(true));
        assert_eq!(matches(&listing, "H\n1K\t/m\n2K\t/m/d/"), Ok(false));
        assert_eq!(
            matches(&listing, "X\n1K\t/m\n2K\t/m/d/\n3K\t/m/a"),
            Ok(false)
        );
    }

    #[test]
    fn aligned_listings_show_matched_lines_as_they_came() {
        let listing = TextExpectation::Matcher(Matcher::Listing {
            header: "H".to_string(),
            lines: vec![
                "{size}\t/m".into(),
                "{size}\t/m/a".into(),
                "{size}\t/m/b".into(),
            ],
        });
        assert_eq!(
            aligned(&listing, "H\n2K\t/m/a\n1K\t/m\n3K\t/m/x"),
            Ok(Some(
                "H\n2K\t/m/a\n1K\t/m\n{size}\t/m/b  (template)".to_string()
            ))
        );
    }

    #[test]
    fn aligned_templates_go_line_by_line() {
        assert_eq!(
            aligned(&template("a {int}\nb {any}\n{{c}}"), "a 12\nB x\n{c}"),
            Ok(Some("a 12\nb {any}  (template)\n{c}".to_string()))
        );
        assert_eq!(aligned(&TextExpectation::Exact("x".into()), "y"), Ok(None));
    }
}
