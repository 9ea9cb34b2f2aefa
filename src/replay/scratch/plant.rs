//! Planting a seed: in a sandbox by the case runner's own code, or through the tool, one
//! `create` per file, for a backend that keeps its memories elsewhere.

use super::seed::entry_name;
use super::{Seed, SeedError};
use crate::exec::plant::FixtureKind;
use crate::exec::sandbox::FixtureError;
use crate::exec::{Sandbox, Session};

impl Seed {
    /// Makes the seed in `sandbox`: outside entries first, then `/memories`, each by the case
    /// runner's own code. `seed` names it in errors.
    pub fn plant(&self, sandbox: &Sandbox, seed: &str) -> Result<(), SeedError> {
        let outside = self
            .outside
            .iter()
            .map(|f| (sandbox.apply_outside(f), "outside", f));
        let memories = self
            .memories
            .iter()
            .map(|f| (sandbox.apply(f), "memories", f));
        let areas = outside.enumerate().chain(memories.enumerate());
        for (i, (made, area, fixture)) in areas {
            let entry = || entry_name(area, i, &fixture.path);
            match made {
                Ok(()) => {}
                Err(FixtureError::Invalid { reason, .. }) => {
                    return Err(SeedError::Entry {
                        seed: seed.to_string(),
                        entry: entry(),
                        reason,
                    });
                }
                // In a fresh sandbox only the seed itself is in the way: two entries at one
                // path, a file where a folder goes, a name of the canaries.
                Err(FixtureError::InTheWay(reason)) => {
                    return Err(SeedError::Entry {
                        seed: seed.to_string(),
                        entry: entry(),
                        reason,
                    });
                }
                Err(FixtureError::Io { source, .. })
                    if source.raw_os_error()
                        == Some(rustix::io::Errno::NAMETOOLONG.raw_os_error()) =>
                {
                    return Err(SeedError::Entry {
                        seed: seed.to_string(),
                        entry: entry(),
                        reason: source.to_string(),
                    });
                }
                Err(FixtureError::Io { source, .. }) => {
                    return Err(SeedError::Plant {
                        seed: seed.to_string(),
                        entry: entry(),
                        source,
                    });
                }
            }
        }
        Ok(())
    }
}

impl Seed {
    /// Plants the seed's `/memories` entries through the tool, in order: a `create` per file
    /// (text, or bytes that are UTF-8). What no call can make (a folder with no file below it,
    /// a link, a FIFO, bytes that are not text) and creates the backend refused are named in
    /// the notes returned, after one line that counts what was planted.
    pub fn plant_through_tool(&self, session: &mut Session) -> Vec<String> {
        let mut planted = 0;
        let mut missed = Vec::new();
        for fixture in &self.memories {
            let path = format!("/memories/{}", fixture.path.trim_end_matches('/'));
            let text = match &fixture.kind {
                FixtureKind::Text(text) => Ok(text.clone()),
                FixtureKind::Repeat {
                    line,
                    count,
                    final_newline,
                } => {
                    let mut text = format!("{line}\n").repeat(*count);
                    if !final_newline {
                        text.pop();
                    }
                    Ok(text)
                }
                FixtureKind::BytesHex(hex) => crate::exec::sandbox::decode_hex(hex)
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                    .ok_or("bytes that are not UTF-8 text, which `create` cannot write"),
                FixtureKind::Dir(_) => {
                    let prefix = format!("{}/", fixture.path.trim_end_matches('/'));
                    let holds_file = self.memories.iter().any(|f| {
                        f.path.starts_with(&prefix) && !matches!(f.kind, FixtureKind::Dir(_))
                    });
                    if holds_file {
                        continue;
                    }
                    Err("an empty folder, which no call makes")
                }
                FixtureKind::Symlink(_) => Err("a symbolic link, which no call makes"),
                FixtureKind::Hardlink(_) => Err("a hard link, which no call makes"),
                FixtureKind::Fifo(_) => Err("a named pipe, which no call makes"),
            };
            let text = match text {
                Ok(text) => text,
                Err(why) => {
                    missed.push(format!("{path}: not planted, {why}"));
                    continue;
                }
            };
            let input = serde_json::json!({"command": "create", "path": path, "file_text": text});
            match session.call(&input) {
                Ok(answer) if !answer.is_error => planted += 1,
                Ok(answer) => missed.push(format!(
                    "{path}: not planted, the backend refused the create: {}",
                    answer
                        .text
                        .lines()
                        .next()
                        .unwrap_or("")
                        .chars()
                        .take(200)
                        .collect::<String>()
                )),
                Err(fault) => missed.push(format!("{path}: not planted, {fault}")),
            }
        }
        let mut notes = vec![format!(
            "seed planted through the tool (the backend keeps its memories elsewhere): {planted} file(s) by `create`"
        )];
        notes.extend(missed);
        notes
    }
}
