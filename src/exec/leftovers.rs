//! Whether the store a session starts on is empty. After every `reset` the backend answered
//! `ok`, and on every fresh start on a sandbox and a `{state}` memspec has just made, the
//! session looks at `/memories` once with a `view` (a harness call: never judged, never in a
//! case's calls, its time counted as start-up). A listing that names anything below
//! `/memories/` is a store memspec cannot empty: no case can be judged on it, and the run stops
//! with one message that says which reset or which start left what ([`Dirty`]).
//!
//! The look reads only what no listing format hides: a path below `/memories/`. A refusal, a
//! format that names no path, or a backend that breaks on the look proves nothing, and the
//! case goes on as before ([`Look::Unseen`]).

use serde_json::json;

use super::{Broke, Fault, Sandbox, Session};
use crate::reference::messages::printable;

/// Leftover paths a [`Dirty`] store's message names; the rest are counted.
const SHOWN: usize = 5;

/// Longest leftover path shown, in characters: a listing is the backend's text.
const PATH_SHOWN: usize = 80;

/// When the store was looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// Right after a `reset` the backend answered `ok`.
    Reset,
    /// Right after a start on a new sandbox and a new, empty `{state}` (the backend cannot
    /// reset, or this is its first process).
    FreshStart,
}

/// A store that still held memories where it should have been empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct Dirty {
    /// When it was looked at.
    pub moment: Moment,
    /// The user of a store of many users whose `/memories` it was.
    pub user: Option<String>,
    /// Paths the view listed below `/memories/` (at most a few, made printable).
    pub listed: Vec<String>,
    /// Further paths it listed.
    pub more: usize,
    /// How many workers ran processes of the backend at the time (1 when not known): with
    /// more, the memories may be another worker's, on a store the workers share.
    pub workers: usize,
}

impl Dirty {
    fn message(&self) -> String {
        let mut paths = self.listed.join(", ");
        if self.more > 0 {
            paths.push_str(&format!(" and {} more", self.more));
        }
        let whose = self
            .user
            .as_deref()
            .map(|user| format!(" (user {:?})", printable(user)))
            .unwrap_or_default();
        if self.workers > 1 {
            let when = match self.moment {
                Moment::Reset => "after `reset` answered ok",
                Moment::FreshStart => "on a new sandbox and a new, empty {state}",
            };
            return format!(
                "{when}, `view /memories`{whose} listed {paths}: no case can be judged on a store that is not empty. Either the backend does not empty its store ({}), or the {} workers' processes share one store (a fixed database file, a server) and another worker's case wrote them: keep the store in {{state}} (MEMSPEC_STATE, one per sandbox) or name one per MEMSPEC_WORKER. A run with -j 1 tells which (docs/guide/checking.md, \"Your store\")",
                match self.moment {
                    Moment::Reset => "its reset leaves memories behind",
                    Moment::FreshStart => "it lives where memspec does not empty it",
                },
                self.workers
            );
        }
        match self.moment {
            Moment::Reset => format!(
                "after `reset` answered ok, `view /memories`{whose} still listed {paths}: the backend's reset does not empty its store, so no case can be judged on it. Make `reset` forget every memory, or answer it with ok:false and keep the store in {{state}} (MEMSPEC_STATE), which memspec makes new for each process it cannot reset (docs/guide/checking.md, \"Your store\")"
            ),
            Moment::FreshStart => format!(
                "started on a new sandbox and a new, empty {{state}}, the backend's `view /memories`{whose} already listed {paths}: its store lives where memspec does not empty it, so no case can be judged on it. Keep the store in {{state}} (MEMSPEC_STATE), or give the backend a `reset` that empties it (docs/guide/checking.md, \"Your store\")"
            ),
        }
    }
}

/// What a look at `/memories` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Look {
    /// Nothing below `/memories/`.
    Empty,
    /// Memories left behind.
    Dirty(Dirty),
    /// The look proved nothing (the backend broke on it, or the run is stopping): why.
    Unseen(String),
    /// The backend changed the sandbox outside `memories/` (or its structure) while it was
    /// looked at, before any case watched it: what it did, as tampering is reported.
    Tampered(Vec<String>),
}

impl Session {
    /// Looks at `/memories` once (see the module's comment), as the user this session serves.
    /// A backend that breaks on the look is started again by the next call, as after any break.
    /// The look is watched as a case is: it is the first call a new process gets, and what a
    /// backend does then, before any case's watch begins, would otherwise go unseen.
    pub fn look_for_leftovers(&mut self, moment: Moment) -> Look {
        // On the folder the disk is the store, new and memspec's at a fresh start: nothing
        // there is another case's, and what the backend makes at start is its own.
        if moment == Moment::FreshStart && self.sandbox_is_store() {
            return Look::Empty;
        }
        let before = self.sandbox().outside();
        let view = json!({"command": "view", "path": "/memories"});
        let answered = self.call(&view);
        let mut found = self.sandbox().audit();
        if let Some(changes) = Sandbox::describe_changes(&before, &self.sandbox().outside()) {
            found.push(format!("outside memories/: {changes}"));
        }
        if !found.is_empty() {
            return Look::Tampered(
                found
                    .into_iter()
                    .map(|what| format!("while memspec viewed /memories before the case: {what}"))
                    .collect(),
            );
        }
        let answer = match answered {
            Ok(answer) => answer,
            Err(fault) => return Look::Unseen(fault.to_string()),
        };
        // A refusal lists nothing, whatever its words.
        if answer.is_error {
            return Look::Empty;
        }
        let listed = paths_listed(&answer.text);
        if listed.is_empty() {
            return Look::Empty;
        }
        let more = listed.len().saturating_sub(SHOWN);
        Look::Dirty(Dirty {
            moment,
            user: self.user().map(str::to_string),
            listed: listed.into_iter().take(SHOWN).collect(),
            more,
            workers: 1,
        })
    }

    /// [`Session::look_for_leftovers`] as a step of a start that has no place for tampering:
    /// leftovers are [`Fault::Dirty`], tampering a broken backend.
    pub fn expect_empty(&mut self, moment: Moment) -> Result<(), Fault> {
        match self.look_for_leftovers(moment) {
            Look::Dirty(dirty) => Err(Fault::Dirty(dirty)),
            Look::Tampered(found) => Err(Fault::Backend(Broke {
                reason: found.join("; "),
                stderr: None,
                timed_out: false,
            })),
            Look::Empty | Look::Unseen(_) => Ok(()),
        }
    }
}

/// The paths below `/memories/` a listing names, in any format: each occurrence of
/// `/memories/` followed by a name, up to the end of its line or a tab, without the quotes,
/// commas or folder markers a format puts around it. Hidden names (`.lock`) are not memories.
/// Each path is made printable and cut to [`PATH_SHOWN`] characters.
pub fn paths_listed(text: &str) -> Vec<String> {
    const ROOT: &str = "/memories/";
    let mut found: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(at) = rest.find(ROOT) {
            let after = &rest[at + ROOT.len()..];
            let end = after.find(['\t', '"', '\'', '`']).unwrap_or(after.len());
            let name = &after[..end];
            // `- /memories/a.md (12 bytes)`: what follows a name is the format's.
            let name = name.find(" (").map_or(name, |cut| &name[..cut]);
            let name = name.trim_end_matches([',', ';', ')', ']', '/', ' ', '.', ':']);
            rest = &after[end..];
            if name.is_empty() || name.starts_with(['.', ' ', '/']) {
                continue;
            }
            let path: String = printable(&format!("{ROOT}{name}"))
                .chars()
                .take(PATH_SHOWN)
                .collect();
            if !found.contains(&path) {
                found.push(path);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_listing_names_nothing_in_any_format() {
        for empty in [
            "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n4.0K\t/memories\n",
            "Directory: /memories/\n",
            "/memories/ is empty.",
            "No files in /memories/.",
            "[]",
            "4.0K\t/memories/.lock\n",
        ] {
            assert_eq!(paths_listed(empty), Vec::<String>::new(), "{empty:?}");
        }
    }

    #[test]
    fn a_listing_names_its_paths_in_any_format() {
        let spec =
            "Here're the files …:\n8.0K\t/memories\n12\t/memories/a.md\n4.0K\t/memories/b/\n";
        assert_eq!(paths_listed(spec), ["/memories/a.md", "/memories/b"]);
        let json = r#"["/memories/notes.md", "/memories/not found.md"]"#;
        assert_eq!(
            paths_listed(json),
            ["/memories/notes.md", "/memories/not found.md"]
        );
        let bullets = "Files:\n- /memories/x.txt\n- /memories/d/y.txt (12 bytes)\n";
        assert_eq!(
            paths_listed(bullets),
            ["/memories/x.txt", "/memories/d/y.txt"]
        );
    }

    #[test]
    fn a_hostile_listing_is_shown_bounded_and_printable() {
        let text = format!("/memories/{}\u{1b}[2J\n", "x".repeat(500));
        let listed = paths_listed(&text);
        assert_eq!(listed.len(), 1);
        assert!(listed[0].chars().count() <= PATH_SHOWN);
        assert!(!listed[0].contains('\u{1b}'));
    }

    #[test]
    fn the_message_says_what_was_left_and_what_to_do() {
        let dirty = Dirty {
            moment: Moment::Reset,
            user: None,
            listed: vec!["/memories/a.md".to_string()],
            more: 3,
            workers: 1,
        };
        let message = dirty.to_string();
        assert!(message.starts_with("after `reset` answered ok, `view /memories` still listed /memories/a.md and 3 more: the backend's reset does not empty its store"), "{message}");
        assert!(message.contains("{state}"), "{message}");
        // On several workers the memories may be another worker's: no blame without -j 1.
        let shared = Dirty {
            workers: 4,
            ..dirty
        }
        .to_string();
        assert!(
            shared.contains("or the 4 workers' processes share one store"),
            "{shared}"
        );
        assert!(
            !shared.contains("the backend's reset does not empty"),
            "{shared}"
        );
    }
}
