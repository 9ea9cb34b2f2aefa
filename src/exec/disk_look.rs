//! What one call changed in a store shared by many users: `memories/` looked at whole after
//! every call of a case of many users on a folder, so that each change is told to the judge
//! with the user whose call made it (the users lane's disk witness).

use std::os::fd::AsFd;

use super::Sandbox;
use super::tree::{Scanner, Tree};

/// The last look at a sandbox's `memories/`, shared by the sessions of its users.
#[derive(Debug, Default)]
pub struct DiskLook {
    scanner: Scanner,
    tree: Tree,
}

impl DiskLook {
    /// A first look at `sandbox`'s `memories/`.
    pub fn of(sandbox: &Sandbox) -> DiskLook {
        let mut look = DiskLook::default();
        look.changes(sandbox);
        look
    }

    /// The paths below `memories/` (relative, `/`-separated) that differ from the last look, in
    /// path order; this look is then the last. The scan is the harness's bounded one: no link
    /// followed, depth and reads capped.
    pub fn changes(&mut self, sandbox: &Sandbox) -> Vec<String> {
        let memories = sandbox.open_memories();
        let now = self.scanner.scan(memories.as_ref().map(AsFd::as_fd));
        let changed = now
            .differences(&self.tree)
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        self.tree = now;
        changed
    }
}
