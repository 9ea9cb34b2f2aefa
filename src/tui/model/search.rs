//! Search: the steps whose summary, input or results hold the query (smart case), and moving
//! between them.

use super::App;
use crate::replay::Step;
use crate::transcript::ToolCall;

impl App {
    pub(super) fn submit_search(&mut self) {
        let Some(query) = self.prompt.take() else {
            return;
        };
        self.query = query;
        if self.query.is_empty() {
            self.matches.clear();
            return;
        }
        let smart_case = self.query.chars().any(char::is_uppercase);
        let needle = if smart_case {
            self.query.clone()
        } else {
            self.query.to_lowercase()
        };
        self.matches = (0..self.replay.steps.len())
            .filter(|&i| {
                let (call, step) = self.step(i);
                holds(call, step, &needle, smart_case)
            })
            .collect();
        if self.matches.is_empty() {
            self.status = Some(format!("no step matches “{}”", self.query));
            return;
        }
        let next = self
            .matches
            .iter()
            .copied()
            .find(|&i| i >= self.selected)
            .unwrap_or(self.matches[0]);
        self.select(next);
    }

    pub(super) fn next_match(&mut self, forward: bool) {
        if self.matches.is_empty() {
            self.status = Some(format!("no step matches “{}”", self.query));
            return;
        }
        let found = if forward {
            self.matches.iter().copied().find(|&i| i > self.selected)
        } else {
            self.matches
                .iter()
                .rev()
                .copied()
                .find(|&i| i < self.selected)
        };
        match found {
            Some(i) => self.select(i),
            None => {
                let wrapped = if forward {
                    self.matches[0]
                } else {
                    self.matches[self.matches.len() - 1]
                };
                self.select(wrapped);
                self.status = Some("search wrapped around".to_string());
            }
        }
    }

    /// Position of the selected step among the matches (1-based), if it is one.
    pub(crate) fn match_position(&self) -> Option<usize> {
        self.matches
            .iter()
            .position(|&i| i == self.selected)
            .map(|p| p + 1)
    }
}

/// Whether a step holds `needle` (lowercased already unless `case_sensitive`) in what a search
/// looks through: its summary, input and the three results.
///
/// Each is searched on its own, in place: joining them, and lowercasing the whole, would copy
/// a million-line result twice. A needle holds no newline (Enter ends the prompt), so none
/// could match across two of them, nor across two lines.
fn holds(call: &ToolCall, step: &Step, needle: &str, case_sensitive: bool) -> bool {
    let results = [
        call.recorded.as_ref(),
        step.backend.as_ref().and_then(|a| a.result()),
        step.reference.as_ref().and_then(|a| a.result()),
    ];
    let owned = [call.summary(), call.input.to_string()];
    owned
        .iter()
        .map(String::as_str)
        .chain(results.into_iter().flatten().map(|r| r.text.as_str()))
        .any(|text| {
            if case_sensitive {
                text.contains(needle)
            } else {
                contains_lowercased(text, needle)
            }
        })
}

/// Whether `text`, lowercased, contains `needle` (which has no newline). Lowercased a run of
/// whole lines at a time, so that a long text is never copied whole: lowercasing stops at a
/// newline (it changes no newline, and a final sigma looks no further), so the runs lowercase
/// exactly as the whole would.
fn contains_lowercased(text: &str, needle: &str) -> bool {
    const RUN: usize = 64 * 1024;
    let mut rest = text;
    while !rest.is_empty() {
        let bytes = rest.as_bytes();
        let end = if bytes.len() <= RUN {
            bytes.len()
        } else {
            // The last line that ends within RUN bytes, else the first line however long.
            memchr::memrchr(b'\n', &bytes[..RUN])
                .or_else(|| memchr::memchr(b'\n', bytes))
                .map_or(bytes.len(), |at| at + 1)
        };
        let (run, after) = rest.split_at(end);
        if run.to_lowercase().contains(needle) {
            return true;
        }
        rest = after;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::contains_lowercased;

    #[test]
    fn lowercases_long_texts_a_run_of_lines_at_a_time() {
        // Runs of lines lowercase as the whole text does, final sigmas included (many runs).
        let long: String = (0..20_000).map(|n| format!("Line {n} ΟΔΟΣ\n")).collect();
        let whole = long.to_lowercase();
        for needle in [
            "line 19999 \u{3bf}",
            "line 0 ",
            "line 20000",
            "\u{3bf}\u{3c2}",
            "\u{3bf}\u{3c3}",
        ] {
            assert_eq!(
                contains_lowercased(&long, needle),
                whole.contains(needle),
                "{needle}"
            );
        }
        assert!(contains_lowercased(&long, "line 19999 "));
        // A line longer than a run is taken whole.
        let wide = format!("{}NEEDLE{}", "x".repeat(100_000), "y".repeat(100_000));
        assert!(contains_lowercased(&wide, "xneedley"));
    }
}
