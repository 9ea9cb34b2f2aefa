//! Lines of JSON values inside a document, so that an error or a step can name the line it
//! comes from even in a pretty-printed request body.
//!
//! serde_json's `Value` forgets positions, so a small scanner walks the (already validated)
//! text once and records where each value starts, down to a fixed depth, keyed by its JSON
//! pointer (`/messages/3/content/1`).

use std::collections::HashMap;

/// Start offsets of values by JSON pointer, and line starts.
#[derive(Debug, Default)]
pub(crate) struct Positions {
    starts: HashMap<String, usize>,
    lines: Vec<usize>,
}

impl Positions {
    /// Indexes `text` (valid JSON) down to `depth` levels below the root.
    pub(crate) fn index(text: &str, depth: usize) -> Positions {
        let mut scanner = Scanner {
            bytes: text.as_bytes(),
            at: 0,
            depth,
            starts: HashMap::new(),
        };
        let mut pointer = String::new();
        scanner.value(&mut pointer, 0);
        let mut lines = vec![0];
        lines.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Positions {
            starts: scanner.starts,
            lines,
        }
    }

    /// 1-based line where the value at `pointer` starts; the root's line if unknown.
    pub(crate) fn line(&self, pointer: &str) -> usize {
        let offset = self.starts.get(pointer).copied().unwrap_or(0);
        self.lines.partition_point(|start| *start <= offset).max(1)
    }
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    (line, column)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    depth: usize,
    starts: HashMap<String, usize>,
}

impl Scanner<'_> {
    fn skip_space(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn value(&mut self, pointer: &mut String, level: usize) {
        self.skip_space();
        if level <= self.depth {
            self.starts.insert(pointer.clone(), self.at);
        }
        match self.bytes.get(self.at) {
            Some(b'{') => self.object(pointer, level),
            Some(b'[') => self.array(pointer, level),
            Some(b'"') => {
                self.string();
            }
            Some(_) => {
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| !matches!(b, b',' | b']' | b'}') && !b.is_ascii_whitespace())
                {
                    self.at += 1;
                }
            }
            None => {}
        }
    }

    /// Skips a string and returns its raw (still escaped) content.
    fn string(&mut self) -> &str {
        self.at += 1;
        let start = self.at;
        while let Some(b) = self.bytes.get(self.at) {
            match b {
                b'\\' => self.at += 2,
                b'"' => break,
                _ => self.at += 1,
            }
        }
        let end = self.at.min(self.bytes.len());
        self.at += 1;
        std::str::from_utf8(&self.bytes[start..end]).unwrap_or("")
    }

    fn object(&mut self, pointer: &mut String, level: usize) {
        self.at += 1;
        loop {
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b'}') | None => {
                    self.at += 1;
                    return;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                Some(b'"') => {}
                Some(_) => {
                    self.at += 1;
                    continue;
                }
            }
            let raw = self.string().to_string();
            // Keys with escapes are rare; unescape them so that pointers match real keys.
            let key = if raw.contains('\\') {
                serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or(raw)
            } else {
                raw
            };
            self.skip_space();
            if self.bytes.get(self.at) == Some(&b':') {
                self.at += 1;
            }
            let len = pointer.len();
            if level < self.depth {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            self.value(pointer, level + 1);
            pointer.truncate(len);
        }
    }

    fn array(&mut self, pointer: &mut String, level: usize) {
        self.at += 1;
        let mut index = 0usize;
        loop {
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b']') | None => {
                    self.at += 1;
                    return;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                Some(_) => {}
            }
            let len = pointer.len();
            if level < self.depth {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            self.value(pointer, level + 1);
            pointer.truncate(len);
            index += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_lines_of_nested_values() {
        let text = "{\n  \"messages\": [\n    {\"role\": \"user\"},\n    {\n      \"role\": \"assistant\",\n      \"content\": [1, {\"a\": \"x\\\"y\"}]\n    }\n  ]\n}";
        let positions = Positions::index(text, 4);
        assert_eq!(positions.line(""), 1);
        assert_eq!(positions.line("/messages"), 2);
        assert_eq!(positions.line("/messages/0"), 3);
        assert_eq!(positions.line("/messages/1"), 4);
        assert_eq!(positions.line("/messages/1/content/1"), 6);
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
    }
}
