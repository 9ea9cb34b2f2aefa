//! Known lineages: the few implementations most backends in the wild descend from, recognised
//! from the backend's own answers so that a report can say once "this is the Python SDK helper's
//! wording, and it explains 212 findings" instead of showing the same family of differences
//! hundreds of times.
//!
//! A lineage explains findings; it never excuses one. Nothing here changes a level, an outcome
//! or a verdict: reports only name the lineages next to the findings, which stay as graded.
//!
//! The signatures are data (`spec/lineages.json`, compiled in through [`crate::builtin`]) so that
//! a new lineage or a new string is one JSON edit, reviewed with the research it comes from. The
//! table is not replaced by `--spec`: it describes implementations, not the spec, and a spec
//! folder copied from an older memspec should not silently lose it.

use std::sync::OnceLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Finding;
use super::grade::{CaseResult, Outcome};
use crate::builtin;

/// How much one matching finding says about a lineage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Strength {
    /// Consistent with the lineage, and with others: explains findings of a lineage recognised
    /// by other signatures, never recognises it.
    Supporting,
    /// Typical of the lineage: two matching findings recognise it.
    Typical,
    /// Found in no other known implementation: one matching finding recognises the lineage.
    Distinctive,
}

/// How many typical findings it takes to recognise a lineage without a distinctive one: one
/// string that several implementations might share is a coincidence, two are a family.
const TYPICAL_NEEDED: usize = 2;

/// How much of a finding's actual text signatures see. A wording shows in an answer's first
/// lines; a million-line view would otherwise be scanned once per signature.
const SEEN_BYTES: usize = 16 * 1024;

/// How much of a sample answer a report shows.
const SAMPLE_CHARS: usize = 72;

/// One lineage recognised in a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Lineage {
    /// Stable id (`python-sdk`).
    pub id: String,
    /// Its name, as reports show it.
    pub name: String,
    /// What its wording is like.
    pub description: String,
    /// Where it comes from (package, file, version).
    pub source: String,
    /// Findings it explains (each finding is explained by at most one lineage).
    pub findings: usize,
    /// Findings considered in the run (the same set root causes count from).
    pub of: usize,
    /// Cases with a finding it explains.
    pub cases: usize,
    /// The first finding it explains with its strongest signature, in suite order.
    pub sample: Sample,
}

impl Lineage {
    /// Whether it explains at least half of the run's findings, the share at which the human and
    /// Markdown reports name it on their first screen. Below it the lineage is one strand of the
    /// backend's findings, not what they are: a backend of its own whose few error texts happen
    /// to match the SDK helper's would otherwise open its report with the helper's name
    /// (`explains 3 of 113 findings`). The JSON report lists every lineage recognised, with both
    /// counts.
    pub fn explains_most(&self) -> bool {
        self.findings.saturating_mul(2) >= self.of
    }
}

/// A finding a lineage explains, for a report to quote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Sample {
    /// The case (or replay step) it was found in.
    pub case: String,
    /// The rule the finding is graded under.
    pub rule: String,
    /// The first line of the backend's answer, cut to a report's width.
    pub actual: String,
}

/// One finding with the case it belongs to.
#[derive(Debug, Clone, Copy)]
pub struct Located<'a> {
    /// The case id (or, in a replay, the step).
    pub case: &'a str,
    /// The finding.
    pub finding: &'a Finding,
}

/// The lineages recognised in a run's findings, most findings first. Findings are taken from
/// the results root causes are counted from: not skipped, not accepted by a baseline.
pub fn recognise(results: &[CaseResult]) -> Vec<Lineage> {
    let located: Vec<Located<'_>> = results
        .iter()
        .filter(|r| r.outcome != Outcome::Skip && r.baselined.is_none())
        .flat_map(|r| {
            r.findings.iter().map(|finding| Located {
                case: r.id.as_str(),
                finding,
            })
        })
        .collect();
    recognise_findings(&located)
}

/// The lineages recognised in `findings` with the built-in table (none if the table cannot be
/// read, which a unit test rules out for the table this binary was built with).
pub fn recognise_findings(findings: &[Located<'_>]) -> Vec<Lineage> {
    match LineageTable::builtin() {
        Ok(table) => table.recognise(findings),
        Err(_) => Vec::new(),
    }
}

/// The known lineages and their signatures.
#[derive(Debug)]
pub struct LineageTable {
    lineages: Vec<Known>,
}

#[derive(Debug)]
struct Known {
    id: String,
    name: String,
    description: String,
    source: String,
    signatures: Vec<Signature>,
}

#[derive(Debug)]
struct Signature {
    test: Test,
    strength: Strength,
}

#[derive(Debug)]
enum Test {
    /// The finding names this dialect (alone or among others).
    Dialect(String),
    /// The actual text matches, and the expected one too when given.
    Text {
        actual: Regex,
        expected: Option<Regex>,
    },
}

/// Implementations many backends in the wild descend from, each recognised by signatures in a
/// backend's answers (`spec/lineages.json`). A report names a lineage once with the findings it
/// explains; a lineage never changes a grade.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineagesFile {
    /// A remark for people.
    #[serde(rename = "$comment")]
    pub comment: Option<String>,
    /// The lineages; ids are unique.
    #[schemars(length(min = 1))]
    pub lineages: Vec<RawLineage>,
}

/// One known lineage.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Lineage")]
pub struct RawLineage {
    /// Stable id (`python-sdk`).
    #[schemars(regex(pattern = crate::schema::SLUG))]
    pub id: String,
    /// Shown in reports.
    #[schemars(length(min = 1))]
    pub name: String,
    /// What its wording is like.
    pub description: String,
    /// Where its strings come from.
    pub source: String,
    /// How it is recognised.
    #[schemars(length(min = 1))]
    pub signatures: Vec<RawSignature>,
}

/// One signature: a dialect the cases name, or a regex searched in a finding's actual text.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("oneOf" = [
    { "required": ["dialect"], "not": { "anyOf": [{ "required": ["regex"] }, { "required": ["expected"] }] } },
    { "required": ["regex"], "not": { "required": ["dialect"] } }
]))]
#[schemars(rename = "Signature")]
pub struct RawSignature {
    /// A dialect name the cases give a finding's text.
    pub dialect: Option<String>,
    /// Searched in a finding's actual text (Rust regex syntax).
    pub regex: Option<String>,
    /// With `regex`: the finding's expected text must match it too.
    pub expected: Option<String>,
    /// `distinctive`: one matching finding recognises the lineage; `typical`: two are needed;
    /// `supporting`: explains findings once recognised, never recognises.
    pub strength: Strength,
}

impl LineageTable {
    /// The table compiled into this binary (`spec/lineages.json`), parsed once.
    pub fn builtin() -> Result<&'static LineageTable, &'static str> {
        static TABLE: OnceLock<Result<LineageTable, String>> = OnceLock::new();
        TABLE
            .get_or_init(|| LineageTable::parse(builtin::LINEAGES))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Parses a lineage file; errors name the lineage and the signature.
    pub fn parse(text: &str) -> Result<LineageTable, String> {
        let raw: LineagesFile = serde_json::from_str(text).map_err(|e| format!("lineages: {e}"))?;
        let mut lineages: Vec<Known> = Vec::new();
        for lineage in raw.lineages {
            if lineages.iter().any(|l| l.id == lineage.id) {
                return Err(format!("lineage `{}` is defined twice", lineage.id));
            }
            if lineage.signatures.is_empty() {
                return Err(format!("lineage `{}` has no signature", lineage.id));
            }
            let mut signatures = Vec::new();
            for (i, sig) in lineage.signatures.into_iter().enumerate() {
                let at = || format!("lineage `{}`, signature {}", lineage.id, i + 1);
                let compile = |pattern: &str| {
                    Regex::new(pattern).map_err(|e| format!("{}: bad regex: {e}", at()))
                };
                let test = match (sig.dialect, sig.regex) {
                    (Some(name), None) if sig.expected.is_none() => Test::Dialect(name),
                    (None, Some(pattern)) => Test::Text {
                        actual: compile(&pattern)?,
                        expected: sig.expected.as_deref().map(compile).transpose()?,
                    },
                    _ => {
                        return Err(format!(
                            "{}: needs exactly one of `dialect` or `regex` (`expected` only with `regex`)",
                            at()
                        ));
                    }
                };
                signatures.push(Signature {
                    test,
                    strength: sig.strength,
                });
            }
            lineages.push(Known {
                id: lineage.id,
                name: lineage.name,
                description: lineage.description,
                source: lineage.source,
                signatures,
            });
        }
        Ok(LineageTable { lineages })
    }

    /// The dialect names the table's signatures use, for checking them against the cases'.
    pub fn dialects(&self) -> impl Iterator<Item = &str> {
        self.lineages
            .iter()
            .flat_map(|l| &l.signatures)
            .filter_map(|s| match &s.test {
                Test::Dialect(name) => Some(name.as_str()),
                Test::Text { .. } => None,
            })
    }

    /// The lineages recognised in `findings`, most findings first.
    ///
    /// A lineage is recognised when a distinctive signature matches one finding, or typical
    /// ones match [`TYPICAL_NEEDED`] findings. Each finding is then explained by at most one
    /// recognised lineage: the one whose signature matches it most specifically (a dialect the
    /// finding shares with other implementations counts as supporting only), ties going to the
    /// lineage with more evidence in the run, then to the table's order. A lineage left with too
    /// little evidence among the findings it explains is dropped and the rest attributed again.
    pub fn recognise(&self, findings: &[Located<'_>]) -> Vec<Lineage> {
        // strength[f][l]: how specifically lineage l matches finding f, if at all.
        let strength: Vec<Vec<Option<Strength>>> = findings
            .iter()
            .map(|located| {
                self.lineages
                    .iter()
                    .map(|lineage| lineage.best_match(located.finding))
                    .collect()
            })
            .collect();
        let evidence: Vec<usize> = (0..self.lineages.len())
            .map(|l| {
                strength
                    .iter()
                    .filter(|row| row[l] >= Some(Strength::Typical))
                    .count()
            })
            .collect();
        let mut recognised: Vec<bool> = (0..self.lineages.len())
            .map(|l| enough(strength.iter().map(|row| row[l])))
            .collect();
        let mut attributed: Vec<Option<usize>> = vec![None; findings.len()];
        // Each round only drops lineages, so this ends within one round per lineage.
        for _ in 0..=self.lineages.len() {
            attributed = strength
                .iter()
                .map(|row| {
                    (0..self.lineages.len())
                        .filter(|&l| recognised[l])
                        .filter_map(|l| row[l].map(|s| (l, s)))
                        .max_by(|(a, sa), (b, sb)| {
                            sa.cmp(sb)
                                .then(evidence[*a].cmp(&evidence[*b]))
                                .then(b.cmp(a))
                        })
                        .map(|(l, _)| l)
                })
                .collect();
            let still: Vec<bool> = (0..self.lineages.len())
                .map(|l| {
                    recognised[l]
                        && enough(
                            strength
                                .iter()
                                .zip(&attributed)
                                .filter(|(_, a)| **a == Some(l))
                                .map(|(row, _)| row[l]),
                        )
                })
                .collect();
            if still == recognised {
                break;
            }
            recognised = still;
        }
        let mut out: Vec<Lineage> = Vec::new();
        for (l, known) in self.lineages.iter().enumerate() {
            let explained: Vec<&Located<'_>> = findings
                .iter()
                .zip(&attributed)
                .filter(|(_, a)| **a == Some(l))
                .map(|(f, _)| f)
                .collect();
            // The sample is the first finding matched by the lineage's strongest signature: the
            // one that shows best why the lineage was named.
            let strongest = findings
                .iter()
                .zip(&attributed)
                .zip(&strength)
                .filter(|((_, a), _)| **a == Some(l))
                .map(|(_, row)| row[l])
                .max()
                .flatten();
            let sample = findings
                .iter()
                .zip(&attributed)
                .zip(&strength)
                .find(|((_, a), row)| **a == Some(l) && row[l] == strongest)
                .map(|((f, _), _)| f);
            let Some(first) = sample else {
                continue;
            };
            let mut cases: Vec<&str> = explained.iter().map(|f| f.case).collect();
            cases.sort_unstable();
            cases.dedup();
            out.push(Lineage {
                id: known.id.clone(),
                name: known.name.clone(),
                description: known.description.clone(),
                source: known.source.clone(),
                findings: explained.len(),
                of: findings.len(),
                cases: cases.len(),
                sample: Sample {
                    case: first.case.to_string(),
                    rule: first.finding.rule.to_string(),
                    actual: first_line(first.finding.actual.as_deref().unwrap_or_default()),
                },
            });
        }
        // Stable: equal counts keep the table's order.
        out.sort_by_key(|l| std::cmp::Reverse(l.findings));
        out
    }
}

/// Whether these matches recognise a lineage: one distinctive, or enough typical ones.
fn enough(matches: impl Iterator<Item = Option<Strength>>) -> bool {
    let mut typical = 0;
    for strength in matches.flatten() {
        match strength {
            Strength::Distinctive => return true,
            Strength::Typical => typical += 1,
            Strength::Supporting => {}
        }
    }
    typical >= TYPICAL_NEEDED
}

impl Known {
    /// The strongest of this lineage's signatures that matches `finding`.
    fn best_match(&self, finding: &Finding) -> Option<Strength> {
        let dialects: Vec<&str> = finding
            .dialect
            .as_deref()
            .map(|d| d.split(" / ").collect())
            .unwrap_or_default();
        let actual = finding.actual.as_deref().map(head);
        let expected = finding.expected.as_deref().map(head);
        self.signatures
            .iter()
            .filter_map(|sig| match &sig.test {
                Test::Dialect(name) if dialects.contains(&name.as_str()) => {
                    // A text several implementations share tells none of them apart.
                    if dialects.len() > 1 {
                        Some(Strength::Supporting)
                    } else {
                        Some(sig.strength)
                    }
                }
                Test::Dialect(_) => None,
                Test::Text {
                    actual: pattern,
                    expected: wanted,
                } => {
                    let actual_matches = actual.is_some_and(|a| pattern.is_match(a));
                    let expected_matches = match wanted {
                        Some(wanted) => expected.is_some_and(|e| wanted.is_match(e)),
                        None => true,
                    };
                    (actual_matches && expected_matches).then_some(sig.strength)
                }
            })
            .max()
    }
}

/// The first [`SEEN_BYTES`] bytes of `text`, cut at a character boundary.
fn head(text: &str) -> &str {
    if text.len() <= SEEN_BYTES {
        return text;
    }
    let mut end = SEEN_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The first line of an answer, cut to [`SAMPLE_CHARS`] characters with `…`.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() <= SAMPLE_CHARS {
        line.to_string()
    } else {
        let cut: String = line.chars().take(SAMPLE_CHARS).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Check;
    use crate::spec::Level;
    use crate::spec::known;

    fn text_finding(actual: &str, dialect: Option<&str>) -> Finding {
        Finding::new(
            Check::Text,
            Level::Should,
            known::TERMINATES,
            "the text differs from the expected one".to_string(),
        )
        .at(Some(0))
        .expecting("Error: The path /memories/x does not exist".to_string())
        .actually(actual.to_string())
        .in_dialect(dialect.map(str::to_string))
    }

    fn located<'a>(findings: &'a [(String, Finding)]) -> Vec<Located<'a>> {
        findings
            .iter()
            .map(|(case, finding)| Located {
                case: case.as_str(),
                finding,
            })
            .collect()
    }

    #[test]
    fn the_builtin_table_reads_and_names_only_dialects_the_cases_use() {
        let table = LineageTable::builtin();
        assert!(table.is_ok(), "{:?}", table.err());
        let Ok(table) = table else { return };
        assert!(table.lineages.len() >= 6);
        let cases: String = builtin::CASES.iter().map(|(_, text)| *text).collect();
        for dialect in table.dialects() {
            let generic = ["error-prefix-missing", "error-prefix-added"].contains(&dialect);
            assert!(
                generic || cases.contains(&format!("\"name\": \"{dialect}\"")),
                "lineages.json names the dialect `{dialect}`, which no case gives"
            );
        }
    }

    #[test]
    fn a_malformed_table_is_refused_with_the_signature_named() {
        let bad = r#"{"lineages": [{"id": "x", "name": "X", "description": "", "source": "",
            "signatures": [{"regex": "(", "strength": "typical"}]}]}"#;
        let err = LineageTable::parse(bad).err().unwrap_or_default();
        assert!(err.contains("lineage `x`, signature 1: bad regex"), "{err}");
        let both = r#"{"lineages": [{"id": "x", "name": "X", "description": "", "source": "",
            "signatures": [{"regex": "a", "dialect": "b", "strength": "typical"}]}]}"#;
        assert!(LineageTable::parse(both).is_err());
    }

    /// The SDK dialect findings the cases name: a Python SDK run's findings go to the Python
    /// lineage, shared texts included, and the generic `Error:`-prefix dialect only supports it.
    #[test]
    fn sdk_dialect_findings_name_their_sdk_once() {
        let findings: Vec<(String, Finding)> = vec![
            (
                "create.exists-is-error".to_string(),
                text_finding(
                    "File /memories/notes.txt already exists",
                    Some("python-sdk"),
                ),
            ),
            (
                "view-dir.header".to_string(),
                text_finding(
                    "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n4K\t/memories",
                    Some("python-sdk"),
                ),
            ),
            (
                "str-replace.snippet".to_string(),
                text_finding(
                    "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tx",
                    Some("python-sdk / typescript-sdk"),
                ),
            ),
            (
                "delete.missing".to_string(),
                text_finding(
                    "The path /memories/x does not exist",
                    Some("error-prefix-missing"),
                ),
            ),
            (
                "view-file.other".to_string(),
                text_finding("something else entirely", None),
            ),
        ];
        let table = LineageTable::builtin();
        let Ok(table) = table else {
            panic!("built-in lineages: {:?}", table.err())
        };
        let lineages = table.recognise(&located(&findings));
        let summary: Vec<(&str, usize, usize)> = lineages
            .iter()
            .map(|l| (l.id.as_str(), l.findings, l.of))
            .collect();
        assert_eq!(summary, [("python-sdk", 4, 5)]);
        // The sample shows the distinctive string, not merely the first finding.
        assert_eq!(lineages[0].sample.case, "view-dir.header");

        // The same shared snippet in a TypeScript run goes to TypeScript.
        let ts: Vec<(String, Finding)> = vec![
            (
                "a".to_string(),
                text_finding(
                    "Error: The path /memories/x does not exist. Please provide a valid path.",
                    Some("typescript-sdk"),
                ),
            ),
            (
                "b".to_string(),
                text_finding("Error: frobnicate not implemented", Some("typescript-sdk")),
            ),
            (
                "c".to_string(),
                text_finding(
                    "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tx",
                    Some("python-sdk / typescript-sdk"),
                ),
            ),
        ];
        let lineages = table.recognise(&located(&ts));
        let summary: Vec<(&str, usize)> = lineages
            .iter()
            .map(|l| (l.id.as_str(), l.findings))
            .collect();
        assert_eq!(summary, [("typescript-sdk", 3)]);
    }

    #[test]
    fn one_typical_string_alone_recognises_nothing_and_a_distinctive_one_does() {
        let one: Vec<(String, Finding)> = vec![(
            "a".to_string(),
            text_finding("File deleted: /memories/x", None),
        )];
        let table = LineageTable::builtin();
        let Ok(table) = table else {
            panic!("built-in lineages: {:?}", table.err())
        };
        assert_eq!(table.recognise(&located(&one)), []);
        let distinctive: Vec<(String, Finding)> = vec![(
            "a".to_string(),
            text_finding("Error: unknown command frobnicate", None),
        )];
        let lineages = table.recognise(&located(&distinctive));
        assert_eq!(lineages.len(), 1);
        assert_eq!(lineages[0].id, "ga-demo");
        // `expected` narrows a signature: the demo's answer to a missing file, not to a miss.
        let verbatim =
            "No replacement was performed, old_str `a` did not appear verbatim in /memories/x.";
        let mut miss = text_finding(verbatim, None);
        miss.expected = Some("something else".to_string());
        let pair: Vec<(String, Finding)> =
            vec![("a".to_string(), miss.clone()), ("b".to_string(), miss)];
        assert_eq!(table.recognise(&located(&pair)), []);
    }

    #[test]
    fn a_lineage_is_named_first_when_it_explains_at_least_half() {
        let table = LineageTable::builtin();
        let Ok(table) = table else {
            panic!("built-in lineages: {:?}", table.err())
        };
        let distinctive = text_finding("Error: unknown command frobnicate", None);
        let other = text_finding("something else entirely", None);
        let run = |others: usize| -> Vec<bool> {
            let mut findings = vec![("a".to_string(), distinctive.clone())];
            findings.extend((0..others).map(|i| (format!("o{i}"), other.clone())));
            table
                .recognise(&located(&findings))
                .iter()
                .map(Lineage::explains_most)
                .collect()
        };
        // 1 of 2 is half; 1 of 3 is a strand, recognised still (the JSON report lists it).
        assert_eq!(run(1), [true]);
        assert_eq!(run(2), [false]);
    }

    #[test]
    fn huge_answers_are_matched_on_their_head_and_samples_are_one_short_line() {
        let long = format!("1|{}\n2|b", "x".repeat(200));
        assert_eq!(first_line(&long).chars().count(), SAMPLE_CHARS + 1);
        let big = "é".repeat(SEEN_BYTES);
        assert!(head(&big).len() <= SEEN_BYTES);
    }
}
