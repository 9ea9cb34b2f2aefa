//! Condensed diffs: long unchanged runs collapsed around the changes, and a cap on how many
//! diff lines are drawn.

use similar::{DiffOp, TextDiff};

use super::lines::{as_diffed, op_lines};
use super::{DiffLine, Glyphs};

/// Unchanged lines kept around each change in a [`condensed`] diff.
pub const CONTEXT_LINES: usize = 3;

/// One line of a [`condensed`] diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condensed {
    /// A diff line.
    Line(DiffLine),
    /// A run of this many unchanged lines, left out.
    Unchanged(usize),
}

/// A diff with long unchanged runs collapsed and, optionally, a cap on its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CondensedDiff {
    /// What to show, in order.
    pub lines: Vec<Condensed>,
    /// Diff lines (changes and their context) left out by the cap.
    pub omitted: usize,
}

/// Like [`diff_with`], but unchanged runs longer than twice [`CONTEXT_LINES`] collapse into
/// [`Condensed::Unchanged`], and at most `max_lines` diff lines are drawn (the rest counted in
/// `omitted`). Lines past the cap are never drawn, so a diff of a million-line text costs the
/// line diff alone.
///
/// [`diff_with`]: super::diff_with
pub fn condensed(
    expected: &str,
    actual: &str,
    glyphs: Glyphs,
    max_lines: Option<usize>,
) -> CondensedDiff {
    let (expected, actual) = as_diffed(expected, actual);
    let (expected, actual) = (expected.as_ref(), actual.as_ref());
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(500))
        .diff_lines(expected, actual);
    let newline_differs = expected.ends_with('\n') != actual.ends_with('\n');
    let mut budget = max_lines.unwrap_or(usize::MAX);
    let mut lines = Vec::new();
    let mut omitted = 0usize;
    // Where the previous group ended in the expected text, to count the lines skipped.
    let mut old_end = 0usize;
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let Some(first) = group.first() else { continue };
        let gap = first.old_range().start.saturating_sub(old_end);
        if gap > 0 && budget > 0 {
            lines.push(Condensed::Unchanged(gap));
        }
        for op in &group {
            old_end = op.old_range().end;
            let (old_len, new_len) = (op.old_range().len(), op.new_range().len());
            let size = match op {
                DiffOp::Equal { .. } => old_len,
                _ => old_len + new_len,
            };
            if size <= budget {
                budget -= size;
                lines.extend(
                    op_lines(&diff, op, glyphs, newline_differs)
                        .into_iter()
                        .map(Condensed::Line),
                );
                continue;
            }
            let clipped = clip(*op, budget);
            let shown = match clipped {
                DiffOp::Equal { len, .. } => len,
                other => other.old_range().len() + other.new_range().len(),
            };
            if shown > 0 {
                lines.extend(
                    op_lines(&diff, &clipped, glyphs, newline_differs)
                        .into_iter()
                        .map(Condensed::Line),
                );
            }
            budget = 0;
            omitted += size - shown;
        }
    }
    let old_len = diff.ops().last().map_or(0, |op| op.old_range().end);
    let tail = old_len.saturating_sub(old_end);
    if tail > 0 && budget > 0 && !lines.is_empty() {
        lines.push(Condensed::Unchanged(tail));
    }
    CondensedDiff { lines, omitted }
}

/// The first `budget` lines of an operation; a replacement keeps some of both sides.
fn clip(op: DiffOp, budget: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index,
            new_index,
            len: len.min(budget),
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index,
            old_len: old_len.min(budget),
            new_index,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index,
            new_index,
            new_len: new_len.min(budget),
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => {
            // Half the budget for each side, more for one when the other is short.
            let old_shown = old_len.min((budget / 2).max(budget.saturating_sub(new_len)));
            let new_shown = new_len.min(budget - old_shown);
            DiffOp::Replace {
                old_index,
                old_len: old_shown,
                new_index,
                new_len: new_shown,
            }
        }
    }
}
