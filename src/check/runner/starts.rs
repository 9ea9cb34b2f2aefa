//! What the workers of a run learn about whether the backend starts at all and how its cases
//! break: the bookkeeping that stops a run early, with [`RunError::NeverStarted`] or
//! [`RunError::BrokeAlike`], when every further case would say the same thing.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::RunError;

/// Backend processes that exit without reading anything, none of the run's having ever read a
/// request, after which the run stops: the backend never starts, and every case would say so.
pub const NEVER_STARTED_LIMIT: usize = 3;

/// Cases in a row that broke the same way, none of the run's having ended normally, after
/// which the run stops: every case would say the same thing.
pub const SAME_BREAK_LIMIT: usize = 8;

/// What the workers of a run learn about whether the backend starts at all.
#[derive(Debug, Default)]
pub struct Starts {
    /// A process read a request (answered or not): the backend starts.
    started: std::sync::atomic::AtomicBool,
    unread_exits: AtomicUsize,
    first_stderr: Mutex<Option<String>>,
    /// A case ended without breaking: the backend works, at least sometimes.
    worked: std::sync::atomic::AtomicBool,
    /// How the cases so far broke (the first reason and its kind), and how many in a row.
    alike: Mutex<Option<(String, String, usize)>>,
}

impl Starts {
    /// Notes what a backend process did before it was stopped (whether it exited before
    /// reading anything); `stderr` is its excerpt.
    pub(super) fn saw(&self, exited_unread: bool, stderr: Option<&str>) {
        if exited_unread {
            if let Ok(mut first) = self.first_stderr.lock() {
                first.get_or_insert_with(|| stderr.unwrap_or_default().to_string());
            }
            self.unread_exits.fetch_add(1, Ordering::Relaxed);
        } else {
            self.started.store(true, Ordering::Relaxed);
        }
    }

    /// Notes how a case ended: normally (`None`), or broken for `reason`.
    pub(super) fn ended(&self, reason: Option<&str>) {
        let Some(reason) = reason else {
            self.worked.store(true, Ordering::Relaxed);
            return;
        };
        let kind = break_kind(reason);
        if let Ok(mut alike) = self.alike.lock() {
            match alike.as_mut() {
                Some((_, seen, count)) if *seen == kind => *count += 1,
                _ => *alike = Some((reason.to_string(), kind, 1)),
            }
        }
    }

    /// Whether the run should stop, and why.
    pub(super) fn verdict(&self) -> Option<RunError> {
        if !self.worked.load(Ordering::Relaxed)
            && let Ok(alike) = self.alike.lock()
            && let Some((reason, _, times)) = alike.as_ref()
            && *times >= SAME_BREAK_LIMIT
        {
            return Some(RunError::BrokeAlike {
                times: *times,
                reason: reason.clone(),
            });
        }
        let times = self.unread_exits.load(Ordering::Relaxed);
        if self.started.load(Ordering::Relaxed) || times < NEVER_STARTED_LIMIT {
            return None;
        }
        let stderr = self
            .first_stderr
            .lock()
            .ok()
            .and_then(|first| first.clone())
            .unwrap_or_default();
        Some(RunError::NeverStarted { times, stderr })
    }
}

/// What kind of break a reason describes: its words before the first detail (`(`, `:`, `;`), so
/// that two crashes with different exit codes or stderr are the same kind.
fn break_kind(reason: &str) -> String {
    let end = reason.find(['(', ':', ';']).unwrap_or(reason.len());
    reason[..end].trim().to_string()
}
