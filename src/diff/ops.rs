//! The line diff of two texts as `similar`'s `TextDiff::diff_lines` computes it, op for op, in
//! a fraction of its memory on long texts.
//!
//! `TextDiff` keeps every line as a `&str` (16 bytes a line) and, past 100 lines, numbers the
//! distinct lines of the expected side in a hash map: a million distinct lines there cost about
//! 190 MiB and most of a second, whatever the other side holds. Here the lines are found by
//! their start offsets, and only the distinct lines of the smaller side are numbered; a line of
//! the larger side that is not among them gets one number shared by all such lines, as
//! `TextDiff` already does for the lines found only in the actual side. Myers compares a line of
//! one side with lines of the other only, so the numbers lead it to the same ops; the rest of
//! the pipeline (the common prefix and suffix, compaction over the real lines, replaces) is
//! `TextDiff`'s own, through `similar`'s public hooks. A test holds the two to the same ops, so
//! that an upgrade of `similar` that parts them shows.

use std::collections::HashMap;
use std::ops::{Index, Range};
use std::time::{Duration, Instant};

use similar::algorithms::{Capture, Compact, DiffHook, NoFinishHook, Replace, diff_deadline};
use similar::{Algorithm, DiffOp, TextDiff};

/// Up to this many lines on both sides, `TextDiff` diffs the lines themselves without
/// numbering them, and it is used as it is.
const SMALL: usize = 100;

/// The ops of the line diff of `expected` against `actual`, as
/// `TextDiff::configure().timeout(timeout).diff_lines(expected, actual).ops()` gives them.
pub fn line_ops(expected: &str, actual: &str, timeout: Duration) -> Vec<DiffOp> {
    let (old, new) = (Lines::new(expected), Lines::new(actual));
    // Numbers are u32: a side of 4 billion lines (4 GB at least) is left to `TextDiff`.
    let too_many = old.len().max(new.len()) >= u32::MAX as usize;
    if (old.len() <= SMALL && new.len() <= SMALL) || too_many {
        return TextDiff::configure()
            .timeout(timeout)
            .diff_lines(expected, actual)
            .ops()
            .to_vec();
    }
    let deadline = Instant::now().checked_add(timeout);
    let prefix = (0..old.len().min(new.len()))
        .take_while(|&i| old[i] == new[i])
        .count();
    let suffix = (0..(old.len() - prefix).min(new.len() - prefix))
        .take_while(|&i| old[old.len() - 1 - i] == new[new.len() - 1 - i])
        .count();
    let old_middle = prefix..old.len() - suffix;
    let new_middle = prefix..new.len() - suffix;
    // As `TextDiff`: compaction and replaces see the whole texts, the search the middles only.
    let mut d = Compact::new(Replace::new(Capture::new()), &old, &new);
    if prefix > 0 {
        let Ok(()) = d.equal(0, 0, prefix);
    }
    match (old_middle.is_empty(), new_middle.is_empty()) {
        (false, false) => {
            let mut middle = NoFinishHook::new(&mut d);
            // Past `SMALL` lines `TextDiff` compares numbers standing for the lines, below it
            // the lines themselves; either way Myers finds the same ops.
            let Ok(()) = if old_middle.len() > SMALL || new_middle.len() > SMALL {
                let (old_ids, new_ids) = number(&old, old_middle.clone(), &new, new_middle.clone());
                diff_deadline(
                    Algorithm::Myers,
                    &mut middle,
                    &old_ids,
                    old_middle,
                    &new_ids,
                    new_middle,
                    deadline,
                )
            } else {
                diff_deadline(
                    Algorithm::Myers,
                    &mut middle,
                    &old,
                    old_middle,
                    &new,
                    new_middle,
                    deadline,
                )
            };
        }
        (false, true) => {
            let Ok(()) = d.delete(old_middle.start, old_middle.len(), new_middle.start);
        }
        (true, false) => {
            let Ok(()) = d.insert(old_middle.start, new_middle.start, new_middle.len());
        }
        (true, true) => {}
    }
    if suffix > 0 {
        let Ok(()) = d.equal(old.len() - suffix, new.len() - suffix, suffix);
    }
    let Ok(()) = d.finish();
    d.into_inner().into_inner().into_ops()
}

/// A text's lines as `TextDiff` cuts them: each keeps its terminator (`\n`, `\r\n` or a lone
/// `\r`), and a last line without one counts.
struct Lines<'t> {
    text: &'t str,
    /// Where each line starts, then the text's end.
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Lines<'t> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            // The `\r` of a `\r\n` does not end a line: its `\n` does.
            if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                continue;
            }
            starts.push(at + 1);
        }
        if starts.last() != Some(&text.len()) {
            starts.push(text.len());
        }
        Lines { text, starts }
    }

    fn len(&self) -> usize {
        self.starts.len() - 1
    }
}

impl Index<usize> for Lines<'_> {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        &self.text[self.starts[i]..self.starts[i + 1]]
    }
}

/// Numbers for the lines of a range of one side, indexed as the side's lines are.
struct Numbers {
    first: usize,
    numbers: Vec<u32>,
}

impl Index<usize> for Numbers {
    type Output = u32;

    fn index(&self, i: usize) -> &u32 {
        &self.numbers[i - self.first]
    }
}

/// Numbers the middles' lines so that two lines of different sides have the same number if and
/// only if they are equal: the smaller side's distinct lines each get their own, and every line
/// of the larger side found among none of them gets one more.
fn number(
    old: &Lines<'_>,
    old_range: Range<usize>,
    new: &Lines<'_>,
    new_range: Range<usize>,
) -> (Numbers, Numbers) {
    let old_smaller = old_range.len() <= new_range.len();
    let (small, small_range, large, large_range) = if old_smaller {
        (old, old_range, new, new_range)
    } else {
        (new, new_range, old, old_range)
    };
    let mut known: HashMap<&str, u32> = HashMap::with_capacity(small_range.len());
    let small_numbers = Numbers {
        first: small_range.start,
        numbers: small_range
            .map(|i| {
                // Fewer lines than u32::MAX (checked by the caller).
                let next = known.len() as u32;
                *known.entry(&small[i]).or_insert(next)
            })
            .collect(),
    };
    let unmatched = known.len() as u32;
    let large_numbers = Numbers {
        first: large_range.start,
        numbers: large_range
            .map(|i| known.get(&large[i]).copied().unwrap_or(unmatched))
            .collect(),
    };
    if old_smaller {
        (small_numbers, large_numbers)
    } else {
        (large_numbers, small_numbers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_diff(expected: &str, actual: &str) -> Vec<DiffOp> {
        TextDiff::configure()
            .timeout(Duration::from_secs(60))
            .diff_lines(expected, actual)
            .ops()
            .to_vec()
    }

    /// A text of `n` lines drawn from a few (so that lines repeat and alignments tie), with
    /// every kind of line end.
    fn text(seed: &mut u64, n: usize, alphabet: u64) -> String {
        let mut out = String::new();
        for _ in 0..n {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let pick = (*seed >> 33) % alphabet;
            out.push_str(&format!("line {pick}"));
            out.push_str(match (*seed >> 20) % 16 {
                0 => "\r\n",
                1 => "\r",
                _ => "\n",
            });
        }
        if (*seed >> 40).is_multiple_of(2) {
            out.pop();
        }
        out
    }

    #[test]
    fn the_ops_are_text_diffs() {
        let mut seed = 7;
        let sizes = [
            (0, 150),
            (150, 0),
            (1, 400),
            (400, 1),
            (101, 99),
            (300, 320),
            (700, 650),
            (2000, 40),
        ];
        for (old_len, new_len) in sizes {
            for alphabet in [3, 20, 1000] {
                let old = text(&mut seed, old_len, alphabet);
                // Half the time the actual side is an edit of the expected one.
                let new = if (seed >> 7).is_multiple_of(2) {
                    let mut lines: Vec<&str> = old.split_inclusive('\n').collect();
                    let cut = lines.len() / 3;
                    lines.truncate(lines.len().min(new_len));
                    let extra = text(&mut seed, new_len.saturating_sub(lines.len()) / 2, alphabet);
                    let mut edited: String = lines[..cut.min(lines.len())].concat();
                    edited.push_str(&extra);
                    edited.push_str(&lines[cut.min(lines.len())..].concat());
                    edited
                } else {
                    text(&mut seed, new_len, alphabet)
                };
                assert_eq!(
                    line_ops(&old, &new, Duration::from_secs(60)),
                    text_diff(&old, &new),
                    "{old_len} against {new_len} lines of {alphabet}"
                );
            }
        }
    }

    #[test]
    fn lines_are_cut_as_text_diff_cuts_them() {
        for text in ["", "a", "a\n", "a\r\nb\rc\n\nd", "\r\r\n\n"] {
            let lines = Lines::new(text);
            let ours: Vec<&str> = (0..lines.len()).map(|i| &lines[i]).collect();
            let diff = TextDiff::from_lines(text, "");
            let theirs: Vec<&str> = diff.iter_all_changes().map(|c| c.value()).collect();
            assert_eq!(ours, theirs, "{text:?}");
        }
    }
}
