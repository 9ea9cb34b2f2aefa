//! A crash judged: a write killed at one point of its work, and the store as a new process of
//! the backend serves it. The store must be in its state before the command or its state after,
//! whole: no file empty, cut, mixed or missing, a rename leaving exactly one of its two paths, a
//! delete the file or nothing. Killed after its answer, the command's state must be there: the
//! write was acknowledged.
//!
//! The page says nothing about crashes: these are the rules of the crash lane (`durability.*`
//! in `spec/rules.json`), and a torn or lost memory is a loss all the same.

use std::collections::{BTreeMap, BTreeSet};

use crate::judge::{Check, Finding};
use crate::spec::{Spec, known};

/// What each memory path of a store reads as (a path read as [`ReadAs::Absent`] holds nothing).
pub type Files = BTreeMap<String, ReadAs>;

/// What a memory path read as after the restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadAs {
    /// Nothing there: absent on disk, or the backend's `view` refused it.
    Absent,
    /// The file's bytes (the disk of a folder backend).
    Bytes(Vec<u8>),
    /// The file's lines, as the backend's `view` numbers them.
    Lines(Vec<String>),
}

/// Where the backend was killed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KillPoint {
    /// On entry to storage call `index` (1-based) of the `of` the command makes; `call` says
    /// what it was (`write /…/notes.md`).
    Before {
        /// Which call.
        index: usize,
        /// How many the command makes.
        of: usize,
        /// What the call was.
        call: String,
    },
    /// Right after its answer, which acknowledged the command.
    AfterAnswer,
    /// At a random moment, this long after the command was sent, before its answer: where the
    /// backend cannot be traced.
    At {
        /// How long after.
        after: std::time::Duration,
    },
}

impl std::fmt::Display for KillPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KillPoint::Before { index, of, call } => write!(
                f,
                "killed before storage call {index} of {of} (`{call}`, which never ran)"
            ),
            KillPoint::AfterAnswer => write!(f, "killed right after its answer"),
            KillPoint::At { after } => write!(
                f,
                "killed {} µs after it was sent, before its answer",
                after.as_micros()
            ),
        }
    }
}

/// A crash point and what the store showed after it.
pub struct Crash<'a> {
    /// The command, as sent (`str_replace` of /memories/notes.md …), described.
    pub command: &'a str,
    /// Where it was killed.
    pub point: &'a KillPoint,
    /// Whether the command, run to the end, answered with success (a refused command must leave
    /// the old state).
    pub succeeds: bool,
    /// The store before the command, as the backend served it.
    pub old: &'a Files,
    /// The store after it, as the backend served it when it ran to the end without a kill.
    pub new: &'a Files,
    /// Each path of either state, read through the restarted backend.
    pub read: &'a BTreeMap<String, ReadAs>,
    /// The paths the restarted backend's listing of `/memories` names (without a trailing `/`),
    /// when it answered one.
    pub listed: Option<&'a [String]>,
    /// Storage calls to files the command made before an answer that followed no fsync, when
    /// that is what the trace showed (`decide.crash-fsync`, INFO).
    pub unsynced: Option<usize>,
    /// Why a new process could not serve the store after the kill, when it could not: every
    /// memory in it is out of reach.
    pub unserved: Option<&'a str>,
}

/// What did not hold after the crash.
pub(super) fn judge<'a>(crash: Crash<'a>, spec: &Spec) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(calls) = crash.unsynced {
        findings.push(unsynced(crash.command, calls, spec));
    }
    let is = |state: &Files| {
        crash
            .read
            .iter()
            .all(|(path, read)| holds(read, state.get(path)))
    };
    let (old_ok, new_ok) = (is(crash.old), is(crash.new));
    let acceptable = match crash.point {
        KillPoint::AfterAnswer if crash.succeeds => new_ok,
        _ if !crash.succeeds => old_ok,
        _ => old_ok || new_ok,
    };
    if !acceptable {
        let rule = known::DURABILITY_CRASH;
        let wanted = match crash.point {
            KillPoint::AfterAnswer if crash.succeeds => {
                "is not in the state its answer acknowledged"
            }
            _ if !crash.succeeds => "is not in its state before it (the command is refused)",
            _ => "is in neither its state before it nor its state after it",
        };
        findings.push(Finding::new(
            Check::Lost,
            spec.level(&rule),
            rule,
            format!(
                "{}, {}, then restarted: the store {wanted}: {}",
                crash.command,
                crash.point,
                match crash.unserved {
                    Some(why) => format!(
                        "a new process could not serve it ({})",
                        bounded(why.lines().next().unwrap_or_default())
                    ),
                    None => differences(&crash),
                }
            ),
        ));
    }
    if let Some(listed) = crash.listed {
        let present = |files: &'a Files| {
            files
                .iter()
                .filter(|(_, read)| **read != ReadAs::Absent)
                .map(|(path, _)| path)
        };
        let known: BTreeSet<String> = present(crash.old)
            .chain(present(crash.new))
            .flat_map(|path| folders_and_self(path))
            .collect();
        let extra: Vec<&String> = listed
            .iter()
            .filter(|path| path.as_str() != "/memories" && !known.contains(path.as_str()))
            .take(3)
            .collect();
        if !extra.is_empty() {
            let rule = known::DURABILITY_CRASH_LEFTOVERS;
            findings.push(Finding::new(
                Check::Effect,
                spec.level(&rule),
                rule,
                format!(
                    "{}, {}, then restarted: the listing of /memories shows what no memory is: {}",
                    crash.command,
                    crash.point,
                    extra
                        .iter()
                        .map(|p| bounded(p))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    findings
}

/// The finding of a command acknowledged without a flush to disk: `syncs` flushes seen while it
/// ran, over `calls` storage calls to files.
fn unsynced(command: &str, calls: usize, spec: &Spec) -> Finding {
    let rule = known::DECIDE_CRASH_FSYNC;
    Finding::new(
        Check::Effect,
        spec.level(&rule),
        rule,
        format!(
            "{command} was acknowledged after {calls} storage call(s) and no fsync: a power loss right after the answer may lose it (a process kill does not)"
        ),
    )
}

/// Whether `read` is `want` (`None`: nothing there).
fn holds(read: &ReadAs, want: Option<&ReadAs>) -> bool {
    read == want.unwrap_or(&ReadAs::Absent)
}

/// Each path that is neither as before nor as after, in words; or, when each path alone is one
/// of the two, which state they are in: all the one the kill point rules out (the acknowledged
/// write undone, the refused one done), or a mix of both.
fn differences(crash: &Crash<'_>) -> String {
    let mut said = Vec::new();
    for (path, read) in crash.read {
        let (old, new) = (crash.old.get(path), crash.new.get(path));
        if holds(read, old) || holds(read, new) {
            continue;
        }
        said.push(format!(
            "{} {} (before: {}; after: {})",
            bounded(path),
            describe(read),
            want(old),
            want(new)
        ));
    }
    if said.is_empty() {
        // Each path is one of its two states: the paths the command changes are either all
        // in the state the kill point rules out, or some in each.
        let changed: Vec<(&String, bool)> = crash
            .read
            .iter()
            .filter(|(path, _)| crash.old.get(*path) != crash.new.get(*path))
            .map(|(path, read)| (path, holds(read, crash.old.get(path))))
            .collect();
        let paths = |changed: &[(&String, bool)]| {
            changed
                .iter()
                .map(|(path, _)| bounded(path))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if changed.iter().all(|(_, before)| *before) {
            return format!("every path is as before the command ({})", paths(&changed));
        }
        if changed.iter().all(|(_, before)| !*before) {
            return format!("every path is as after the command ({})", paths(&changed));
        }
        let mixed: Vec<String> = changed
            .iter()
            .map(|(path, before)| {
                let which = if *before { "as before" } else { "as after" };
                format!("{} {which}", bounded(path))
            })
            .collect();
        return format!("the paths mix both states ({})", mixed.join(", "));
    }
    said.join("; ")
}

fn describe(read: &ReadAs) -> String {
    match read {
        ReadAs::Absent => "is missing".to_string(),
        ReadAs::Bytes(bytes) if bytes.is_empty() => "is empty".to_string(),
        ReadAs::Bytes(bytes) => format!("holds {} bytes", bytes.len()),
        ReadAs::Lines(lines) => format!("reads as {} line(s)", lines.len()),
    }
}

fn want(read: Option<&ReadAs>) -> String {
    match read.unwrap_or(&ReadAs::Absent) {
        ReadAs::Absent => "absent".to_string(),
        ReadAs::Bytes(bytes) => format!("{} bytes", bytes.len()),
        ReadAs::Lines(lines) => format!("{} line(s)", lines.len()),
    }
}

/// `path` and every folder above it below `/memories`.
fn folders_and_self(path: &str) -> Vec<String> {
    let mut all = vec![path.to_string()];
    let mut rest = path;
    while let Some((parent, _)) = rest.rsplit_once('/') {
        if parent.len() <= "/memories".len() {
            break;
        }
        all.push(parent.to_string());
        rest = parent;
    }
    all
}

fn bounded(text: &str) -> String {
    let shown: String = text.chars().filter(|c| !c.is_control()).take(200).collect();
    format!("{shown:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &str) -> ReadAs {
        ReadAs::Bytes(text.as_bytes().to_vec())
    }

    fn files(entries: &[(&str, ReadAs)]) -> Files {
        entries
            .iter()
            .map(|(path, read)| ((*path).to_string(), read.clone()))
            .collect()
    }

    /// The message of the loss a crash at `point` reads as, when the store reads as `read`.
    fn said(point: &KillPoint, succeeds: bool, read: &Files) -> String {
        let old = files(&[
            ("/memories/a.md", bytes("a")),
            ("/memories/b.md", ReadAs::Absent),
        ]);
        let new = files(&[
            ("/memories/a.md", ReadAs::Absent),
            ("/memories/b.md", bytes("a")),
        ]);
        let spec = crate::spec::Spec::builtin(crate::spec::Revision::default())
            .unwrap_or_else(|e| panic!("built-in spec: {e}"));
        let crash = Crash {
            command: "`rename` of /memories/a.md to /memories/b.md",
            point,
            succeeds,
            old: &old,
            new: &new,
            read,
            listed: None,
            unsynced: None,
            unserved: None,
        };
        judge(crash, &spec)
            .into_iter()
            .map(|f| f.message)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// "The paths mix both states" only when they do: an acknowledged rename undone whole
    /// leaves every path as before, and a refused one done whole every path as after.
    #[test]
    fn a_store_wholly_in_one_state_is_not_said_to_mix_them() {
        let before = files(&[
            ("/memories/a.md", bytes("a")),
            ("/memories/b.md", ReadAs::Absent),
        ]);
        let undone = said(&KillPoint::AfterAnswer, true, &before);
        assert!(
            undone.ends_with(
                "every path is as before the command (\"/memories/a.md\", \"/memories/b.md\")"
            ),
            "{undone}"
        );
        let after = files(&[
            ("/memories/a.md", ReadAs::Absent),
            ("/memories/b.md", bytes("a")),
        ]);
        let done = said(&KillPoint::AfterAnswer, false, &after);
        assert!(
            done.contains("every path is as after the command"),
            "{done}"
        );
        let both = files(&[
            ("/memories/a.md", bytes("a")),
            ("/memories/b.md", bytes("a")),
        ]);
        let point = KillPoint::Before {
            index: 2,
            of: 3,
            call: "unlink".to_string(),
        };
        let mixed = said(&point, true, &both);
        assert!(
            mixed.contains(
                "the paths mix both states (\"/memories/a.md\" as before, \"/memories/b.md\" as after)"
            ),
            "{mixed}"
        );
    }

    #[test]
    fn folders_above_a_path_are_known() {
        assert_eq!(
            folders_and_self("/memories/a/b/c.md"),
            ["/memories/a/b/c.md", "/memories/a/b", "/memories/a"]
        );
    }
}
