//! The TUI's views, drawn into ratatui's `TestBackend` at 80x24 and 160x48, as insta
//! snapshots. `TestBackend` keeps glyphs but not styles, so below every row with emphasised
//! (changed) characters a `^` row marks them: the emphasis is part of what is checked.

use memspec::replay::Replay;
use memspec::tui::action::Action;
use memspec::tui::{App, Options};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::style::Modifier;

use super::{proxy, replay, replay_with, snap, spec};

const SMALL: (u16, u16) = (80, 24);
const LARGE: (u16, u16) = (160, 48);

fn app(replayed: Replay) -> App {
    App::new(replayed, Some(spec()), Options { mouse: true })
}

/// Draws a frame and returns its rows, each emphasised run marked with `^` underneath.
fn render(app: &mut App, (width, height): (u16, u16)) -> String {
    let mut terminal =
        Terminal::new(TestBackend::new(width, height)).unwrap_or_else(|e| panic!("{e}"));
    terminal
        .draw(|frame| app.draw(frame))
        .unwrap_or_else(|e| panic!("{e}"));
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        let mut row = String::new();
        let mut marks = String::new();
        for x in 0..width {
            let cell = &buffer[(x, y)];
            let symbol = cell.symbol();
            row.push_str(symbol);
            let emphasised = cell
                .modifier
                .contains(Modifier::UNDERLINED | Modifier::REVERSED);
            for _ in symbol.chars() {
                marks.push(if emphasised { '^' } else { ' ' });
            }
        }
        out.push('│');
        out.push_str(row.trim_end());
        out.push('\n');
        if marks.contains('^') {
            out.push('^');
            out.push_str(marks.trim_end());
            out.push('\n');
        }
    }
    out
}

fn key(app: &mut App, code: KeyCode) {
    app.key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn both(name: &str, make: impl Fn() -> App, prepare: impl Fn(&mut App)) {
    for (size, label) in [(SMALL, "80x24"), (LARGE, "160x48")] {
        let mut app = make();
        // A first frame tells the app which layout is on screen (tabs only exist in the compact one).
        render(&mut app, size);
        prepare(&mut app);
        snap(&format!("tui_{name}_{label}"), &render(&mut app, size));
    }
}

fn fifty() -> App {
    app(replay("sdk-python-50.request.json"))
}

#[test]
fn opens_on_the_first_divergence() {
    both("first_divergence", fifty, |_| {});
}

#[test]
fn side_by_side() {
    both("side_by_side", fifty, |app| key(app, KeyCode::Char('v')));
}

#[test]
fn results_tab() {
    let mut app = fifty();
    render(&mut app, SMALL);
    key(&mut app, KeyCode::Char('2'));
    snap("tui_results_80x24", &render(&mut app, SMALL));
}

#[test]
fn tree_and_input_tabs() {
    let mut app = fifty();
    render(&mut app, SMALL);
    key(&mut app, KeyCode::Char('3'));
    snap("tui_tree_80x24", &render(&mut app, SMALL));
    key(&mut app, KeyCode::Char('4'));
    snap("tui_input_80x24", &render(&mut app, SMALL));
}

#[test]
fn help_overlay() {
    both("help", fifty, |app| key(app, KeyCode::Char('?')));
}

#[test]
fn search() {
    both("search_prompt", fifty, |app| keys(app, "/Ferme"));
    both("search_matches", fifty, |app| {
        keys(app, "/Ferme");
        key(app, KeyCode::Enter);
        key(app, KeyCode::Char('n'));
    });
}

#[test]
fn a_known_dialect() {
    both("dialect", fifty, |app| key(app, KeyCode::Char('g')));
}

#[test]
fn review_of_a_golden_file() {
    both("review", || app(replay("golden-tidy.jsonl")), |_| {});
}

#[test]
fn the_backend_folder_differs() {
    let mut replayed = replay_with("request.json", proxy("expandtabs"), false);
    // The command line names absolute paths of this checkout; snapshots must not.
    replayed.backend = "tidy_proxy.py expandtabs".to_string();
    let mut small = app(replayed.clone());
    render(&mut small, SMALL);
    key(&mut small, KeyCode::Char('3'));
    snap("tui_tree_differs_80x24", &render(&mut small, SMALL));
    let mut large = app(replayed);
    snap("tui_tree_differs_160x48", &render(&mut large, LARGE));
}

#[test]
fn n_moves_between_divergences_until_a_search_is_active() {
    let mut app = fifty();
    render(&mut app, SMALL);
    assert_eq!(app.selected(), 3);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.selected(), 4);
    key(&mut app, KeyCode::Char('N'));
    assert_eq!(app.selected(), 3);
    keys(&mut app, "/get_weather");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.selected(), 6);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.selected(), 26);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.selected(), 6, "search wraps");
    key(&mut app, KeyCode::Char('}'));
    assert_eq!(app.selected(), 9, "}} always moves between divergences");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.selected(), 10);
    app.apply(Action::LastStep);
    app.apply(Action::FirstDivergence);
    assert_eq!(app.selected(), 3);
}

#[test]
fn the_mouse_scrolls_and_selects_unless_turned_off() {
    let mut app = fifty();
    render(&mut app, SMALL);
    let event = |kind, column, row| MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    // Row 2 of the screen is the first step of the list (header, then the list's title).
    app.mouse(event(MouseEventKind::Down(MouseButton::Left), 5, 2));
    assert_eq!(app.selected(), 0);
    app.mouse(event(MouseEventKind::ScrollDown, 5, 10));
    assert_eq!(app.selected(), 3);
    key(&mut app, KeyCode::Char('m'));
    app.mouse(event(MouseEventKind::ScrollDown, 5, 10));
    assert_eq!(app.selected(), 3, "mouse off");
}

#[test]
fn ctrl_c_quits() {
    let mut app = fifty();
    app.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(app.should_quit());
}

#[test]
fn esc_then_a_key_in_one_read_is_both_presses() {
    // A terminal sends Esc and a quick `q` as `ESC q`, which crossterm reads as Alt-q:
    // it closes the help and then quits, as the two presses would.
    let mut app = fifty();
    key(&mut app, KeyCode::Char('?'));
    app.key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::ALT));
    assert!(app.should_quit());
}

#[test]
fn any_terminal_size_draws_without_panicking() {
    // Terminals get resized to anything, down to a single cell; every view must cope.
    let sizes = [
        (1, 1),
        (2, 1),
        (10, 3),
        (20, 5),
        (40, 10),
        (79, 23),
        (300, 3),
        (3, 100),
    ];
    let preparations: [&dyn Fn(&mut App); 6] = [
        &|_| {},
        &|app| key(app, KeyCode::Char('?')),
        &|app| key(app, KeyCode::Char('v')),
        &|app| key(app, KeyCode::Char('2')),
        &|app| key(app, KeyCode::Char('3')),
        &|app| keys(app, "/view"),
    ];
    for size in sizes {
        for prepare in preparations {
            let mut app = fifty();
            render(&mut app, size);
            prepare(&mut app);
            render(&mut app, size);
            key(&mut app, KeyCode::Char('j'));
            render(&mut app, size);
        }
    }
}
