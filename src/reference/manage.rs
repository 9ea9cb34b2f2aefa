//! `delete` and `rename`: the commands that remove or move whole entries.

use std::io;

use super::confine::{self, Occupant, WalkError};
use super::{Outcome, Reference, locate, messages, parse, walk_error};

pub(super) fn delete(reference: &Reference, spelled: &str) -> Outcome {
    if parse(spelled)?.is_root() {
        return Err(messages::delete_root());
    }
    let _lock = reference
        .root()
        .lock()
        .map_err(|e| messages::io_failure("delete", spelled, &e))?;
    let located = locate(reference, spelled, messages::delete_missing)?;
    let Some(name) = &located.name else {
        return Err(messages::delete_root());
    };
    if located.kind == Occupant::Missing {
        return Err(messages::delete_missing(spelled));
    }
    // `link/` asks for what the link points to; the reference never follows a link.
    if located.kind == Occupant::Symlink && located.path.has_trailing_slash() {
        return Err(messages::symlink_refused(
            spelled,
            &located.path.to_string(),
        ));
    }
    match confine::delete(&located.parent, name, located.kind) {
        Ok(()) => Ok(messages::delete_ok(spelled)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(messages::delete_missing(spelled)),
        Err(e) => Err(messages::io_failure("delete", spelled, &e)),
    }
}

pub(super) fn rename(reference: &Reference, old_spelled: &str, new_spelled: &str) -> Outcome {
    let old = parse(old_spelled)?;
    let new = parse(new_spelled)?;
    if old.is_root() {
        return Err(messages::rename_root());
    }
    let _lock = reference
        .root()
        .lock()
        .map_err(|e| messages::io_failure("rename", old_spelled, &e))?;
    let source = locate(reference, old_spelled, messages::rename_missing)?;
    let Some(old_name) = &source.name else {
        return Err(messages::rename_root());
    };
    if source.kind == Occupant::Missing {
        return Err(messages::rename_missing(old_spelled));
    }
    if source.kind == Occupant::Symlink && source.path.has_trailing_slash() {
        return Err(messages::symlink_refused(
            old_spelled,
            &source.path.to_string(),
        ));
    }
    if new.is_root() {
        return Err(messages::rename_exists(new_spelled));
    }
    // Like create: a trailing slash names a folder, and a file cannot become one.
    if new.has_trailing_slash() && source.kind != Occupant::Dir {
        return Err(messages::rename_trailing_slash(old_spelled, new_spelled));
    }
    // Destination: refuse if anything is there; a missing parent is fine (it gets created).
    let new_name = new
        .components()
        .last()
        .map(String::as_str)
        .unwrap_or_default();
    let existing_parent = match reference.root().parent_of(new.components(), false) {
        Ok(parent) => {
            if confine::kind_of(&parent, new_name) != Occupant::Missing {
                return Err(messages::rename_exists(new_spelled));
            }
            Some(parent)
        }
        Err(WalkError::Missing { .. }) => None,
        Err(WalkError::NotDir { at }) => {
            return Err(messages::rename_parent_not_dir(
                new_spelled,
                &new.prefix_display(at + 1),
            ));
        }
        Err(e) => {
            return Err(walk_error(
                e,
                &new,
                new_spelled,
                "rename",
                messages::rename_missing,
            ));
        }
    };
    if source.kind == Occupant::Dir && new.starts_with(&old) {
        return Err(messages::rename_into_itself(old_spelled, new_spelled));
    }
    // The destination's folder as found above (under the lock, nothing of ours moved it), or
    // made now that the checks passed.
    let target_parent = match existing_parent {
        Some(parent) => parent,
        None => reference
            .root()
            .parent_of(new.components(), true)
            .map_err(|e| match e {
                WalkError::NotDir { at } | WalkError::Missing { at } => {
                    messages::rename_parent_not_dir(new_spelled, &new.prefix_display(at + 1))
                }
                other => walk_error(other, &new, new_spelled, "rename", messages::rename_missing),
            })?,
    };
    match confine::rename_no_replace(&source.parent, old_name, &target_parent, new_name) {
        Ok(()) => Ok(messages::rename_ok(old_spelled, new_spelled)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            Err(messages::rename_exists(new_spelled))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(messages::rename_missing(old_spelled)),
        Err(e) => Err(messages::io_failure("rename", old_spelled, &e)),
    }
}
