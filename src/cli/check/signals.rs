//! The clean-up when SIGINT or SIGTERM ends a command that runs backends.

use std::io;

use crate::cli::say;

/// From now on, SIGINT and SIGTERM remove the run's temporary folders (sandboxes, the scratch
/// folders of `replay` and `record`, embedded adapters) and end the process with the shell's
/// code for the signal (130, 143): drops never run when a signal ends a process, and each
/// worker's sandbox would stay in `TMPDIR`. For every command that runs backends, except the
/// replay TUI, which ends on its own signals with the terminal restored.
pub(crate) fn clean_up_on_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        // Without the handler the run still works; only a signal would leave folders behind.
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // Held until the exit: the run, whose backends are about to die, cannot print a
            // report of their deaths, nor end first with its own exit code.
            let _out = io::stdout().lock();
            let _err = io::stderr().lock();
            // The backends first: one still running could write into a sandbox being removed,
            // and, in a session of its own, it would outlive memspec.
            memspec::exec::children::kill_child_groups();
            for left in memspec::exec::sandbox::remove_live() {
                say(&format!("could not remove {left}"));
            }
            // Again: a worker may have started a process for its next case before the
            // removal, after which no sandbox is made.
            memspec::exec::children::kill_child_groups();
            std::process::exit(128 + signal);
        }
    });
}
