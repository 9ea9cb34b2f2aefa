//! The conformance matrix: cases by backends, and the cases on which backends disagree.
//!
//! A disagreement is a step where the backends (the reference included) did not all answer
//! the same text and flag. Where independent implementations split, the spec is often silent
//! or ambiguous there: those rows are where to look first.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::judge::grade::{CaseResult, Outcome, Phase};
use crate::protocol::ToolResult;

/// Results of one backend, named.
#[derive(Debug, Clone)]
pub struct Column {
    /// Short name shown in the header.
    pub name: String,
    /// Its results, one per selected case, in suite order.
    pub results: Vec<CaseResult>,
}

/// The matrix of outcomes.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    /// The revision of the page the cases were judged by.
    pub revision: crate::spec::Revision,
    /// Backend names, in column order (the reference first when present).
    pub backends: Vec<String>,
    /// One row per case.
    pub rows: Vec<Row>,
    /// Steps on which backends answered differently.
    pub disagreements: Vec<Disagreement>,
}

/// One case across backends.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Case id.
    pub case: String,
    /// The case's level.
    pub level: String,
    /// Outcome per backend, in column order.
    pub outcomes: Vec<Outcome>,
}

/// A step on which the answers split.
#[derive(Debug, Clone, Serialize)]
pub struct Disagreement {
    /// Case id.
    pub case: String,
    /// Step index (0-based).
    pub step: usize,
    /// The input of that step.
    pub input: serde_json::Value,
    /// Groups of backends (by column index) that gave the same answer, largest first.
    pub groups: Vec<Vec<usize>>,
    /// Whether the reference stands alone against every other backend.
    pub reference_alone: bool,
    /// Whether the backends other than the reference still disagree once a leading `Error: `
    /// is ignored (the official runners differ by that prefix on nearly every error).
    pub others_split_beyond_prefix: bool,
}

impl Matrix {
    /// Builds the matrix from columns whose results cover the same cases in the same order.
    pub fn build(columns: &[Column], revision: crate::spec::Revision) -> Matrix {
        let backends = columns.iter().map(|c| c.name.clone()).collect();
        let Some(first) = columns.first() else {
            return Matrix {
                revision,
                backends,
                rows: Vec::new(),
                disagreements: Vec::new(),
            };
        };
        let mut rows = Vec::new();
        let mut disagreements = Vec::new();
        for (i, result) in first.results.iter().enumerate() {
            let per_backend: Vec<Option<&CaseResult>> =
                columns.iter().map(|c| c.results.get(i)).collect();
            rows.push(Row {
                case: result.id.clone(),
                level: result.level.as_str().to_string(),
                outcomes: per_backend
                    .iter()
                    .map(|r| r.map_or(Outcome::Skip, |r| r.outcome))
                    .collect(),
            });
            let steps = result
                .calls
                .iter()
                .filter(|c| c.phase == Phase::Step)
                .count();
            for step in 0..steps {
                let answers: Vec<Option<&ToolResult>> = per_backend
                    .iter()
                    .map(|r| {
                        r.and_then(|r| r.calls.iter().filter(|c| c.phase == Phase::Step).nth(step))
                            .and_then(|c| c.result.as_ref())
                    })
                    .collect();
                if answers.iter().any(Option::is_none) {
                    continue; // a backend broke or skipped: that is an outcome, not an answer
                }
                let mut groups: BTreeMap<(bool, &str), Vec<usize>> = BTreeMap::new();
                for (column, answer) in answers.iter().enumerate() {
                    if let Some(answer) = answer {
                        groups
                            .entry((answer.is_error, answer.text.as_str()))
                            .or_default()
                            .push(column);
                    }
                }
                let others_split_beyond_prefix = answers
                    .iter()
                    .skip(1)
                    .flatten()
                    .map(|a| {
                        (
                            a.is_error,
                            a.text.strip_prefix("Error: ").unwrap_or(&a.text),
                        )
                    })
                    .collect::<std::collections::BTreeSet<_>>()
                    .len()
                    > 1;
                if groups.len() > 1 {
                    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
                    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
                    let reference_alone = columns.len() > 2
                        && groups.iter().any(|g| g == &vec![0])
                        && groups.len() == 2;
                    let input = result
                        .calls
                        .iter()
                        .filter(|c| c.phase == Phase::Step)
                        .nth(step)
                        .map(|c| c.input.clone())
                        .unwrap_or_default();
                    disagreements.push(Disagreement {
                        case: result.id.clone(),
                        step,
                        input,
                        groups,
                        reference_alone,
                        others_split_beyond_prefix,
                    });
                }
            }
        }
        Matrix {
            revision,
            backends,
            rows,
            disagreements,
        }
    }

    /// How many cases had `outcome` on the backend of `column`.
    fn count(&self, column: usize, outcome: Outcome) -> usize {
        self.rows
            .iter()
            .filter(|r| r.outcomes.get(column) == Some(&outcome))
            .count()
    }

    /// HTML: one self-contained page with the counts per backend, then every case as a row of
    /// outcomes (cases where the backends differ first), each cell coloured by its outcome.
    pub fn html(&self) -> String {
        use super::html::{STYLE, esc};
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
             <title>memspec matrix</title><style>{STYLE}\ntd.o-pass{{background:#e3f6e3}}td.o-fail{{background:#fde2e1}}\
             td.o-error{{background:#f3e0f7}}td.o-warn{{background:#fff4c2}}td.o-info{{background:#e3f0fb}}</style></head><body>\n\
             <h1>memspec conformance matrix</h1><p class=\"meta\">judged by revision <b>{}</b></p>\n",
            self.revision
        );
        out.push_str("<table id=\"counts\"><thead><tr><th>outcome</th>");
        for backend in &self.backends {
            let _ = write!(out, "<th>{}</th>", esc(backend));
        }
        out.push_str("</tr></thead><tbody>");
        for outcome in [
            Outcome::Fail,
            Outcome::Error,
            Outcome::Warn,
            Outcome::Info,
            Outcome::Pass,
            Outcome::Skip,
        ] {
            let _ = write!(out, "<tr><td>{}</td>", outcome.as_str());
            for column in 0..self.backends.len() {
                let _ = write!(out, "<td>{}</td>", self.count(column, outcome));
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>\n<h2>Cases</h2><table id=\"cases\"><thead><tr><th>case</th><th>level</th>");
        for backend in &self.backends {
            let _ = write!(out, "<th>{}</th>", esc(backend));
        }
        out.push_str("</tr></thead><tbody>\n");
        // Where the backends differ first: that is what a matrix is read for.
        let mut rows: Vec<&Row> = self.rows.iter().collect();
        rows.sort_by_key(|r| r.outcomes.windows(2).all(|w| w[0] == w[1]));
        for row in rows {
            let _ = write!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td>",
                esc(&row.case),
                esc(&row.level)
            );
            for outcome in &row.outcomes {
                let _ = write!(out, "<td class=\"o-{o}\">{o}</td>", o = outcome.as_str());
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></body></html>\n");
        out
    }

    /// Markdown: a count table per backend, the full case table, then the disagreements.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "## memspec conformance matrix\n\nJudged by revision `{}`.\n\n",
            self.revision
        );
        out.push_str("| outcome |");
        for b in &self.backends {
            let _ = write!(out, " {b} |");
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(self.backends.len()));
        out.push('\n');
        for outcome in [
            Outcome::Pass,
            Outcome::Warn,
            Outcome::Info,
            Outcome::Fail,
            Outcome::Error,
            Outcome::Skip,
        ] {
            let _ = write!(out, "| {} |", outcome.as_str());
            for column in 0..self.backends.len() {
                let _ = write!(out, " {} |", self.count(column, outcome));
            }
            out.push('\n');
        }
        out.push_str("\n<details><summary>Every case</summary>\n\n| case | level |");
        for b in &self.backends {
            let _ = write!(out, " {b} |");
        }
        out.push_str("\n|---|---|");
        out.push_str(&"---|".repeat(self.backends.len()));
        out.push('\n');
        for row in &self.rows {
            let _ = write!(out, "| `{}` | {} |", row.case, row.level);
            for outcome in &row.outcomes {
                let _ = write!(out, " {} |", outcome.as_str());
            }
            out.push('\n');
        }
        out.push_str("\n</details>\n");
        let _ = writeln!(
            out,
            "\n### Disagreements ({} steps)\n",
            self.disagreements.len()
        );
        out.push_str(&self.disagreement_summary());
        out.push_str("<details><summary>Every disagreement</summary>\n\nBackends grouped by identical answers (text and `is_error`), largest group first.\n\n| case | step | groups |\n|---|---|---|\n");
        for d in &self.disagreements {
            let groups: Vec<String> = d
                .groups
                .iter()
                .map(|g| {
                    g.iter()
                        .map(|&i| self.backends[i].as_str())
                        .collect::<Vec<_>>()
                        .join(" + ")
                })
                .collect();
            let alone = if d.reference_alone {
                " (reference alone)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {}{alone} |",
                d.case,
                d.step + 1,
                groups.join(" ≠ ")
            );
        }
        out.push_str("\n</details>\n");
        out
    }

    /// Disagreements per area: where the reference stands alone against implementations that
    /// agree (a decision of ours, or a shared habit of theirs), and where the other
    /// implementations split among themselves (the spec leaves room there).
    fn disagreement_summary(&self) -> String {
        let mut per_area: BTreeMap<&str, (usize, usize, usize, usize)> = BTreeMap::new();
        for d in &self.disagreements {
            let area = d.case.split('.').next().unwrap_or_default();
            let entry = per_area.entry(area).or_default();
            entry.0 += 1;
            if d.reference_alone {
                entry.1 += 1;
            }
            // The others split when they do not all sit in one group.
            let others_split = d
                .groups
                .iter()
                .filter(|g| g.iter().any(|&i| i != 0))
                .count()
                > 1;
            if others_split {
                entry.2 += 1;
            }
            if d.others_split_beyond_prefix {
                entry.3 += 1;
            }
        }
        let mut out = String::from(
            "| area | steps | reference alone | the others split | … beyond the `Error: ` prefix |\n|---|---|---|---|---|\n",
        );
        for (area, (steps, alone, split, beyond)) in per_area {
            let _ = writeln!(out, "| {area} | {steps} | {alone} | {split} | {beyond} |");
        }
        out.push('\n');
        out
    }

    /// JSON of the whole matrix.
    pub fn json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}
