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
    assert_eq!(app.selected(), next_stop(&app, 10));
    app.apply(Action::LastStep);
    app.apply(Action::FirstDivergence);
    assert_eq!(app.selected(), 3);
}

/// The first step from `from` that `n` stops at: a divergence that is not only a consequence
/// of an earlier one (↳), as the verdict engine marks them.
fn next_stop(app: &App, from: usize) -> usize {
    (from..app.replay().steps.len())
        .find(|&i| {
            let verdict = &app.replay().steps[i].verdict;
            verdict.kind.diverges()
                && !verdict
                    .divergences
                    .iter()
                    .all(|d| d.cascade_of.is_some() && !d.security)
        })
        .unwrap_or(0)
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

/// A replay of a transcript that views a file of `lines` lines (each `line N` and then
/// `filler`), with the recorded view changed at `changed` (appending ` changed`): the diff
/// is the recording against the reference's view of the same file.
fn long_view(lines: usize, filler: &str, changed: &[usize]) -> Replay {
    let text: String = (1..=lines).map(|n| format!("line {n}{filler}\n")).collect();
    let mut view = String::from("Here's the content of /memories/long.txt with line numbers:");
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let mark = if changed.contains(&n) { " changed" } else { "" };
        view.push_str(&format!("\n{n:>6}\t{line}{mark}"));
    }
    let messages = serde_json::json!([
        {"role": "user", "content": "Read the long file."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "memory",
            "input": {"command": "create", "path": "/memories/long.txt", "file_text": text}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
            "content": "File created successfully at: /memories/long.txt"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "memory",
            "input": {"command": "view", "path": "/memories/long.txt"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": view}]},
    ]);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("long-view.messages.json");
    std::fs::write(&path, messages.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let transcript = memspec::transcript::read(&path, None).unwrap_or_else(|e| panic!("{e}"));
    let options = memspec::replay::ReplayOptions {
        backend: memspec::backend::BackendSpec::Reference(memspec::spec::Revision::Ga2026),
        seed: None,
        timeout: std::time::Duration::from_secs(10),
        check: false,
        revision: memspec::spec::Revision::Ga2026,
        user: None,
    };
    let mut replayed =
        memspec::replay::replay(transcript, &options, Some(&spec()), &memspec::events::Quiet)
            .unwrap_or_else(|e| panic!("{e}"));
    // Snapshots must not name the temporary folder.
    replayed.transcript.source = "long-view.messages.json".to_string();
    replayed
}

/// The long view's step selected (a view this long differs where the wording is open, so it
/// is not a divergence the TUI would open on).
fn on_the_view(replayed: Replay) -> App {
    let mut app = app(replayed);
    app.select(1);
    app
}

#[test]
fn a_long_diff_is_folded_and_opens_on_its_change() {
    let make = || on_the_view(long_view(2_000, "", &[1_000, 1_500]));
    both("folded", make, |_| {});
    both("folded_next_change", make, |app| {
        key(app, KeyCode::Char(']'))
    });
    both("folded_expanded", make, |app| key(app, KeyCode::Enter));
    both("folded_side_by_side", make, |app| {
        key(app, KeyCode::Char('v'))
    });
}

#[test]
fn brackets_walk_the_changes_and_enter_expands_a_fold() {
    let mut app = on_the_view(long_view(2_000, "", &[1_000, 1_500]));
    let screen = render(&mut app, SMALL);
    // The view's first line is its header: 997 lines before the change's context.
    assert!(
        screen.contains("⋯ 997 unchanged lines (Enter expands)"),
        "{screen}"
    );
    assert!(screen.contains("line 1000·changed"), "{screen}");
    key(&mut app, KeyCode::Char(']'));
    let screen = render(&mut app, SMALL);
    assert!(screen.contains("line 1500·changed"), "{screen}");
    // The third change is where the reference cuts the long view short.
    assert!(screen.contains("change 2/3 · line 1,501"), "{screen}");
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char(']'));
    assert!(render(&mut app, SMALL).contains("last change of this diff"));
    key(&mut app, KeyCode::Char('['));
    key(&mut app, KeyCode::Char('['));
    let screen = render(&mut app, SMALL);
    assert!(screen.contains("change 1/3 · line 1,001"), "{screen}");
    assert!(screen.contains("line 1000·changed"), "{screen}");
    // Enter expands the fold in view; the run's lines are then there to scroll through.
    app.apply(Action::FirstStep);
    app.apply(Action::NextStep);
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, SMALL);
    assert!(screen.contains("expanded 997 unchanged lines"), "{screen}");
    assert!(!screen.contains("⋯ 997"), "{screen}");
}

#[test]
fn a_change_past_the_edge_is_scrolled_to_with_cut_marks() {
    let filler = format!(": {}", ["lorem ipsum dolor sit amet"; 4].join(", "));
    let make = || on_the_view(long_view(40, &filler, &[20]));
    both("first_change_scrolled", make, |_| {});
    let mut app = make();
    let screen = render(&mut app, SMALL);
    assert!(screen.contains("col "), "the scroll is shown:\n{screen}");
    assert!(
        screen.contains("│- …"),
        "a cut on the left is marked:\n{screen}"
    );
    for _ in 0..20 {
        key(&mut app, KeyCode::Char('h'));
    }
    let screen = render(&mut app, SMALL);
    assert!(!screen.contains(" col "), "back at the start:\n{screen}");
    assert!(
        screen.contains("…\n"),
        "a cut on the right is marked:\n{screen}"
    );
}

/// The 50-step replay with steps 10–13 marked as following step 4, and step 12 a security
/// finding (as the verdict engine will mark them).
fn cascaded() -> Replay {
    let mut replayed = replay("sdk-python-50.request.json");
    for i in 9..13 {
        for divergence in &mut replayed.steps[i].verdict.divergences {
            divergence.cascade_of = Some(4);
        }
    }
    replayed
}

fn secured() -> Replay {
    let mut replayed = cascaded();
    let step = &mut replayed.steps[11];
    step.verdict.kind = memspec::replay::StepKind::Security;
    if let Some(first) = step.verdict.divergences.first_mut() {
        first.security = true;
        first.cascade_of = None;
    }
    replayed
}

#[test]
fn consequences_are_dimmed_and_passed_by() {
    both("cascade", || app(cascaded()), |app| app.select(10));
    let mut app = app(cascaded());
    render(&mut app, SMALL);
    assert_eq!(app.selected(), 3);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.selected(), 4);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(
        app.selected(),
        next_stop(&app, 5),
        "steps 10–13 follow step 4: passed by"
    );
    assert!(app.selected() > 12);
    let screen = render(&mut app, SMALL);
    assert!(screen.contains("passed "), "{screen}");
    key(&mut app, KeyCode::Char('c'));
    key(&mut app, KeyCode::Char('N'));
    assert_eq!(app.selected(), 12, "c: consequences are stops again");
}

#[test]
fn the_security_lane() {
    both("security", || app(secured()), |app| app.select(11));
    let mut app = app(secured());
    render(&mut app, SMALL);
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.selected(), 11, "a security finding is never passed by");
}

#[test]
fn control_characters_are_escaped_not_dropped() {
    let mut replayed = replay("issue12/controls.messages.json");
    replayed.transcript.source = "controls.messages.json".to_string();
    let mut app = app(replayed);
    render(&mut app, SMALL);
    app.select(1);
    key(&mut app, KeyCode::Char('2'));
    let screen = render(&mut app, SMALL);
    snap("tui_controls_80x24", &screen);
    assert!(screen.contains("\\x1b[2J"), "{screen}");
    assert!(screen.contains("\\0"), "{screen}");
    assert!(!screen.contains('\u{1b}'), "{screen}");
}

#[test]
fn review_opens_on_the_first_pending_change_and_names_what_depends_on_it() {
    let mut app = app(replay("golden-tidy.jsonl"));
    let first = app
        .review()
        .and_then(|r| r.decisions.iter().position(|d| d.is_some()))
        .unwrap_or(0);
    assert_eq!(app.selected(), first);
    key(&mut app, KeyCode::Char('a'));
    let screen = render(&mut app, SMALL);
    assert!(
        screen.contains(&format!("accepted step {}", first + 1)),
        "{screen}"
    );
}
