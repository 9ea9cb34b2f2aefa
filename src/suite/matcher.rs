//! Matching a backend's text against an expectation.

use std::collections::HashMap;

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

/// One piece of a template: literal text, or a placeholder's regex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text matched as it is (`{{` and `}}` already made single braces).
    Literal(String),
    /// A placeholder, as the regex it stands for.
    Placeholder(&'static str),
}

/// Reads a template into its pieces. Errors name the bad placeholder.
pub fn parse(template: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
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
        if !literal.is_empty() {
            pieces.push(Piece::Literal(std::mem::take(&mut literal)));
        }
        pieces.push(Piece::Placeholder(match &tail[1..end] {
            "size" => SIZE,
            "any" => "[^\n]*",
            "int" => "-?[0-9]+",
            "lines" => "(?s:.*?)",
            other => {
                return Err(format!(
                    "unknown placeholder `{{{other}}}` in template {template:?} (known: size, any, int, lines)"
                ));
            }
        }));
        rest = &tail[end + 1..];
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    Ok(pieces)
}

/// The anchored regex of `pieces`.
fn pattern(pieces: &[Piece]) -> String {
    let mut pattern = String::from("(?s)^");
    for piece in pieces {
        match piece {
            Piece::Literal(text) => pattern.push_str(&regex::escape(text)),
            Piece::Placeholder(regex) => pattern.push_str(regex),
        }
    }
    pattern.push('$');
    pattern
}

/// Compiles a template into an anchored regex. Errors name the bad placeholder.
pub fn compile(template: &str) -> Result<Regex, String> {
    let pieces = parse(template)?;
    Regex::new(&pattern(&pieces))
        .map_err(|e| format!("template {template:?} does not compile: {e}"))
}

/// A template cut after its last placeholder: the regex of everything up to it (`None` when
/// it has no placeholder), and the literal text after it. A line matches the template exactly
/// when it ends with `tail` and the rest matches `head`: the generated lines of a big listing
/// (`{size}\t/memories/wide/f17.txt`) then share one head regex, compiled once, and each finds
/// its line by its tail.
struct Split {
    head: Option<String>,
    tail: String,
}

fn split(template: &str) -> Result<Split, String> {
    let pieces = parse(template)?;
    let last = pieces
        .iter()
        .rposition(|piece| matches!(piece, Piece::Placeholder(_)));
    let Some(last) = last else {
        return Ok(Split {
            head: None,
            tail: literal_text(&pieces),
        });
    };
    Ok(Split {
        head: Some(pattern(&pieces[..=last])),
        tail: literal_text(&pieces[last + 1..]),
    })
}

fn literal_text(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|piece| match piece {
            Piece::Literal(text) => text.as_str(),
            Piece::Placeholder(_) => "",
        })
        .collect()
}

/// The templates of a listing, each split, with the head regexes they share compiled once.
struct Templates {
    splits: Vec<Split>,
    heads: HashMap<String, Regex>,
}

impl Templates {
    fn new(lines: &[String]) -> Result<Templates, String> {
        let mut splits = Vec::with_capacity(lines.len());
        let mut heads = HashMap::new();
        for line in lines {
            let bare = line.strip_suffix('/').unwrap_or(line);
            let split = split(bare)?;
            if let Some(head) = &split.head
                && !heads.contains_key(head)
            {
                let regex = Regex::new(head)
                    .map_err(|e| format!("template {bare:?} does not compile: {e}"))?;
                heads.insert(head.clone(), regex);
            }
            splits.push(split);
        }
        Ok(Templates { splits, heads })
    }

    /// Whether template `index` matches the whole of `line`.
    fn matches(&self, index: usize, line: &str) -> bool {
        let Some(split) = self.splits.get(index) else {
            return false;
        };
        let Some(rest) = line.strip_suffix(split.tail.as_str()) else {
            return false;
        };
        match &split.head {
            None => rest.is_empty(),
            Some(head) => self.heads.get(head).is_some_and(|re| re.is_match(rest)),
        }
    }
}

/// The indexes of `lines`, grouped by their last `len` bytes, for each tail length asked.
struct ByTail<'a> {
    lines: &'a [&'a str],
    by_len: HashMap<usize, HashMap<&'a str, Vec<usize>>>,
}

impl<'a> ByTail<'a> {
    fn new(lines: &'a [&'a str]) -> ByTail<'a> {
        ByTail {
            lines,
            by_len: HashMap::new(),
        }
    }

    /// The indexes of the lines ending with `tail`, in line order.
    fn ending_with(&mut self, tail: &str) -> &[usize] {
        let lines = self.lines;
        let index = self.by_len.entry(tail.len()).or_insert_with(|| {
            let mut index: HashMap<&str, Vec<usize>> = HashMap::new();
            for (i, line) in lines.iter().enumerate() {
                if let Some(cut) = line.len().checked_sub(tail.len())
                    && line.is_char_boundary(cut)
                {
                    index.entry(&line[cut..]).or_default().push(i);
                }
            }
            index
        });
        index.get(tail).map_or(&[], Vec::as_slice)
    }
}

/// A listing: first line exactly `header`, then the other lines matched as a set against
/// `lines`: each template, in order, takes the first line (in the answer's order) that it
/// matches and no earlier template took. A trailing `/` on a line is not significant here (the
/// folder marker is a decision, tested by its own case). Linear in the listing's length for
/// templates that end in literal text, which a listing's lines do.
fn listing_matches(header: &str, lines: &[String], actual: &str) -> Result<bool, String> {
    let mut actual_lines = actual.split('\n');
    if actual_lines.next() != Some(header) {
        return Ok(false);
    }
    let remaining: Vec<&str> = actual_lines
        .map(|l| l.strip_suffix('/').unwrap_or(l))
        .collect();
    if remaining.len() != lines.len() {
        return Ok(false);
    }
    let templates = Templates::new(lines)?;
    let mut by_tail = ByTail::new(&remaining);
    let mut taken = vec![false; remaining.len()];
    for (t, split) in templates.splits.iter().enumerate() {
        let found = by_tail
            .ending_with(&split.tail)
            .iter()
            .copied()
            .find(|&i| !taken[i] && templates.matches(t, remaining[i]));
        match found {
            Some(i) => taken[i] = true,
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
/// the templates that matched nothing. Each actual line is taken by the first template (in
/// order) not yet used that matches it; templates are found by their tails, so a listing of
/// thousands of lines is aligned in linear time.
fn aligned_listing(header: &str, lines: &[String], actual: &str) -> Result<String, String> {
    let templates = Templates::new(lines)?;
    let mut by_tail: HashMap<&str, Vec<usize>> = HashMap::new();
    for (t, split) in templates.splits.iter().enumerate() {
        by_tail.entry(split.tail.as_str()).or_default().push(t);
    }
    let mut tail_lengths: Vec<usize> = by_tail.keys().map(|tail| tail.len()).collect();
    tail_lengths.sort_unstable();
    tail_lengths.dedup();
    let mut used = vec![false; lines.len()];
    let mut out = vec![header.to_string()];
    for line in actual.split('\n').skip(1) {
        let bare = line.strip_suffix('/').unwrap_or(line);
        let mut best: Option<usize> = None;
        for &len in &tail_lengths {
            let Some(cut) = bare.len().checked_sub(len) else {
                continue;
            };
            let Some(candidates) = bare.get(cut..).and_then(|tail| by_tail.get(tail)) else {
                continue;
            };
            let first = candidates
                .iter()
                .copied()
                .find(|&t| !used[t] && templates.matches(t, bare));
            if let Some(t) = first {
                best = Some(best.map_or(t, |b| b.min(t)));
            }
        }
        if let Some(t) = best {
            used[t] = true;
            out.push(line.to_string());
        }
    }
    for (line, _) in lines.iter().zip(&used).filter(|(_, used)| !**used) {
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
    #[test]
    fn a_generated_listing_of_thousands_of_lines_matches_whole_and_only_whole() {
        let lines: Vec<String> = std::iter::once("{size}\t/m/w".to_string())
            .chain((1..=3000).map(|i| format!("{{size}}\t/m/w/f{i}.txt")))
            .collect();
        let listing = TextExpectation::Matcher(Matcher::Listing {
            header: "H".to_string(),
            lines,
        });
        let mut actual: Vec<String> = (1..=3000)
            .rev()
            .map(|i| format!("{i}B\t/m/w/f{i}.txt"))
            .collect();
        actual.insert(1500, "96K\t/m/w".to_string());
        let whole = format!("H\n{}", actual.join("\n"));
        let started = std::time::Instant::now();
        assert_eq!(matches(&listing, &whole), Ok(true));
        // Linear, not 3,000 regexes times 3,000 lines (that took seconds).
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        // Cut after 1,000 entries, or one entry swapped for another: no match.
        let cut = format!("H\n{}", actual[..1000].join("\n"));
        assert_eq!(matches(&listing, &cut), Ok(false));
        let mut swapped = actual.clone();
        swapped[7] = "1B\t/m/w/g7.txt".to_string();
        assert_eq!(
            matches(&listing, &format!("H\n{}", swapped.join("\n"))),
            Ok(false)
        );
        // A size that is not one, on the last line.
        let mut bad = actual.clone();
        bad[2999] = "big\t/m/w/f1.txt".to_string();
        assert_eq!(
            matches(&listing, &format!("H\n{}", bad.join("\n"))),
            Ok(false)
        );
        // The diff of a cut listing shows the lines that came and marks the 2,000 that did not.
        let shown = aligned(&listing, &cut).ok().flatten().unwrap_or_default();
        assert_eq!(shown.matches(TEMPLATE_MARK).count(), 2001);
        assert!(shown.starts_with("H\n3000B\t/m/w/f3000.txt\n"));
    }

    #[test]
    fn templates_without_placeholders_and_brace_escapes_split_right() {
        let listing = TextExpectation::Matcher(Matcher::Listing {
            header: "H".to_string(),
            lines: vec!["a{{b}}".into(), "{int} x}}".into(), "{any}/".into()],
        });
        assert_eq!(matches(&listing, "H\na{b}\n-3 x}\nanything/"), Ok(true));
        assert_eq!(matches(&listing, "H\na{{b}}\n-3 x}\nanything"), Ok(false));
    }
}
