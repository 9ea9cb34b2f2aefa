//! The disk as the witness of a folder backend's effects: what a path holds, against what a
//! case expects there. Reads go through [`Sandbox::look`], which follows no link, and read no
//! further than the expectation needs.

use super::witness::Seen;
use crate::exec::fs::NodeKind;
use crate::exec::sandbox::decode_hex;
use crate::exec::{Looked, Sandbox};
use crate::suite::case::EffectKind;

/// What the disk shows of `expect` at `memory_path`: it holds, it is missing (nothing there
/// where something should be), or it differs (with what is there, in words).
pub fn see(sandbox: &Sandbox, memory_path: &str, expect: &EffectKind) -> Seen {
    let entry = match sandbox.look(memory_path) {
        Err(why) => return Seen::Differs(why),
        Ok(Looked::Nothing(what)) => {
            return if matches!(expect, EffectKind::Absent(_)) {
                Seen::Holds
            } else {
                Seen::Missing(what)
            };
        }
        Ok(Looked::Entry(entry)) => entry,
    };
    // The byte strings the file may hold, any one of them.
    let wanted: Vec<Vec<u8>> = match expect {
        EffectKind::FileText(text) => vec![text.as_bytes().to_vec()],
        EffectKind::FileBytesHex(hex) => match decode_hex(hex) {
            Ok(bytes) => vec![bytes],
            Err(e) => return Seen::Differs(e.to_string()),
        },
        EffectKind::FileBytesHexOneOf(hexes) => {
            match hexes.iter().map(|hex| decode_hex(hex)).collect() {
                Ok(all) => all,
                Err(e) => return Seen::Differs(e.to_string()),
            }
        }
        EffectKind::Lines(lines) => {
            let joined = lines.join("\n");
            let mut ended = joined.clone();
            ended.push('\n');
            if lines.is_empty() {
                vec![Vec::new()]
            } else {
                vec![joined.into_bytes(), ended.into_bytes()]
            }
        }
        _ => Vec::new(),
    };
    let holds = match expect {
        EffectKind::Absent(_) => false,
        EffectKind::File(_) => entry.kind() == NodeKind::File,
        EffectKind::Dir(_) => entry.kind() == NodeKind::Dir,
        EffectKind::FileText(_)
        | EffectKind::FileBytesHex(_)
        | EffectKind::FileBytesHexOneOf(_)
        | EffectKind::Lines(_) => {
            // Only a file of one of the wanted sizes is read, and no further than that.
            let candidates: Vec<&Vec<u8>> = wanted
                .iter()
                .filter(|w| w.len() as u64 == entry.size())
                .collect();
            !candidates.is_empty()
                && entry
                    .read(entry.size())
                    .is_some_and(|bytes| candidates.iter().any(|w| **w == bytes))
        }
        EffectKind::Symlink(target) => {
            entry.kind() == NodeKind::Symlink && entry.link_target() == Some(sandbox.expand(target))
        }
    };
    if holds {
        Seen::Holds
    } else {
        Seen::Differs(entry.describe())
    }
}
