//! Lines and line numbers, as the reference counts them.
//!
//! A line ends at `\n`; a final `\n` ends the last line rather than starting an empty one
//! (`decide.final-newline`). `\r` is ordinary content. Numbers are 6 wide, right-aligned and
//! followed by a tab, exactly like `cat -n`.

/// Most lines a file may have to be viewed.
pub const MAX_LINES: usize = 999_999;

/// Number of lines in `text`.
pub fn line_count(text: &str) -> usize {
    let newlines = text.bytes().filter(|&b| b == b'\n').count();
    if text.is_empty() || text.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

/// The lines of `text`, without their terminators.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    body.split('\n').filter(move |_| !empty)
}

/// Byte offset where line `n` (1-indexed) starts; `n = count + 1` gives `text.len()`.
pub fn line_start(text: &str, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    text.bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .nth(n - 2)
        .map_or(text.len(), |(i, _)| i + 1)
}

/// Appends `\n{number:>6}\t{line}` for each line, starting at `first`. Formats numbers by hand:
/// this is the hot loop of viewing a 999,999-line file.
pub fn push_numbered<'a>(out: &mut String, first: usize, lines: impl Iterator<Item = &'a str>) {
    for (number, line) in (first..).zip(lines) {
        out.push('\n');
        push_number(out, number);
        out.push('\t');
        out.push_str(line);
    }
}

fn push_number(out: &mut String, mut n: usize) {
    // 20 digits hold any u64; 6 is the spec's minimum width.
    let mut digits = [b' '; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = i.min(digits.len() - 6);
    // Only ASCII digits and spaces were written.
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
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
    fn finds_line_starts() {
        let t = "ab\ncd\nef";
        assert_eq!(line_start(t, 1), 0);
        assert_eq!(line_start(t, 2), 3);
        assert_eq!(line_start(t, 3), 6);
        assert_eq!(line_start(t, 4), t.len());
    }
}
