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

    #[test]
    fn finds_line_starts() {
        let t = "ab\ncd\nef";
        assert_eq!(line_start(t, 1), 0);
        assert_eq!(line_start(t, 2), 3);
        assert_eq!(line_start(t, 3), 6);
        assert_eq!(line_start(t, 4), t.len());
    }
}
