//! How whitespace and control characters are drawn: the escapes of control characters, the
//! glyphs of whitespace, and the painter that draws a line's runs with tab stops.

/// The escape a character is shown as wherever text from a transcript or a backend reaches a
/// terminal or a log, when it must not be sent as is: NUL as `\0`, the other C0 controls and DEL
/// as `\xNN` (ESC is `\x1b`), C1 controls, the bidirectional marks and overrides (which reorder
/// what is shown around them), zero-width and other invisible characters, and the line and
/// paragraph separators as `\u{NNNN}`. One table for every report format and the TUI.
pub fn escape_control(c: char) -> Option<String> {
    match c {
        '\0' => Some("\\0".to_string()),
        c if u32::from(c) < 0x20 || c == '\x7f' => Some(format!("\\x{:02x}", u32::from(c))),
        c if c.is_control() => Some(format!("\\u{{{:x}}}", u32::from(c))),
        '\u{061c}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{feff}' => Some(format!("\\u{{{:x}}}", u32::from(c))),
        _ => None,
    }
}

/// Makes whitespace visible: tabs, carriage returns, trailing spaces, other control characters.
pub fn visible(line: &str) -> String {
    let trimmed = line.trim_end_matches(' ');
    let trailing = line.len() - trimmed.len();
    let mut out = String::with_capacity(line.len() + 8);
    for c in trimmed.chars() {
        push_visible(&mut out, c);
    }
    out.extend(std::iter::repeat_n('·', trailing));
    out
}

fn push_visible(out: &mut String, c: char) {
    match c {
        '\t' => out.push('→'),
        '\r' => out.push('␍'),
        '\0' => out.push('␀'),
        c if c.is_control() => out.extend(c.escape_default()),
        c => out.push(c),
    }
}

/// How [`diff_with`] and [`visible_with`] draw whitespace.
///
/// [`diff_with`]: super::diff_with
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Glyphs {
    /// Tab stops: a tab becomes `→` padded with spaces up to the next stop, so that columns stay
    /// aligned (a `{n:>6}\t` gutter keeps its shape); `None` draws a lone `→`.
    pub tab_width: Option<usize>,
    /// Spaces inside changed words are drawn as `·`: a changed run of spaces is otherwise
    /// invisible, and a tab against spaces would look like a tab against nothing.
    pub spaces_in_changes: bool,
}

impl Glyphs {
    /// For text reports: a lone `→` per tab, spaces inside changed words as `·`.
    pub const PLAIN: Glyphs = Glyphs {
        tab_width: None,
        spaces_in_changes: true,
    };
}

impl Default for Glyphs {
    fn default() -> Self {
        Glyphs {
            tab_width: Some(4),
            spaces_in_changes: true,
        }
    }
}

/// Like [`visible`], with column-aware tabs when `glyphs.tab_width` is set.
pub fn visible_with(line: &str, glyphs: Glyphs) -> String {
    let mut painter = Painter::new(line.trim_end_matches(' ').len(), glyphs);
    painter.paint(line, false)
}

/// Draws the runs of one line, keeping track of the column (for tab stops) and of where the
/// line's trailing spaces start.
pub(super) struct Painter {
    glyphs: Glyphs,
    trailing_from: usize,
    offset: usize,
    column: usize,
}

impl Painter {
    pub(super) fn new(trailing_from: usize, glyphs: Glyphs) -> Painter {
        Painter {
            glyphs,
            trailing_from,
            offset: 0,
            column: 0,
        }
    }

    pub(super) fn paint(&mut self, text: &str, emphasized: bool) -> String {
        let mut out = String::with_capacity(text.len() + 4);
        for c in text.chars() {
            let trailing = self.offset >= self.trailing_from;
            self.offset += c.len_utf8();
            match c {
                '\t' => {
                    out.push('→');
                    self.column += 1;
                    if let Some(width) = self.glyphs.tab_width.filter(|w| *w > 0) {
                        while !self.column.is_multiple_of(width) {
                            out.push(' ');
                            self.column += 1;
                        }
                    }
                    continue;
                }
                ' ' if trailing || (emphasized && self.glyphs.spaces_in_changes) => out.push('·'),
                c => push_visible(&mut out, c),
            }
            self.column += 1;
        }
        out
    }
}
