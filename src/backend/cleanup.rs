//! What a signal ending the process must remove: drops never run when a process exits on a
//! signal. [`Registry`] holds such things by key, with the removals their owners have under way,
//! so that a signal's cleanup removes what is left and waits for what is being removed. Here it
//! holds memspec's own temporary folders (the embedded adapters); the sandboxes have a registry
//! of their own (`crate::exec::sandbox::remove_live`), which calls [`remove_folders`] too.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a signal's cleanup waits for removals under way: the process must still exit if
/// one hangs.
pub const REMOVALS_WAIT: Duration = Duration::from_secs(10);

/// Things to remove if a signal ends the process, by key.
#[derive(Debug)]
pub struct Registry<T> {
    state: Mutex<State<T>>,
    /// Signalled when an owner finished a removal.
    removed: Condvar,
}

#[derive(Debug)]
struct State<T> {
    next: u64,
    items: BTreeMap<u64, T>,
    /// Items their owners took out to remove and are removing now: a sweep waits for them
    /// before the process exits, or a half-removed one would stay behind.
    removing: usize,
    /// Set once a sweep ran: nothing is registered after it.
    closing: bool,
}

impl<T> Registry<T> {
    /// An empty registry.
    pub const fn new() -> Registry<T> {
        Registry {
            state: Mutex::new(State {
                next: 0,
                items: BTreeMap::new(),
                removing: 0,
                closing: false,
            }),
            removed: Condvar::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State<T>> {
        // A panic while holding the lock leaves the map as it was: still usable.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Makes an item with `make` and registers it, under the lock, so that a sweep either sees
    /// it or stops it from being made: `Ok(None)` once a sweep ran.
    pub fn register<R, E>(
        &self,
        make: impl FnOnce() -> Result<(T, R), E>,
    ) -> Result<Option<(u64, R)>, E> {
        let mut state = self.state();
        if state.closing {
            return Ok(None);
        }
        let (item, made) = make()?;
        let key = state.next;
        state.next += 1;
        state.items.insert(key, item);
        Ok(Some((key, made)))
    }

    /// Takes `key`'s item for its owner to remove; a sweep waits until the [`Removing`] is
    /// dropped. `None`: a sweep removed it already.
    pub fn take(&self, key: u64) -> Option<Removing<'_, T>> {
        let mut state = self.state();
        let item = state.items.remove(&key)?;
        state.removing += 1;
        Some(Removing {
            registry: self,
            item,
        })
    }

    /// Stops further registrations, removes every item still registered with `remove`, and
    /// waits (at most [`REMOVALS_WAIT`]) for the removals owners have under way; returns what
    /// could not be removed.
    pub fn sweep(&self, mut remove: impl FnMut(T) -> Vec<String>) -> Vec<String> {
        let mut state = self.state();
        state.closing = true;
        let mut left = Vec::new();
        for item in std::mem::take(&mut state.items).into_values() {
            left.extend(remove(item));
        }
        let deadline = Instant::now() + REMOVALS_WAIT;
        while state.removing > 0 {
            let Some(wait) = deadline.checked_duration_since(Instant::now()) else {
                left.push(format!(
                    "{} still being removed by their owners",
                    state.removing
                ));
                break;
            };
            state = self
                .removed
                .wait_timeout(state, wait)
                .map(|(guard, _)| guard)
                .unwrap_or_else(|poisoned| poisoned.into_inner().0);
        }
        left
    }
}

impl<T> Default for Registry<T> {
    fn default() -> Registry<T> {
        Registry::new()
    }
}

/// An item its owner took out of a [`Registry`] to remove: a sweep waits until it is dropped.
#[derive(Debug)]
pub struct Removing<'a, T> {
    registry: &'a Registry<T>,
    item: T,
}

impl<T> std::ops::Deref for Removing<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.item
    }
}

impl<T> Drop for Removing<'_, T> {
    fn drop(&mut self) {
        self.registry.state().removing -= 1;
        self.registry.removed.notify_all();
    }
}

static FOLDERS: Registry<PathBuf> = Registry::new();

/// A registered folder of memspec's own: removed when dropped, or by [`remove_folders`] if a
/// signal ends the process first, never both.
#[derive(Debug)]
pub struct LiveFolder {
    /// `None` when a signal's cleanup already ran: the process is about to exit.
    key: Option<u64>,
    path: PathBuf,
}

impl LiveFolder {
    /// Takes charge of `path`, a folder memspec made.
    pub fn register(path: PathBuf) -> LiveFolder {
        let registered = FOLDERS.register(|| Ok::<_, Infallible>((path.clone(), ())));
        let key = match registered {
            Ok(made) => made.map(|(key, ())| key),
            Err(never) => match never {},
        };
        LiveFolder { key, path }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for LiveFolder {
    fn drop(&mut self) {
        // Nobody is left to tell what could not be removed.
        match self.key {
            Some(key) => {
                // Not ours any more when a signal's cleanup removed it.
                if let Some(path) = FOLDERS.take(key) {
                    let _ = std::fs::remove_dir_all(&*path);
                }
            }
            // Registered after a signal's cleanup ran: the process is about to exit.
            None => {
                let _ = std::fs::remove_dir_all(&self.path);
            }
        }
    }
}

/// Removes every registered folder still alive, and waits (a while) for those their owners are
/// removing; returns what could not be removed.
pub fn remove_folders() -> Vec<String> {
    FOLDERS.sweep(|path| match std::fs::remove_dir_all(&path) {
        Ok(()) => Vec::new(),
        Err(e) => vec![format!("{}: {e}", path.display())],
    })
}

/// Set once the harness is being stopped: no backend process starts after that.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Held (shared) while a backend process is being started, and (alone) by [`stop_starts`]: a
/// stop waits for the starts under way, so that each process they make already runs in its own
/// session when the stop looks for the processes to kill, and none starts after it.
static STARTS: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Whether the harness is being stopped (see [`stop_starts`]).
pub fn stopping() -> bool {
    STOPPING.load(std::sync::atomic::Ordering::SeqCst)
}

/// Runs `start` (a spawn), unless the harness is being stopped (`None`).
pub(crate) fn start_unless_stopping<T>(start: impl FnOnce() -> T) -> Option<T> {
    let _start = STARTS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    (!stopping()).then(start)
}

/// From now on no backend process starts; returns once the starts under way are done.
pub fn stop_starts() {
    let _stop = STARTS
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
}
