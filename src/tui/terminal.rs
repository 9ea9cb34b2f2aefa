//! The event loop, and a terminal that is restored however the TUI ends: normally (a guard's
//! `Drop`), on a panic (a hook that restores before the message is printed), and on Ctrl-C
//! (raw mode turns it into a key, which quits through the keymap like `q`).

use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind,
};
use ratatui::crossterm::execute;

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
    let mut guard = Guard::enter(options.mouse)?;
    loop {
        guard.terminal.draw(|frame| app.draw(frame))?;
        if app.should_quit() {
            break;
        }
        // Waiting with a timeout rather than blocking keeps a resize from going unnoticed.
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
    }
    drop(guard);
    Ok(Ended {
        review: app.review().cloned(),
    })
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
