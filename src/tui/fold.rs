//! The diff pane's model: a line diff of the compared pair computed once per step, kept as
//! segments (context, folded unchanged runs, changed blocks) over the two texts, which stay
//! where they are in the replay. Nothing is drawn ahead: a frame asks for the rows it shows,
//! and only those lines are cut out of the texts (changed blocks get their word-level
//! emphasis then, cached for a few blocks). A million-line result costs its line diff once and
//! a sparse index of line starts, not a million drawn lines.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use similar::DiffOp;

use crate::diff::{CONTEXT_LINES, LineTag, RawLine, block_lines, line_ops};

/// Unchanged runs shorter than this many hidden lines are shown rather than folded: a fold
/// line standing for one line saves nothing.
const MIN_FOLD: usize = 2;

/// Changed blocks longer than this (both sides' lines) are drawn line by line without word
/// emphasis: emphasis needs the whole block diffed by words, which a block of a million lines
/// cannot afford.
pub(crate) const INLINE_LIMIT: usize = 1_000;

/// Blocks kept with their emphasis; a frame shows a few, and a walk with `]` a few more.
const BLOCK_CACHE: usize = 64;

/// Lines between two entries of a [`LineIndex`].
const STRIDE: usize = 64;

/// What a segment of the diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Unchanged lines next to a change, always shown.
    Context,
    /// An unchanged run, folded into one line unless expanded.
    Fold {
        /// Whether it is shown whole.
        expanded: bool,
    },
    /// A changed block: the expected side's lines, then the actual side's.
    Change,
}

/// A run of the diff: lines `old..old + old_len` of the expected text against
/// `new..new + new_len` of the actual one (0-based; equal lengths unless a change).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Segment {
    pub(crate) part: Part,
    pub(crate) old: usize,
    pub(crate) new: usize,
    pub(crate) old_len: usize,
    pub(crate) new_len: usize,
}

impl Segment {
    /// Rows it takes in the unified layout (`side == false`) or side by side.
    fn rows(&self, side: bool) -> usize {
        match self.part {
            Part::Context | Part::Fold { expanded: true } => self.old_len,
            Part::Fold { expanded: false } => 1,
            Part::Change if side => self.old_len.max(self.new_len),
            Part::Change => self.old_len + self.new_len,
        }
    }
}

/// Where every `STRIDE`-th line of a text starts, so that any line is found by skipping at
/// most `STRIDE` newlines.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineIndex {
    marks: Vec<usize>,
    lines: usize,
    newlines: usize,
}

impl LineIndex {
    /// Indexes `text` (lines as `similar` counts them: a final line without a newline counts).
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut marks = vec![0];
        let mut count = 0;
        for at in memchr::memchr_iter(b'\n', text.as_bytes()) {
            count += 1;
            if count % STRIDE == 0 {
                marks.push(at + 1);
            }
        }
        let lines = count + usize::from(!text.is_empty() && !text.ends_with('\n'));
        LineIndex {
            marks,
            lines,
            newlines: count,
        }
    }

    /// Number of newlines.
    pub(crate) fn newlines(&self) -> usize {
        self.newlines
    }

    /// Number of lines.
    pub(crate) fn lines(&self) -> usize {
        self.lines
    }

    /// Byte offset where line `k` starts (the text's length past the last line).
    pub(crate) fn offset(&self, text: &str, k: usize) -> usize {
        if k >= self.lines {
            return text.len();
        }
        let mut at = self.marks.get(k / STRIDE).copied().unwrap_or(0);
        for _ in 0..k % STRIDE {
            match memchr::memchr(b'\n', &text.as_bytes()[at..]) {
                Some(n) => at += n + 1,
                None => return text.len(),
            }
        }
        at
    }

    /// Lines `from..from + count`, each without its newline, and whether it had one.
    pub(crate) fn lines_at<'t>(
        &self,
        text: &'t str,
        from: usize,
        count: usize,
    ) -> impl Iterator<Item = (&'t str, bool)> + 't {
        let start = self.offset(text, from);
        let count = count.min(self.lines.saturating_sub(from));
        let mut rest = text.get(start..).unwrap_or("");
        (0..count).map(move |_| match rest.split_once('\n') {
            Some((line, after)) => {
                rest = after;
                (line, true)
            }
            None => {
                let line = rest;
                rest = "";
                (line, false)
            }
        })
    }
}

/// One row of the unified layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Row {
    /// A line with its numbers in the expected and actual texts (1-based).
    Line {
        old: Option<usize>,
        new: Option<usize>,
        line: RawLine,
    },
    /// A folded unchanged run of this many lines.
    Fold(usize),
}

/// One side of a side-by-side row: the line's number (1-based) and the line.
pub(crate) type Side = Option<(usize, RawLine)>;

/// One row of the side-by-side layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SideRow {
    /// Expected left, actual right.
    Pair(Side, Side),
    /// A folded unchanged run of this many lines.
    Fold(usize),
}

/// The diff of two texts, as segments.
#[derive(Debug, Default)]
pub(crate) struct Folded {
    segments: Vec<Segment>,
    /// First row of each segment, unified.
    unified: Vec<usize>,
    /// First row of each segment, side by side.
    side: Vec<usize>,
    old: LineIndex,
    new: LineIndex,
    newline_differs: bool,
    /// Changed blocks drawn with emphasis, by segment.
    blocks: RefCell<HashMap<usize, Rc<Vec<RawLine>>>>,
}

impl Folded {
    /// Diffs `expected` against `actual` by lines.
    pub(crate) fn new(expected: &str, actual: &str) -> Folded {
        // `TextDiff`'s ops, without its copy of every line and its map of the expected side's
        // lines: a million-line expected side would cost eight times its size for a moment.
        let ops = line_ops(expected, actual, std::time::Duration::from_millis(500));
        let changes = ops.iter().any(|op| !matches!(op, DiffOp::Equal { .. }));
        let mut segments = Vec::with_capacity(ops.len() * 2);
        let last = ops.len().saturating_sub(1);
        for (i, op) in ops.iter().enumerate() {
            let (old, new) = (op.old_range(), op.new_range());
            if !matches!(op, DiffOp::Equal { .. }) {
                segments.push(Segment {
                    part: Part::Change,
                    old: old.start,
                    new: new.start,
                    old_len: old.len(),
                    new_len: new.len(),
                });
                continue;
            }
            let len = old.len();
            // Context after the previous change and before the next one; identical texts
            // are shown whole.
            let before = if i == 0 { 0 } else { CONTEXT_LINES };
            let after = if i == last { 0 } else { CONTEXT_LINES };
            let hidden = len.saturating_sub(before + after);
            if !changes || hidden < MIN_FOLD {
                push_equal(&mut segments, Part::Context, old.start, new.start, len);
                continue;
            }
            push_equal(&mut segments, Part::Context, old.start, new.start, before);
            push_equal(
                &mut segments,
                Part::Fold { expanded: false },
                old.start + before,
                new.start + before,
                hidden,
            );
            push_equal(
                &mut segments,
                Part::Context,
                old.start + before + hidden,
                new.start + before + hidden,
                after,
            );
        }
        let mut folded = Folded {
            segments,
            old: LineIndex::new(expected),
            new: LineIndex::new(actual),
            newline_differs: expected.ends_with('\n') != actual.ends_with('\n'),
            ..Folded::default()
        };
        folded.reindex();
        folded
    }

    fn reindex(&mut self) {
        for (side, starts) in [(false, &mut self.unified), (true, &mut self.side)] {
            starts.clear();
            let mut row = 0;
            for segment in &self.segments {
                starts.push(row);
                row += segment.rows(side);
            }
            starts.push(row);
        }
    }

    fn starts(&self, side: bool) -> &[usize] {
        if side { &self.side } else { &self.unified }
    }

    /// Total rows of a layout.
    pub(crate) fn rows(&self, side: bool) -> usize {
        self.starts(side).last().copied().unwrap_or(0)
    }

    /// Whether the texts are the same line for line.
    pub(crate) fn identical(&self) -> bool {
        !self.segments.iter().any(|s| s.part == Part::Change)
    }

    /// The largest line number shown (for the gutter's width).
    pub(crate) fn widest_number(&self) -> usize {
        self.old.lines().max(self.new.lines()).max(1)
    }

    /// The segment holding `row`.
    fn segment_at(&self, side: bool, row: usize) -> usize {
        let starts = self.starts(side);
        // The last start <= row (the final entry is the end, never a segment).
        starts
            .partition_point(|&s| s <= row)
            .saturating_sub(1)
            .min(self.segments.len().saturating_sub(1))
    }

    /// First rows of the changed blocks, in order, with their segments.
    pub(crate) fn changes(&self, side: bool) -> impl Iterator<Item = (usize, usize)> + '_ {
        let starts = self.starts(side);
        self.segments
            .iter()
            .enumerate()
            .filter(|(_, s)| s.part == Part::Change)
            .map(move |(i, _)| (starts[i], i))
    }

    /// A changed block's lines with their emphasis (the expected side's, then the actual
    /// side's), from the cache when drawn lately.
    fn block(&self, texts: (&str, &str), i: usize) -> Rc<Vec<RawLine>> {
        if let Some(lines) = self.blocks.borrow().get(&i) {
            return Rc::clone(lines);
        }
        let s = self.segments[i];
        let lines = if s.old_len + s.new_len <= INLINE_LIMIT {
            let old = &texts.0
                [self.old.offset(texts.0, s.old)..self.old.offset(texts.0, s.old + s.old_len)];
            let new = &texts.1
                [self.new.offset(texts.1, s.new)..self.new.offset(texts.1, s.new + s.new_len)];
            block_lines(old, new, self.newline_differs)
        } else {
            Vec::new()
        };
        let lines = Rc::new(lines);
        let mut blocks = self.blocks.borrow_mut();
        if blocks.len() >= BLOCK_CACHE {
            blocks.clear();
        }
        blocks.insert(i, Rc::clone(&lines));
        lines
    }

    /// Line `k` of a changed block's side (`old`: the expected side), from the emphasised
    /// block when it has one, else plain.
    fn changed_line(
        &self,
        texts: (&str, &str),
        block: &[RawLine],
        i: usize,
        old: bool,
        k: usize,
    ) -> RawLine {
        let s = self.segments[i];
        let at = if old { k } else { s.old_len + k };
        if let Some(line) = block.get(at) {
            return line.clone();
        }
        let (text, index, first, tag) = if old {
            (texts.0, &self.old, s.old, LineTag::Expected)
        } else {
            (texts.1, &self.new, s.new, LineTag::Actual)
        };
        let (line, terminated) = index
            .lines_at(text, first + k, 1)
            .next()
            .unwrap_or(("", true));
        RawLine {
            tag,
            pieces: vec![(false, line.to_string())],
            missing_newline: !terminated && self.newline_differs,
        }
    }

    /// Rows `from..from + count` of the unified layout.
    pub(crate) fn unified(&self, texts: (&str, &str), from: usize, count: usize) -> Vec<Row> {
        let mut out = Vec::with_capacity(count);
        let mut row = from;
        let end = from.saturating_add(count).min(self.rows(false));
        while row < end {
            let i = self.segment_at(false, row);
            let s = self.segments[i];
            let skip = row - self.unified[i];
            let take = (s.rows(false) - skip).min(end - row);
            match s.part {
                Part::Fold { expanded: false } => out.push(Row::Fold(s.old_len)),
                Part::Context | Part::Fold { expanded: true } => {
                    let lines = self.old.lines_at(texts.0, s.old + skip, take);
                    out.extend(lines.enumerate().map(|(n, (line, _))| Row::Line {
                        old: Some(s.old + skip + n + 1),
                        new: Some(s.new + skip + n + 1),
                        line: same(line),
                    }));
                }
                Part::Change => {
                    let block = self.block(texts, i);
                    for k in skip..skip + take {
                        let old = k < s.old_len;
                        let n = if old { k } else { k - s.old_len };
                        let line = self.changed_line(texts, &block, i, old, n);
                        out.push(if old {
                            Row::Line {
                                old: Some(s.old + n + 1),
                                new: None,
                                line,
                            }
                        } else {
                            Row::Line {
                                old: None,
                                new: Some(s.new + n + 1),
                                line,
                            }
                        });
                    }
                }
            }
            row += take.max(1);
        }
        out
    }

    /// Rows `from..from + count` of the side-by-side layout.
    pub(crate) fn side_by_side(
        &self,
        texts: (&str, &str),
        from: usize,
        count: usize,
    ) -> Vec<SideRow> {
        let mut out = Vec::with_capacity(count);
        let mut row = from;
        let end = from.saturating_add(count).min(self.rows(true));
        while row < end {
            let i = self.segment_at(true, row);
            let s = self.segments[i];
            let skip = row - self.side[i];
            let take = (s.rows(true) - skip).min(end - row);
            match s.part {
                Part::Fold { expanded: false } => out.push(SideRow::Fold(s.old_len)),
                Part::Context | Part::Fold { expanded: true } => {
                    let lines = self.old.lines_at(texts.0, s.old + skip, take);
                    out.extend(lines.enumerate().map(|(n, (line, _))| {
                        SideRow::Pair(
                            Some((s.old + skip + n + 1, same(line))),
                            Some((s.new + skip + n + 1, same(line))),
                        )
                    }));
                }
                Part::Change => {
                    let block = self.block(texts, i);
                    for k in skip..skip + take {
                        let left = (k < s.old_len)
                            .then(|| (s.old + k + 1, self.changed_line(texts, &block, i, true, k)));
                        let right = (k < s.new_len).then(|| {
                            (s.new + k + 1, self.changed_line(texts, &block, i, false, k))
                        });
                        out.push(SideRow::Pair(left, right));
                    }
                }
            }
            row += take.max(1);
        }
        out
    }

    /// The first line (1-based) of a changed block: in the actual text, or the expected one
    /// when the block only removes lines.
    pub(crate) fn first_line(&self, segment: usize) -> usize {
        self.segments
            .get(segment)
            .map_or(0, |s| if s.new_len > 0 { s.new + 1 } else { s.old + 1 })
    }

    /// The changed block's lines (for finding its first changed column).
    pub(crate) fn block_lines(&self, texts: (&str, &str), segment: usize) -> Vec<RawLine> {
        let Some(s) = self.segments.get(segment).copied() else {
            return Vec::new();
        };
        let block = self.block(texts, segment);
        // A block without emphasis starts at its first column: a few of its lines suffice.
        let old = (0..s.old_len.min(8)).map(|k| self.changed_line(texts, &block, segment, true, k));
        let new =
            (0..s.new_len.min(8)).map(|k| self.changed_line(texts, &block, segment, false, k));
        if block.is_empty() {
            old.chain(new).collect()
        } else {
            block.to_vec()
        }
    }

    /// Expands or folds the unchanged run of segment `segment`: (expanded now, its lines, its
    /// first row).
    fn toggle(&mut self, segment: usize, side: bool) -> Option<(bool, usize, usize)> {
        let s = self.segments.get_mut(segment)?;
        let Part::Fold { expanded } = s.part else {
            return None;
        };
        s.part = Part::Fold {
            expanded: !expanded,
        };
        let lines = s.old_len;
        self.reindex();
        Some((!expanded, lines, self.starts(side)[segment]))
    }

    /// Enter on the pane showing rows `from..from + count`: expands the first folded run in
    /// view, or else folds back the expanded run the view is in. `(expanded, lines, first
    /// row of the run)`, or `None` when there is neither.
    pub(crate) fn toggle_in_view(
        &mut self,
        side: bool,
        from: usize,
        count: usize,
    ) -> Option<(bool, usize, usize)> {
        let first = self.segment_at(side, from);
        let last = self.segment_at(side, from.saturating_add(count.max(1)) - 1);
        let folded = (first..=last.min(self.segments.len().saturating_sub(1)))
            .find(|&i| self.segments[i].part == Part::Fold { expanded: false });
        if let Some(i) = folded {
            return self.toggle(i, side);
        }
        let expanded = (first..=last.min(self.segments.len().saturating_sub(1)))
            .find(|&i| self.segments[i].part == Part::Fold { expanded: true })?;
        self.toggle(expanded, side)
    }
}

fn push_equal(segments: &mut Vec<Segment>, part: Part, old: usize, new: usize, len: usize) {
    if len > 0 {
        segments.push(Segment {
            part,
            old,
            new,
            old_len: len,
            new_len: len,
        });
    }
}

fn same(line: &str) -> RawLine {
    RawLine {
        tag: LineTag::Same,
        pieces: vec![(false, line.to_string())],
        missing_newline: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    fn texts_of(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|row| match row {
                Row::Fold(n) => format!("⋯{n}"),
                Row::Line { line, .. } => {
                    let sign = match line.tag {
                        LineTag::Same => ' ',
                        LineTag::Expected => '-',
                        LineTag::Actual => '+',
                    };
                    let text: String = line.pieces.iter().map(|(_, t)| t.as_str()).collect();
                    format!("{sign}{text}")
                }
            })
            .collect()
    }

    #[test]
    fn one_change_in_the_middle_folds_both_sides() {
        let old = numbered(1000);
        let new = old.replace("line 500\n", "line 500 changed\n");
        let folded = Folded::new(&old, &new);
        let texts = (old.as_str(), new.as_str());
        let rows = folded.unified(texts, 0, 100);
        assert_eq!(
            texts_of(&rows),
            [
                "⋯496",
                " line 497",
                " line 498",
                " line 499",
                "-line 500",
                "+line 500 changed",
                " line 501",
                " line 502",
                " line 503",
                "⋯497"
            ]
        );
        assert_eq!(folded.rows(false), 10);
        assert_eq!(
            folded
                .changes(false)
                .map(|(row, _)| row)
                .collect::<Vec<_>>(),
            [4]
        );
        let Row::Line { old, new, .. } = &rows[5] else {
            panic!("{rows:?}")
        };
        assert_eq!((*old, *new), (None, Some(500)));
        // Side by side, the change is one row.
        assert_eq!(folded.rows(true), 9);
    }

    #[test]
    fn enter_expands_the_fold_in_view_and_folds_it_back() {
        let old = numbered(20);
        let new = old.replace("line 20\n", "line twenty\n");
        let mut folded = Folded::new(&old, &new);
        assert_eq!(folded.rows(false), 1 + 3 + 2);
        assert_eq!(folded.toggle_in_view(false, 0, 5), Some((true, 16, 0)));
        assert_eq!(folded.rows(false), 16 + 3 + 2);
        let texts = (old.as_str(), new.as_str());
        assert_eq!(
            texts_of(&folded.unified(texts, 15, 2)),
            [" line 16", " line 17"]
        );
        // Inside the expanded run, Enter folds it again.
        assert_eq!(folded.toggle_in_view(false, 5, 5), Some((false, 16, 0)));
        assert_eq!(folded.rows(false), 6);
    }

    #[test]
    fn short_runs_and_identical_texts_are_not_folded() {
        let old = numbered(8);
        let new = old
            .replace("line 1\n", "one\n")
            .replace("line 8\n", "eight\n");
        let folded = Folded::new(&old, &new);
        // Six unchanged lines between two changes: all context, nothing to fold.
        assert_eq!(folded.rows(false), 2 + 6 + 2);
        let same = Folded::new(&old, &old);
        assert!(same.identical());
        assert_eq!(same.rows(false), 8);
    }

    #[test]
    fn a_huge_block_is_drawn_line_by_line() {
        let old = "Error: too many lines\n".to_string();
        let new = numbered(5000);
        let folded = Folded::new(&old, &new);
        let texts = (old.as_str(), new.as_str());
        assert_eq!(folded.rows(false), 5001);
        assert_eq!(
            texts_of(&folded.unified(texts, 4999, 5)),
            ["+line 4999", "+line 5000"]
        );
    }

    #[test]
    fn the_line_index_finds_any_line() {
        let text = numbered(300) + "last";
        let index = LineIndex::new(&text);
        assert_eq!(index.lines(), 301);
        let lines: Vec<_> = index.lines_at(&text, 199, 3).collect();
        assert_eq!(
            lines,
            [("line 200", true), ("line 201", true), ("line 202", true)]
        );
        assert_eq!(
            index.lines_at(&text, 300, 5).collect::<Vec<_>>(),
            [("last", false)]
        );
        assert_eq!(index.offset(&text, 301), text.len());
    }
}
