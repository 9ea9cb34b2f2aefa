//! A diff laid out side by side, and the line numbers of a unified one.

use super::{DiffLine, LineTag};

/// One side of a side-by-side row: the line and its number on that side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbered {
    /// 1-based line number in its text.
    pub number: usize,
    /// The line.
    pub line: DiffLine,
}

/// A row of a side-by-side diff: expected on the left, actual on the right; a side is `None`
/// where the other side has a line the first lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The expected text's line.
    pub left: Option<Numbered>,
    /// The actual text's line.
    pub right: Option<Numbered>,
}

/// Lays a diff out side by side: equal lines face each other, and within a changed block the
/// n-th removed line faces the n-th added one (which is what word emphasis was computed on).
pub fn side_by_side(lines: &[DiffLine]) -> Vec<Row> {
    let mut rows = Vec::with_capacity(lines.len());
    let (mut left_number, mut right_number) = (0, 0);
    let mut i = 0;
    while i < lines.len() {
        if lines[i].tag == LineTag::Same {
            left_number += 1;
            right_number += 1;
            rows.push(Row {
                left: Some(Numbered {
                    number: left_number,
                    line: lines[i].clone(),
                }),
                right: Some(Numbered {
                    number: right_number,
                    line: lines[i].clone(),
                }),
            });
            i += 1;
            continue;
        }
        let end = lines[i..]
            .iter()
            .position(|l| l.tag == LineTag::Same)
            .map_or(lines.len(), |n| i + n);
        let mut left = Vec::new();
        let mut right = Vec::new();
        for line in &lines[i..end] {
            if line.tag == LineTag::Expected {
                left_number += 1;
                left.push(Numbered {
                    number: left_number,
                    line: line.clone(),
                });
            } else {
                right_number += 1;
                right.push(Numbered {
                    number: right_number,
                    line: line.clone(),
                });
            }
        }
        let height = left.len().max(right.len());
        let mut left = left.into_iter();
        let mut right = right.into_iter();
        for _ in 0..height {
            rows.push(Row {
                left: left.next(),
                right: right.next(),
            });
        }
        i = end;
    }
    rows
}

/// Line numbers of a unified diff: (expected's, actual's); one is `None` on a changed line.
pub fn numbers(lines: &[DiffLine]) -> Vec<(Option<usize>, Option<usize>)> {
    let (mut left, mut right) = (0, 0);
    lines
        .iter()
        .map(|line| match line.tag {
            LineTag::Same => {
                left += 1;
                right += 1;
                (Some(left), Some(right))
            }
            LineTag::Expected => {
                left += 1;
                (Some(left), None)
            }
            LineTag::Actual => {
                right += 1;
                (None, Some(right))
            }
        })
        .collect()
}
