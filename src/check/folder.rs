//! Whether a backend taken to keep its memories in `{memories}` does. The guess comes from its
//! command line (it names `{memories}` or `{base}`, as every `--python` and `--node` adapter
//! does), and a wrong one is costly: a store kept in `{state}` or a database, checked on the
//! folder, has every file it wrote missing on disk, hundreds of false "memories LOST". So before
//! the cases, one file is made through the tool and looked for on disk: not there while the
//! backend's own `view` shows it, the store is elsewhere and the run is checked as
//! `--not-on-folder`, which the report says once.

use serde_json::json;

use crate::backend::{BackendSpec, Timeouts};
use crate::exec::{Looked, Session};

/// The file the probe makes (in a fresh sandbox, removed with it).
const PROBE_PATH: &str = "/memories/memspec-where-stored.md";

/// Its text.
const PROBE_TEXT: &str = "where this backend keeps its memories\n";

/// What the report says when the probe moved the run off the folder.
pub const OFF_FOLDER: &str = "the backend keeps its memories outside {memories}: a file it created was not on disk, and its own view showed it, so it is checked as --not-on-folder (effects read through its view; the cases that need files planted on disk are skipped); pass --not-on-folder to say so yourself";

/// `backend`, or the same backend off the folder when a file it creates is not on disk but its
/// view shows it; with the note to give. A backend already off the folder, the reference, and
/// any probe that cannot tell (a refused create, a backend that breaks) are left as they are.
pub fn settle(backend: &BackendSpec, timeouts: Timeouts) -> (BackendSpec, Option<&'static str>) {
    let as_is = (backend.clone(), None);
    if !matches!(
        backend,
        BackendSpec::Command {
            on_folder: true,
            ..
        }
    ) {
        return as_is;
    }
    // Started as the first worker is: a store kept per worker is that worker's.
    let Ok(mut session) = Session::start(&backend.for_worker(0), timeouts) else {
        return as_is;
    };
    session.watch_outside();
    let mut stored_elsewhere = stored_elsewhere(&mut session);
    // A backend that did anything beside its memories is left to the cases, which report it.
    stored_elsewhere &= session.check_sandbox().breaches.is_empty();
    // A store kept elsewhere keeps the file: it goes, as far as the backend lets it.
    let _ = session.call(&json!({"command": "delete", "path": PROBE_PATH}));
    session.discard();
    if stored_elsewhere {
        (backend.clone().on_folder(Some(false)), Some(OFF_FOLDER))
    } else {
        as_is
    }
}

/// Whether a file `session`'s backend created is missing on disk and shown by its view.
fn stored_elsewhere(session: &mut Session) -> bool {
    let create = json!({"command": "create", "path": PROBE_PATH, "file_text": PROBE_TEXT});
    match session.call(&create) {
        Ok(answer) if !answer.is_error => {}
        _ => return false,
    }
    if !matches!(session.sandbox().look(PROBE_PATH), Ok(Looked::Nothing(_))) {
        return false;
    }
    let view = json!({"command": "view", "path": PROBE_PATH});
    session
        .call(&view)
        .is_ok_and(|answer| !answer.is_error && answer.text.contains(PROBE_TEXT.trim_end()))
}
