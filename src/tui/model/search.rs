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
                haystack(call, step, smart_case).contains(&needle)
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

/// Everything a search looks through for a step: its summary, input and the three results.
fn haystack(call: &ToolCall, step: &Step, case_sensitive: bool) -> String {
    let mut text = call.summary();
    text.push('\n');
    text.push_str(&call.input.to_string());
    for result in [
        call.recorded.as_ref(),
        step.backend.as_ref().and_then(|a| a.result()),
        step.reference.as_ref().and_then(|a| a.result()),
    ]
    .into_iter()
    .flatten()
    {
        text.push('\n');
        text.push_str(&result.text);
    }
    if case_sensitive {
        text
    } else {
        text.to_lowercase()
    }
}
