//! Every word on a report's first screen can be looked up: the human reports of real runs
//! (`check` of backends that fail in many ways, the crash lane, `fuzz`) are read line by line, the
//! labels they use are collected, and each must be explained in `docs/reference/` as a code span
//! (`` `rerun:` ``, `` `DATA LOSS` ``, `` `NOT conformant` ``), as `docs/reference/report.md`
//! does. A label added to a reporter without a line in the docs fails here.
//!
//! What counts as a label: the words before a line's first `:` (up to the first word that is not
//! plain: a number, an id, a path), the upper-case tags a line opens with (an outcome, a harm, a
//! level) and the level in a finding's closing `[LEVEL rule]`, and the values of the verdict and
//! crash lines. What a backend sent (diffs, reasons, actual texts) and a case's own words (its
//! title, a finding's message) are not labels, and are skipped.

use std::collections::BTreeSet;
use std::path::Path;

use crate::check::{Run, backend, memspec, root, run_command};

/// A label and where it was seen.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    /// Words before a `:` at a line's start (`rerun`, `survives crashes`, `skipped`).
    Colon(String),
    /// Upper-case words a line opens with (`FAIL`, `DATA LOSS MUST`), or a finding's level.
    Tag(String),
    /// What a verdict or crash line says (`NOT conformant`, `memories LOST`, `yes`).
    Value(String),
}

/// A plain word of a label: letters, maybe with `'`, `-`, `/` or `≠` inside.
fn is_word(token: &str) -> bool {
    let mut chars = token.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphabetic() || "'-/≠".contains(c))
}

fn is_caps(token: &str) -> bool {
    token.len() >= 2 && token.chars().all(|c| c.is_ascii_uppercase())
}

/// The leading plain words of a value (`NO, memories LOST` → `NO`; `the backend BROKE (crash…`
/// → `the backend BROKE`); a path counts as a word here (`something outside /memories …`).
fn head_words(text: &str) -> String {
    let mut words = Vec::new();
    for token in text.split_whitespace() {
        let bare = token.trim_end_matches([',', ':', ';']);
        if !(is_word(bare) || bare.starts_with('/') && is_word(&bare[1..])) {
            break;
        }
        words.push(bare);
        if bare.len() < token.len() {
            break;
        }
    }
    words.join(" ")
}

/// The labels of one human report.
fn labels(report: &str) -> BTreeSet<Label> {
    let mut out = BTreeSet::new();
    // Lines more indented than this one are what a backend sent (a diff, a reason's stderr).
    let mut quoted_below: Option<usize> = None;
    let mut title_next = false;
    for line in report.lines() {
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        if let Some(level) = quoted_below {
            if !body.is_empty() && indent > level {
                continue;
            }
            quoted_below = None;
        }
        if std::mem::take(&mut title_next) || body.is_empty() {
            continue;
        }
        let (finding, body) = match body.strip_prefix("- ") {
            Some(rest) => (true, rest),
            None => (false, body),
        };
        let tokens: Vec<&str> = body.split_whitespace().collect();
        let caps: Vec<&str> = tokens.iter().copied().take_while(|t| is_caps(t)).collect();
        if !caps.is_empty() {
            out.insert(Label::Tag(caps.join(" ")));
            // `FAIL case.id`: the next line is the case's title (`INFO (where …): …` is no case).
            title_next = indent == 0
                && !finding
                && tokens
                    .get(caps.len())
                    .is_some_and(|next| !next.starts_with('('));
            continue;
        }
        if finding {
            // `- MESSAGE [LEVEL rule]`: the message is the case's; the level and a replay's
            // pair (`backend ≠ reference: …`) are the report's.
            if let Some(open) = body.rfind(" [")
                && body.ends_with(']')
                && let Some(level) = body[open + 2..].split(' ').next()
                && is_caps(level)
            {
                out.insert(Label::Tag(level.to_string()));
            }
            if let Some((pair, _)) = body.split_once(": ")
                && pair.contains(" ≠ ")
            {
                out.insert(Label::Colon(pair.to_string()));
            }
            continue;
        }
        let Some(colon) = body.find(':') else {
            continue;
        };
        let mut head = &body[..colon];
        // `diff (- expected, + actual; …)`, `choice (INFO)`: the label is before the parenthesis.
        if let Some(open) = head.find(" (")
            && head.ends_with(')')
        {
            head = &head[..open];
        }
        let mut words = Vec::new();
        for token in head.split_whitespace() {
            let bare = token.trim_end_matches(',');
            if !is_word(bare) {
                break;
            }
            words.push(token);
        }
        if words.is_empty() {
            continue;
        }
        let label = words.join(" ").trim_end_matches(',').to_string();
        let rest = &body[colon + 1..];
        match label.as_str() {
            "verdict" => {
                for part in rest.split("; ") {
                    out.insert(Label::Value(head_words(part)));
                }
            }
            "survives crashes" => {
                out.insert(Label::Value(head_words(rest)));
            }
            "diff" | "reason" => quoted_below = Some(indent),
            _ => {}
        }
        out.insert(Label::Colon(label));
    }
    out.remove(&Label::Value(String::new()));
    out
}

/// Every `docs/reference/*.md`, joined.
fn reference_docs() -> String {
    let dir = root().join("docs/reference");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `docs` has a code span opening with `text` and then one of `ends`.
fn spans(docs: &str, text: &str, ends: &[char]) -> bool {
    let wanted = format!("`{text}");
    docs.match_indices(&wanted).any(|(at, _)| {
        docs[at + wanted.len()..]
            .chars()
            .next()
            .is_some_and(|c| ends.contains(&c))
    })
}

/// Why `label` is not explained in `docs`, if it is not.
fn unexplained(docs: &str, label: &Label) -> Option<String> {
    match label {
        // `skipped 4: …` is read as `skipped` and explained as `skipped N: …`.
        Label::Colon(words) => {
            (!spans(docs, words, &[':', ' ', '`'])).then(|| format!("`{words}:` (a line's label)"))
        }
        Label::Value(words) => (!spans(docs, words, &['`', ' ', ';', ',', ':']))
            .then(|| format!("`{words}` (what a verdict or crash line says)")),
        Label::Tag(tags) => {
            // `DATA LOSS MUST` is `DATA LOSS` then `MUST`: the longest documented tags first.
            let words: Vec<&str> = tags.split(' ').collect();
            let mut at = 0;
            while at < words.len() {
                let Some(len) = (1..=words.len() - at)
                    .rev()
                    .find(|len| spans(docs, &words[at..at + len].join(" "), &['`', ' ']))
                else {
                    return Some(format!("`{}` (a tag)", words[at]));
                };
                at += len;
            }
            None
        }
    }
}

/// The human report of `memspec ARGS` (stdout; the progress on stderr is not the report).
fn human(args: &[&str], kv: Option<&Path>) -> (String, Run) {
    let mut command = memspec();
    command.args(args).args(["--color", "never"]);
    if let Some(dir) = kv {
        command.env("MEMSPEC_KV_DIR", dir);
    }
    let run = run_command(&mut command);
    (args.join(" "), run)
}

/// The reports read: a conformant run, wording (a lineage), a traversal (SECURITY, DATA LOSS),
/// a backend that breaks (ERROR), other choices (INFO), the crash lane, and a fuzz divergence
/// shrunk and kept.
fn reports(kv: &Path) -> Vec<(String, Run)> {
    let wording = backend("text_editor_wording");
    let dotdot = backend("dotdot_accepted");
    let crashes = backend("crash_on_str_replace");
    let independent = format!(
        "python3 {} --overwrite --mode folder {{memories}}",
        root()
            .join("tests/backends/independent/memory.py")
            .display()
    );
    let crash_kv = format!(
        "python3 {} {{memories}}",
        root()
            .join("tests/backends/kv/crash_json_file.py")
            .display()
    );
    let clobbers = format!(
        "python3 {} {{memories}}",
        root()
            .join("tests/backends/kv/rename_clobbers.py")
            .display()
    );
    let kept = kv.join("kept").display().to_string();
    let runs: Vec<Vec<&str>> = vec![
        vec!["check", "--area", "create"],
        vec!["check", "--area", "view-file", "--backend", &wording],
        vec![
            "check",
            "--no-recheck",
            "--case",
            "paths.dotdot-only.*",
            "--case",
            "paths.nul.view",
            "--case",
            "paths.dotdot.view",
            "--backend",
            &dotdot,
        ],
        vec![
            "check",
            "--no-recheck",
            "--case",
            "view-file.b*",
            "--case",
            "str-replace.unique-replaces",
            "--case",
            "str-replace.snippet-exact",
            "--backend",
            &crashes,
        ],
        vec!["check", "--area", "create", "--backend", &independent],
        vec![
            "check",
            "--no-recheck",
            "--crash",
            "--area",
            "crash",
            "--not-on-folder",
            "--backend",
            &crash_kv,
        ],
        vec![
            "fuzz",
            "--backend",
            &clobbers,
            "--not-on-folder",
            "--seed",
            "1",
            "--steps",
            "20000",
            "-o",
            &kept,
        ],
    ];
    std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .map(|args| scope.spawn(move || human(args, Some(kv))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| panic!("a run panicked")))
            .collect()
    })
}

#[test]
fn every_label_of_a_human_report_is_explained_in_docs_reference() {
    let kv = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(kv.path().join("kept")).unwrap_or_else(|e| panic!("{e}"));
    let docs = reference_docs();
    let mut seen: BTreeSet<Label> = BTreeSet::new();
    let mut missing: BTreeSet<String> = BTreeSet::new();
    for (command, run) in reports(kv.path()) {
        // Each run gives a report: exit 0, 1 or 3, never a usage error (2).
        assert!(
            [0, 1, 3].contains(&run.code) && run.stdout.starts_with("verdict: "),
            "memspec {command}\n{}",
            run.describe()
        );
        for label in labels(&run.stdout) {
            if let Some(why) = unexplained(&docs, &label) {
                missing.insert(format!("{why}, in `memspec {command}`"));
            }
            seen.insert(label);
        }
    }
    assert!(
        missing.is_empty(),
        "not explained in docs/reference/*.md (as a code span; see report.md):\n  {}",
        missing.into_iter().collect::<Vec<_>>().join("\n  ")
    );
    // The runs reach what they are here for: a test that read nothing would pass.
    for wanted in [
        Label::Colon("lineage".to_string()),
        Label::Colon("survives crashes".to_string()),
        Label::Colon("fuzzed".to_string()),
        Label::Colon("kept".to_string()),
        Label::Colon("broke in".to_string()),
        Label::Colon("skipped".to_string()),
        Label::Tag("DATA LOSS MUST".to_string()),
        Label::Tag("SECURITY MUST".to_string()),
        Label::Tag("ERROR".to_string()),
        Label::Value("memories LOST".to_string()),
    ] {
        assert!(seen.contains(&wanted), "no {wanted:?} in {seen:?}");
    }
}

/// The reader of labels, on a report of every shape it meets.
#[test]
fn labels_are_read_from_the_lines_a_report_is_made_of() {
    let report = "verdict: NOT conformant; memories LOST: durability.crash (7 cases)
survives crashes: NO, memories LOST: `create` of /memories/notes.md

root causes: 1 rule broken
  DATA LOSS MUST   durability.crash  7 cases, first crash.x: a message: with colons
  broke  in 2 cases, first y: the backend exited

FAIL crash.x
  killed mid-write: the case's title
  rerun: memspec check --case crash.x
  reason: the backend exited; stderr: Traceback (most recent call last):
    KeyError: 'old_str'
  - `create` of /memories/a.md, killed: the message [MUST durability.crash]
  - backend ≠ reference: the message [SHOULD view.file.header]
    diff (- expected, + actual; → tab, · trailing space, ␍ CR):
      - Error: expected
      + Note: actual
  skipped 4: large files

choice (INFO): create.may-overwrite: `overwrites` (8 of 8 steps)
";
    let got: Vec<Label> = labels(report).into_iter().collect();
    let colon = |s: &str| Label::Colon(s.to_string());
    let tag = |s: &str| Label::Tag(s.to_string());
    let value = |s: &str| Label::Value(s.to_string());
    assert_eq!(
        got,
        [
            colon("backend ≠ reference"),
            colon("broke in"),
            colon("choice"),
            colon("diff"),
            colon("reason"),
            colon("rerun"),
            colon("root causes"),
            colon("skipped"),
            colon("survives crashes"),
            colon("verdict"),
            tag("DATA LOSS MUST"),
            tag("FAIL"),
            tag("MUST"),
            tag("SHOULD"),
            value("NO"),
            value("NOT conformant"),
            value("memories LOST"),
        ]
    );
    let docs = "`DATA LOSS` and `MUST`, `verdict:` `NOT conformant`";
    assert_eq!(unexplained(docs, &tag("DATA LOSS MUST")), None);
    assert!(unexplained(docs, &tag("SECURITY MUST")).is_some());
    assert_eq!(unexplained(docs, &colon("verdict")), None);
    assert!(unexplained(docs, &colon("rerun")).is_some());
    assert_eq!(unexplained(docs, &value("NOT conformant")), None);
}
