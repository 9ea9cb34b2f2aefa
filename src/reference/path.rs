//! The grammar of a memory path as Claude spells it.
//!
//! This is the first of two walls. It turns `/memories/a/b.txt` into the components `["a",
//! "b.txt"]` and refuses every spelling that is a traversal attempt or could become one in a
//! backend that decodes or normalises later (`..`, `\`, `%2e%2e`, look-alike dots and slashes,
//! NUL). The second wall, in [`super::confine`], is what makes escape impossible: components are
//! opened one by one under the root without following symlinks, so even a component this grammar
//! let through cannot leave the root.

use std::fmt;

/// Longest path accepted, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest path component accepted, in bytes (Linux `NAME_MAX`).
pub const MAX_COMPONENT_BYTES: usize = 255;

/// A validated path below `/memories`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryPath {
    components: Vec<String>,
    trailing_slash: bool,
}

impl MemoryPath {
    /// Parses a path as Claude sent it.
    pub fn parse(spelled: &str) -> Result<MemoryPath, PathRejection> {
        if spelled.chars().any(char::is_control) {
            return Err(PathRejection::ControlCharacter);
        }
        if spelled.contains('\\') {
            return Err(PathRejection::Backslash);
        }
        if spelled.len() > MAX_PATH_BYTES {
            return Err(PathRejection::TooLong);
        }
        let rest = match spelled.strip_prefix("/memories") {
            Some("") => "",
            Some(rest) if rest.starts_with('/') => rest,
            _ => return Err(PathRejection::OutsideMemories),
        };
        let mut components = Vec::new();
        for component in rest.split('/').filter(|c| !c.is_empty()) {
            check_component(component)?;
            components.push(component.to_string());
        }
        Ok(MemoryPath {
            components,
            trailing_slash: rest.len() > 1 && rest.ends_with('/'),
        })
    }

    /// The components below the root; empty for `/memories` itself.
    pub fn components(&self) -> &[String] {
        &self.components
    }

    /// Whether this is `/memories` itself, in any accepted spelling.
    pub fn is_root(&self) -> bool {
        self.components.is_empty()
    }

    /// Whether Claude wrote a trailing `/`, which asks for a folder.
    pub fn has_trailing_slash(&self) -> bool {
        self.trailing_slash
    }

    /// Whether `self` is `other` or lies below it.
    pub fn starts_with(&self, other: &MemoryPath) -> bool {
        self.components.starts_with(&other.components)
    }

    /// The canonical spelling of the first `len` components (`/memories/a/b`).
    pub fn prefix_display(&self, len: usize) -> String {
        let mut out = String::from("/memories");
        for c in &self.components[..len] {
            out.push('/');
            out.push_str(c);
        }
        out
    }
}

impl fmt::Display for MemoryPath {
    /// The canonical spelling: `/memories`, then `/component` for each component.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.prefix_display(self.components.len()))
    }
}

/// Why a spelled path was refused. [`PathRejection::reason`] is the user-facing wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRejection {
    /// Not `/memories` and not below `/memories/` (relative, empty, `/etc`, `/memoriesX`).
    OutsideMemories,
    /// A `.` or `..` segment.
    DotSegment,
    /// A backslash anywhere (a separator on Windows, `..\` traversal).
    Backslash,
    /// NUL or another control character.
    ControlCharacter,
    /// A percent-encoded `.`, `/`, `\` or NUL that decodes into a traversal.
    EncodedTraversal,
    /// A Unicode character that looks like `.`, `/` or `\` and normalises to it.
    LookAlike,
    /// Longer than [`MAX_PATH_BYTES`].
    TooLong,
    /// A component longer than [`MAX_COMPONENT_BYTES`].
    ComponentTooLong,
}

impl PathRejection {
    /// The reason, worded for the model.
    pub fn reason(self) -> &'static str {
        match self {
            PathRejection::OutsideMemories => {
                "memory paths must be /memories or start with /memories/"
            }
            PathRejection::DotSegment => "`.` and `..` segments are not allowed",
            PathRejection::Backslash => "backslashes are not allowed",
            PathRejection::ControlCharacter => "control characters such as NUL are not allowed",
            PathRejection::EncodedTraversal => {
                "percent-encoded dots, slashes, backslashes and NUL are not allowed"
            }
            PathRejection::LookAlike => {
                "characters that look like dots, slashes or backslashes are not allowed"
            }
            PathRejection::TooLong => "it is longer than 4096 bytes",
            PathRejection::ComponentTooLong => "a path segment is longer than 255 bytes",
        }
    }
}

fn check_component(component: &str) -> Result<(), PathRejection> {
    if component == "." || component == ".." {
        return Err(PathRejection::DotSegment);
    }
    if component.len() > MAX_COMPONENT_BYTES {
        return Err(PathRejection::ComponentTooLong);
    }
    // Without a `%` there is nothing to decode (and nothing to allocate): nearly every component.
    if memchr::memchr(b'%', component.as_bytes()).is_some() {
        check_escapes(component)?;
    }
    if component.chars().any(|c| lookalike_of(c).is_some()) {
        let folded: String = component
            .chars()
            .map(|c| lookalike_of(c).unwrap_or(c))
            .collect();
        if is_traversal_like(&folded) || folded.contains('/') {
            return Err(PathRejection::LookAlike);
        }
    }
    Ok(())
}

/// Refuses a component whose percent escapes decode into a traversal. Decoded repeatedly: a
/// backend that decodes twice turns `%252e%252e` into `..`.
fn check_escapes(component: &str) -> Result<(), PathRejection> {
    let mut decoded = component.to_string();
    for _ in 0..3 {
        let Some(next) = percent_decode_once(&decoded) else {
            break;
        };
        if is_traversal_like(&next) {
            return Err(PathRejection::EncodedTraversal);
        }
        decoded = next;
    }
    Ok(())
}

fn is_traversal_like(s: &str) -> bool {
    s == "." || s == ".." || s.contains(['/', '\\', '\0'])
}

/// Decodes `%XX` escapes once; `None` when there is nothing (valid) to decode.
pub(crate) fn percent_decode_once(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                changed = true;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    if !changed {
        return None;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// The ASCII character a Unicode look-alike folds to under NFKC or in a careless decoder.
///
/// `decide.path-grammar` refuses a component holding a look-alike of `/` or `\\` anywhere, and
/// one made only of dots and dot look-alikes that would fold into `.` or `..`. The NFKC arms are
/// complete: they list every code point whose NFKC form contains `/` or `\\`, or is made only of
/// dots, generated with (Python 3.11, Unicode 14.0)
///
/// ```text
/// python3 -c 'import unicodedata as u
/// for c in map(chr, range(0x110000)):
///     n = u.normalize("NFKC", c)
///     if n != c and ("/" in n or "\\" in n or set(n) == {"."}): print(hex(ord(c)), n)'
/// ```
///
/// NFKC works character by character here: neither `/`, `\\` nor `.` composes with anything, so
/// a component's NFKC form contains one exactly when one of its characters' forms does.
fn lookalike_of(c: char) -> Option<char> {
    match c {
        // NFKC: `.`, `.`, `.` (ONE DOT LEADER, SMALL and FULLWIDTH FULL STOP); `..`, `..` (TWO
        // DOT LEADER and its vertical form); `...`, `...` (the ellipses). One dot is enough to be
        // refused when the component is nothing but dots.
        '\u{2024}' | '\u{FE52}' | '\u{FF0E}' | '\u{2025}' | '\u{FE30}' | '\u{2026}'
        | '\u{FE19}' => Some('.'),
        // NFKC: `a/c`, `a/s`, `c/o`, `c/u` (ACCOUNT OF, ADDRESSED TO THE SUBJECT, CARE OF, CADA
        // UNA), `/` (FULLWIDTH SOLIDUS).
        '\u{2100}' | '\u{2101}' | '\u{2105}' | '\u{2106}' | '\u{FF0F}' => Some('/'),
        // NFKC: `\\` (SMALL and FULLWIDTH REVERSE SOLIDUS).
        '\u{FE68}' | '\u{FF3C}' => Some('\\'),
        // No NFKC form, but they look like one and a careless decoder or a human may take them
        // for it: RAISED DOT; FRACTION SLASH, DIVISION SLASH, BIG SOLIDUS, PHILIPPINE SINGLE
        // PUNCTUATION; SET MINUS, BIG REVERSE SOLIDUS.
        '\u{2E33}' => Some('.'),
        '\u{2044}' | '\u{2215}' | '\u{29F8}' | '\u{1735}' => Some('/'),
        '\u{2216}' | '\u{29F9}' => Some('\\'),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_root_spellings() {
        for p in ["/memories", "/memories/", "/memories//"] {
            assert!(MemoryPath::parse(p).unwrap().is_root(), "{p}");
        }
    }

    #[test]
    fn rejects_traversal_spellings() {
        let cases = [
            ("/memories/../x", PathRejection::DotSegment),
            ("/memories/a/..", PathRejection::DotSegment),
            ("/memories/./a", PathRejection::DotSegment),
            ("/memories/..\\x", PathRejection::Backslash),
            ("/memoriesX/a", PathRejection::OutsideMemories),
            ("memories/a", PathRejection::OutsideMemories),
            ("", PathRejection::OutsideMemories),
            ("/etc/passwd", PathRejection::OutsideMemories),
            ("/memories/%2e%2e", PathRejection::EncodedTraversal),
            ("/memories/%2e%2e%2fx", PathRejection::EncodedTraversal),
            ("/memories/%252e%252e", PathRejection::EncodedTraversal),
            ("/memories/a%2fb", PathRejection::EncodedTraversal),
            ("/memories/\u{FF0E}\u{FF0E}", PathRejection::LookAlike),
            ("/memories/\u{FE30}/x", PathRejection::LookAlike),
            ("/memories/a\u{2215}b", PathRejection::LookAlike),
            // NFKC turns these into `a/c`, `a/s`, `c/o` and `c/u`: a separator appears.
            ("/memories/\u{2100}", PathRejection::LookAlike),
            ("/memories/x\u{2101}", PathRejection::LookAlike),
            ("/memories/\u{2105}/y", PathRejection::LookAlike),
            ("/memories/\u{2106}.txt", PathRejection::LookAlike),
            ("/memories/a\u{FE68}b", PathRejection::LookAlike),
            ("/memories/a\0b", PathRejection::ControlCharacter),
        ];
        for (p, want) in cases {
            assert_eq!(MemoryPath::parse(p), Err(want), "{p:?}");
        }
    }

    #[test]
    fn keeps_harmless_percent_and_dots() {
        let p = MemoryPath::parse("/memories/100%25 sure/..notes.v2...txt").unwrap();
        assert_eq!(p.components(), ["100%25 sure", "..notes.v2...txt"]);
        assert_eq!(p.to_string(), "/memories/100%25 sure/..notes.v2...txt");
    }
}
