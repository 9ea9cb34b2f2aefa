//! The event loop, and a terminal that is restored however the TUI ends: normally (a guard's
//! `Drop`), on a panic (a hook that restores before the message is printed), on Ctrl-C (raw
//! mode turns it into a key, which quits through the keymap like `q`), and on SIGTERM or
//! SIGHUP (a flag the loop checks, so the guard still runs).
//!
//! A terminal that goes away (its window closed, `tmux kill-session`) is another matter:
//! crossterm 0.29 then spins inside `event::poll`, re-reading a tty that answers EOF, and never
//! returns to the loop (crossterm-rs/crossterm#793). A watch thread sees the hangup on its own
//! and ends the process as an unhandled SIGHUP would: there is no terminal left to restore.

use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind,
};
use ratatui::crossterm::execute;
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use signal_hook::consts::{SIGHUP, SIGTERM};

use super::model::{App, Options};
use super::{Ended, TuiError};
use crate::replay::Replay;
use crate::spec::Spec;

/// Runs the TUI over a replay until the user quits.
pub fn run(replay: Replay, spec: Option<Spec>, options: Options) -> Result<Ended, TuiError> {
    if !io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    let mut app = App::new(replay, spec, options);
    let signals = [SIGTERM, SIGHUP].map(|signal| (signal, Arc::new(AtomicBool::new(false))));
    for (signal, flag) in &signals {
        signal_hook::flag::register(*signal, Arc::clone(flag))?;
    }
    let _watch = HangupWatch::start();
    let mut guard = Guard::enter(options.mouse)?;
    let signalled = loop {
        guard.terminal.draw(|frame| app.draw(frame))?;
        // A signal ends the TUI as `q` would, minus writing reviewed golden changes: whoever
        // sent it did not ask for them to be saved.
        let signalled = signals
            .iter()
            .find(|(_, flag)| flag.load(Ordering::Relaxed))
            .map(|(signal, _)| *signal);
        if app.should_quit() || signalled.is_some() {
            break signalled;
        }
        // Waiting with a timeout rather than blocking keeps a resize or a signal from going
        // unnoticed for long.
        if !event::poll(Duration::from_millis(250))? {
            continue;
        }
        match event::read()? {
            Event::Key(key) if key.kind != KeyEventKind::Release => app.key(key),
            Event::Mouse(mouse) => app.mouse(mouse),
            _ => {}
        }
        if let Some(on) = app.take_mouse_change() {
            guard.set_mouse(on)?;
        }
    };
    drop(guard);
    Ok(Ended {
        review: app.review().cloned(),
        signal: signalled,
    })
}

/// A thread that ends the process when the terminal hangs up; told to stop on drop (not joined:
/// quitting should not wait out its poll).
struct HangupWatch {
    done: Arc<AtomicBool>,
}

impl HangupWatch {
    fn start() -> HangupWatch {
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        std::thread::spawn(move || {
            let stdout = io::stdout();
            // Half a second between looks at `done`; a hangup wakes the poll at once.
            let timeout = Timespec {
                tv_sec: 0,
                tv_nsec: 500_000_000,
            };
            while !stop.load(Ordering::Relaxed) {
                // No events asked for: poll still reports a hangup, and never reads a key.
                let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
                let gone = PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL;
                if let Ok(1..) = poll(&mut fds, Some(&timeout))
                    && fds[0].revents().intersects(gone)
                {
                    // Terminates the process with the SIGHUP status; it falls back on abort
                    // itself, and exit is the last resort should even that return.
                    let _ = signal_hook::low_level::emulate_default_handler(SIGHUP);
                    std::process::exit(128 + SIGHUP);
                }
            }
        });
        HangupWatch { done }
    }
}

impl Drop for HangupWatch {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Raw mode, the alternate screen and (optionally) mouse capture, undone on drop.
struct Guard {
    terminal: DefaultTerminal,
}

impl Guard {
    fn enter(mouse: bool) -> io::Result<Guard> {
        // ratatui's init installs a panic hook that restores the screen; ours wraps it to also
        // release the mouse, which ratatui does not capture and so does not release.
        let terminal = ratatui::try_init()?;
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = execute!(io::stdout(), DisableMouseCapture);
            previous(info);
        }));
        let guard = Guard { terminal };
        if mouse {
            execute!(io::stdout(), EnableMouseCapture)?;
        }
        Ok(guard)
    }

    fn set_mouse(&mut self, on: bool) -> io::Result<()> {
        if on {
            execute!(io::stdout(), EnableMouseCapture)
        } else {
            execute!(io::stdout(), DisableMouseCapture)
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // While unwinding, the panic hook has restored the terminal and printed the message:
        // leaving the alternate screen a second time would move the cursor back over it.
        if std::thread::panicking() {
            return;
        }
        let _ = execute!(io::stdout(), DisableMouseCapture);
        ratatui::restore();
        let _ = io::stdout().flush();
    }
}
