//! Lines and line numbers, as the reference counts them.
//!
//! A line ends at `\n`; a final `\n` ends the last line rather than starting an empty one
//! (`decide.final-newline`). `\r` is ordinary content. Numbers are 6 wide, right-aligned and
//! followed by a tab, exactly like `cat -n`.

/// Most lines a file may have to be viewed.
pub const MAX_LINES: usize = 999_999;

/// Number of lines in `text`.
pub fn line_count(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    if text.is_empty() || text.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

/// The lines of `text`, without their terminators. `memchr` finds the newlines: this is the hot
/// loop of viewing a 999,999-line file, where `str::split` costs a quarter of the time.
pub fn lines(text: &str) -> Lines<'_> {
    Lines { text, pos: 0 }
}

/// Iterator returned by [`lines`].
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.text.get(self.pos..).filter(|rest| !rest.is_empty())?;
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(end) => {
                self.pos += end + 1;
                // `\n` is ASCII, so both ends are character boundaries.
                rest.get(..end)
            }
            None => {
                self.pos = self.text.len();
                Some(rest)
            }
        }
    }
}

/// Byte offset where line `n` (1-indexed) starts; `n = count + 1` gives `text.len()`.
pub fn line_start(text: &str, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(n - 2)
        .map_or(text.len(), |i| i + 1)
}

/// Appends `\n{number:>6}\t{line}` for each line, starting at `first`.
pub fn push_numbered<'a>(out: &mut String, first: usize, lines: impl Iterator<Item = &'a str>) {
    let mut number = LineNumber::new(first);
    for line in lines {
        out.push('\n');
        out.push_str(number.as_str());
        out.push('\t');
        out.push_str(line);
        number.increment();
    }
}

/// What one pass over a text's bytes, fed in chunks, found: whether they are UTF-8 and how many
/// lines they hold, counted as [`line_count`] counts them. A view decides everything from this
/// before it shows a line, so a long file can be read twice in bounded memory instead of once
/// into memory (see [`NumberedWriter`]).
#[derive(Debug, Default)]
pub struct Scan {
    newlines: usize,
    last: Option<u8>,
    /// The start of a character cut by the end of the last chunk (at most 3 bytes).
    cut: [u8; 4],
    cut_len: usize,
    invalid: bool,
}

impl Scan {
    /// Takes the next chunk of the text.
    pub fn feed(&mut self, chunk: &[u8]) {
        let Some(&last) = chunk.last() else {
            return;
        };
        self.last = Some(last);
        self.newlines += memchr::memchr_iter(b'\n', chunk).count();
        if !self.invalid {
            self.check_utf8(chunk);
        }
    }

    /// Whether every byte so far is UTF-8, a character cut by the end of `chunk` carried to the
    /// next one.
    fn check_utf8(&mut self, mut chunk: &[u8]) {
        if self.cut_len > 0 {
            // Complete the cut character with the first bytes of this chunk. A lead byte says
            // how long its character is; a byte that cannot lead one is invalid anyway.
            let want = match self.cut[0] {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            let take = (want - self.cut_len).min(chunk.len());
            self.cut[self.cut_len..self.cut_len + take].copy_from_slice(&chunk[..take]);
            self.cut_len += take;
            chunk = &chunk[take..];
            match std::str::from_utf8(&self.cut[..self.cut_len]) {
                Ok(_) => self.cut_len = 0,
                // Still cut short: the chunk ended first.
                Err(e) if e.error_len().is_none() && chunk.is_empty() => return,
                Err(_) => {
                    self.invalid = true;
                    return;
                }
            }
        }
        if let Err(e) = std::str::from_utf8(chunk) {
            let rest = &chunk[e.valid_up_to()..];
            if e.error_len().is_none() && rest.len() < self.cut.len() {
                self.cut[..rest.len()].copy_from_slice(rest);
                self.cut_len = rest.len();
            } else {
                self.invalid = true;
            }
        }
    }

    /// The text's line count, or `None` if it is not UTF-8.
    pub fn finish(&self) -> Option<usize> {
        if self.invalid || self.cut_len > 0 {
            return None;
        }
        let lines = match self.last {
            None | Some(b'\n') => self.newlines,
            Some(_) => self.newlines + 1,
        };
        Some(lines)
    }
}

/// Writes lines `first..=last` of a text fed in chunks as [`push_numbered`] appends them
/// (`\n{number:>6}\t{line}` each), straight into a writer: a 999,999-line view is never one
/// 48 MB string.
pub struct NumberedWriter<W: std::io::Write> {
    out: W,
    buf: Vec<u8>,
    /// The line the next byte fed belongs to, 1-indexed.
    line: usize,
    number: LineNumber,
    first: usize,
    last: usize,
    /// Whether the next byte fed starts a line.
    at_start: bool,
}

impl<W: std::io::Write> NumberedWriter<W> {
    /// Output is handed to `out` in blocks of about this size.
    const BLOCK: usize = 1 << 20;

    /// Writes lines `first..=last` (1-indexed) of the text to come into `out`.
    pub fn new(out: W, first: usize, last: usize) -> NumberedWriter<W> {
        NumberedWriter {
            out,
            buf: Vec::with_capacity(Self::BLOCK + (Self::BLOCK >> 2)),
            line: 1,
            number: LineNumber::new(first),
            first,
            last,
            at_start: true,
        }
    }

    /// Takes the next chunk of the text. `false` once line `last` is complete: nothing more
    /// is needed.
    pub fn feed(&mut self, mut chunk: &[u8]) -> std::io::Result<bool> {
        while !chunk.is_empty() {
            if self.line > self.last {
                return Ok(false);
            }
            let shown = self.line >= self.first;
            if shown && self.at_start {
                self.buf.push(b'\n');
                self.buf.extend_from_slice(self.number.as_str().as_bytes());
                self.buf.push(b'\t');
            }
            let end = memchr::memchr(b'\n', chunk);
            let part = &chunk[..end.unwrap_or(chunk.len())];
            if shown {
                self.buf.extend_from_slice(part);
            }
            match end {
                Some(at) => {
                    chunk = &chunk[at + 1..];
                    if shown {
                        self.number.increment();
                    }
                    self.line += 1;
                    self.at_start = true;
                }
                None => {
                    chunk = &[];
                    self.at_start = false;
                }
            }
            if self.buf.len() >= Self::BLOCK {
                self.out.write_all(&self.buf)?;
                self.buf.clear();
            }
        }
        Ok(self.line <= self.last)
    }

    /// Writes out what is left and returns the writer and how many lines were fed whole or in
    /// part, so the caller can check that the text was the one it scanned.
    pub fn finish(mut self) -> std::io::Result<(W, usize)> {
        self.out.write_all(&self.buf)?;
        let lines = if self.at_start {
            self.line - 1
        } else {
            self.line
        };
        Ok((self.out, lines))
    }
}

/// A line number kept as right-aligned ASCII digits and incremented in place, as `cat -n` does:
/// no division per line.
struct LineNumber {
    /// Spaces, then the digits at the end.
    buf: [u8; 24],
    /// How many digits are in use.
    digits: usize,
}

impl LineNumber {
    /// The spec's width: numbers are padded to 6 characters.
    const WIDTH: usize = 6;

    fn new(mut n: usize) -> LineNumber {
        let mut buf = [b' '; 24];
        let mut digits = 0;
        loop {
            digits += 1;
            buf[buf.len() - digits] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        LineNumber { buf, digits }
    }

    fn as_str(&self) -> &str {
        let shown = self.digits.max(Self::WIDTH);
        // Only ASCII digits and spaces are ever written.
        std::str::from_utf8(&self.buf[self.buf.len() - shown..]).unwrap_or_default()
    }

    fn increment(&mut self) {
        let mut i = self.buf.len();
        loop {
            i -= 1;
            match self.buf[i] {
                b'9' => self.buf[i] = b'0',
                b' ' => {
                    self.buf[i] = b'1';
                    self.digits += 1;
                    return;
                }
                digit => {
                    self.buf[i] = digit + 1;
                    return;
                }
            }
            if i == 0 {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_without_a_phantom_last_line() {
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("a"), 1);
        assert_eq!(line_count("a\n"), 1);
        assert_eq!(line_count("a\nb"), 2);
        assert_eq!(line_count("\n"), 1);
        assert_eq!(line_count("\n\n"), 2);
        assert_eq!(lines("a\r\nb\n").collect::<Vec<_>>(), ["a\r", "b"]);
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("\n").collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn numbers_like_cat_n() {
        let mut out = String::new();
        push_numbered(&mut out, 9, ["x", "y"].into_iter());
        assert_eq!(out, "\n     9\tx\n    10\ty");
        let mut out = String::new();
        push_numbered(&mut out, 1_234_567, ["z"].into_iter());
        assert_eq!(out, "\n1234567\tz");
    }

    #[test]
    fn line_numbers_carry_across_widths() {
        let mut out = String::new();
        let lines = std::iter::repeat_n("x", 3);
        push_numbered(&mut out, 999_998, lines);
        assert_eq!(out, "\n999998\tx\n999999\tx\n1000000\tx");
        let mut n = LineNumber::new(1);
        for expected in 1..=12_345usize {
            assert_eq!(n.as_str(), format!("{expected:>6}"));
            n.increment();
        }
    }

    /// `text` fed to a [`Scan`] in chunks of every size from 1 to 7 bytes.
    fn scanned(text: &[u8]) -> Vec<Option<usize>> {
        (1..=7)
            .map(|size| {
                let mut scan = Scan::default();
                text.chunks(size).for_each(|chunk| scan.feed(chunk));
                scan.finish()
            })
            .collect()
    }

    #[test]
    fn scans_utf8_and_lines_across_chunks() {
        for text in [
            "",
            "a",
            "a\n",
            "\n\n",
            "é\n漢字\n😀",
            "x😀y\n",
            "\u{10FFFF}\n",
        ] {
            let want = Some(line_count(text));
            assert!(
                scanned(text.as_bytes()).iter().all(|got| *got == want),
                "{text:?}"
            );
        }
        let cut = "😀".as_bytes();
        for bad in [
            &cut[..3],
            &b"a\xffb"[..],
            &b"\xc3("[..],
            &b"\xe2\x82"[..],
            &b"\xed\xa0\x80"[..],
        ] {
            assert!(scanned(bad).iter().all(Option::is_none), "{bad:?}");
        }
    }

    /// What [`NumberedWriter`] writes for lines `first..=last` of `text` fed in chunks of `size`.
    fn written(text: &str, first: usize, last: usize, size: usize) -> String {
        let mut writer = NumberedWriter::new(Vec::new(), first, last);
        for chunk in text.as_bytes().chunks(size) {
            if !writer.feed(chunk).unwrap() {
                break;
            }
        }
        String::from_utf8(writer.finish().unwrap().0).unwrap()
    }

    #[test]
    fn writes_what_push_numbered_appends() {
        let texts = [
            "",
            "a",
            "a\n",
            "\n",
            "\n\n",
            "a\nb",
            "ab\n\ncd\n",
            "é\n漢字\n😀\n\nz",
        ];
        for text in texts {
            let n = line_count(text);
            for first in 1..=n.max(1) {
                for last in first.saturating_sub(1)..=n {
                    let mut want = String::new();
                    push_numbered(
                        &mut want,
                        first,
                        lines(text).skip(first - 1).take(last + 1 - first),
                    );
                    for size in 1..=5 {
                        assert_eq!(
                            written(text, first, last, size),
                            want,
                            "{text:?} {first}..={last} by {size}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn counts_the_lines_fed() {
        let mut writer = NumberedWriter::new(Vec::new(), 1, 2);
        assert!(writer.feed(b"a\nb").unwrap());
        assert_eq!(writer.finish().unwrap().1, 2);
        let mut writer = NumberedWriter::new(Vec::new(), 1, 1);
        assert!(!writer.feed(b"a\nb\n").unwrap());
        assert_eq!(writer.finish().unwrap().1, 1);
    }

    #[test]
    fn finds_line_starts() {
        let t = "ab\ncd\nef";
        assert_eq!(line_start(t, 1), 0);
        assert_eq!(line_start(t, 2), 3);
        assert_eq!(line_start(t, 3), 6);
        assert_eq!(line_start(t, 4), t.len());
    }
}
