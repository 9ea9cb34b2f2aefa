//! A difference between the memory folders after a step: its first files read from both
//! folders to be shown (the judge grades it, [`crate::judge::folder_divergence`]).

use std::os::fd::AsFd;

use crate::exec::tree::Difference;
use crate::exec::{Sandbox, fs};
use crate::replay::{FILE_CONTENT_LIMIT, FileDifference};

/// Files shown for a folder difference: the first few, both sides read again.
const FILES_SHOWN: usize = 4;

pub(super) fn file_differences(
    paths: &[(String, Difference)],
    (backend, reference): (&Sandbox, &Sandbox),
) -> Vec<FileDifference> {
    // Never through a link, never more than is shown.
    let read = |root: &Sandbox, path: &str| {
        let memories = root.open_memories()?;
        let parts = fs::components(path).ok()?;
        let (last, parents) = parts.split_last()?;
        let dir = fs::walk(memories.as_fd(), parents, false).ok()?;
        let bytes = fs::read_prefix(
            dir.as_fd(),
            &fs::c_name(last).ok()?,
            FILE_CONTENT_LIMIT as u64,
        )
        .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    paths
        .iter()
        .map(|(path, _)| FileDifference {
            path: format!("/memories/{path}"),
            backend: read(backend, path),
            reference: read(reference, path),
        })
        .filter(|f| f.backend.is_some() || f.reference.is_some())
        .take(FILES_SHOWN)
        .collect()
}
