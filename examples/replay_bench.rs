//! How fast `memspec replay` opens and replays a long transcript, and how long a TUI frame
//! takes to render. A measurement, not a test:
//!
//!     cargo run --release --example replay_bench [STEPS]
//!
//! The transcript is a Messages API request body of STEPS memory calls (default 10,000) over a
//! folder of about forty files, the mix a long conversation has (mostly views, then edits,
//! some creates, a few renames and deletes), with tabs in the files and one recorded result in
//! fifty changed (tabs turned into spaces) so that the verdicts have differences to find.
//! Frames are drawn into ratatui's `TestBackend` at 80x24 and 160x48 while moving through the
//! steps the way a user does (next step, next divergence, page down, layout toggle, search).
//!
//!     cargo build --release && cargo run --release --example replay_bench -- --long [LINES]
//!
//! instead measures one long step: a golden file that creates a file of LINES lines (default
//! 999,999) and records its whole view, replayed against `tests/backends/
//! view_whole_changed_line.py` (whole views, line 500,000 changed), so that the review's diff
//! is a million lines against a million with one change. A child process (so that generating
//! the file does not count) opens and replays it, opens the TUI on it and draws: the peak
//! memory (VmHWM) against the transcript's size, and the time to select the step and draw
//! it, to walk to its change and to scroll.

use std::time::{Duration, Instant};

use memspec::backend::BackendSpec;
use memspec::reference::Reference;
use memspec::replay::{self, ReplayOptions};
use memspec::tui::action::Action;
use memspec::tui::{App, Options};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--long-child") {
        return long_child(args.get(2).map_or("", String::as_str));
    }
    if args.get(1).map(String::as_str) == Some("--long") {
        let lines = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(999_999);
        return long(lines);
    }
    let steps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    // Generating runs the reference on the disk unless a RAM file system is there.
    let dir = tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap_or_else(|e| fail(&e));
    let path = dir.path().join("long.request.json");
    let started = Instant::now();
    let body = transcript(steps, dir.path());
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&body).unwrap_or_default(),
    )
    .unwrap_or_else(|e| fail(&e));
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    println!(
        "generated {steps} calls ({:.1} MB) in {:.2?}",
        size as f64 / 1e6,
        started.elapsed()
    );

    let spec = memspec::spec::Spec::builtin(memspec::spec::Revision::Ga2026).ok();
    let opened = Instant::now();
    let transcript = memspec::transcript::read(&path, None).unwrap_or_else(|e| fail(&e));
    let open = opened.elapsed();
    let options = ReplayOptions {
        backend: BackendSpec::Reference(memspec::spec::Revision::Ga2026),
        seed: None,
        timeout: Duration::from_secs(10),
        check: false,
        revision: memspec::spec::Revision::Ga2026,
        user: None,
    };
    let replayed_at = Instant::now();
    let replayed = replay::replay(transcript, &options, spec.as_ref(), &memspec::events::Quiet)
        .unwrap_or_else(|e| fail(&e));
    let replay = replayed_at.elapsed();
    let counts: Vec<String> = replayed
        .counts()
        .iter()
        .map(|(k, n)| format!("{n} {}", k.short()))
        .collect();
    println!("open (read + parse):  {open:>10.2?}");
    println!(
        "replay (2 backends):  {replay:>10.2?}   ({:.1} µs per call; {})",
        replay.as_secs_f64() * 1e6 / steps as f64,
        counts.join(", ")
    );
    println!("open + replay:        {:>10.2?}", open + replay);

    for (width, height) in [(80, 24), (160, 48)] {
        let mut app = App::new(replayed.clone(), spec.clone(), Options { mouse: false });
        let mut terminal =
            Terminal::new(TestBackend::new(width, height)).unwrap_or_else(|e| fail(&e));
        let mut times = Vec::new();
        let script = [
            Action::NextStep,
            Action::NextDivergence,
            Action::PageDown,
            Action::NextStep,
            Action::ToggleLayout,
            Action::PageSteps,
            Action::PrevDivergence,
            Action::ToggleLayout,
        ];
        for i in 0..2_000 {
            app.apply(script[i % script.len()]);
            let frame = Instant::now();
            terminal.draw(|f| app.draw(f)).unwrap_or_else(|e| fail(&e));
            times.push(frame.elapsed());
        }
        let search = Instant::now();
        app.apply(Action::StartSearch);
        for c in "suppliers".chars() {
            app.key(ratatui::crossterm::event::KeyEvent::from(
                ratatui::crossterm::event::KeyCode::Char(c),
            ));
        }
        app.apply(Action::SubmitSearch);
        let search = search.elapsed();
        times.sort();
        let mean = times.iter().sum::<Duration>() / times.len() as u32;
        let p99 = times[times.len() * 99 / 100];
        let max = times[times.len() - 1];
        println!(
            "frame {width}x{height}: mean {mean:>8.2?}  p99 {p99:>8.2?}  max {max:>8.2?}  over {} frames; search over {steps} steps {search:.2?}",
            times.len()
        );
    }
}

/// A request body of `steps` memory calls with recorded results (the reference's, one in
/// fifty with its tabs turned into spaces).
fn transcript(steps: usize, scratch: &std::path::Path) -> Value {
    let reference = Reference::open(&scratch.join("memories")).unwrap_or_else(|e| fail(&e));
    let mut messages = vec![json!({"role": "user", "content": "Keep track of the bakery for me."})];
    let files = 40;
    for n in 0..steps {
        let file = format!("/memories/notes/file-{:02}.md", n % files);
        let input = match n % 20 {
            _ if n < files => {
                json!({"command": "create", "path": file, "file_text": format!("# Notes {n}\nitem\tqty\tday\nflour\t{n}\tMonday\n")})
            }
            0..=9 => json!({"command": "view", "path": file}),
            10 => json!({"command": "view", "path": "/memories"}),
            11..=14 => {
                json!({"command": "str_replace", "path": file, "old_str": "flour", "new_str": "flour"})
            }
            15 | 16 => {
                json!({"command": "insert", "path": file, "insert_line": 1, "insert_text": format!("note\t{n}\n")})
            }
            17 => json!({"command": "view", "path": file, "view_range": [1, 3]}),
            18 => json!({"command": "rename", "old_path": file, "new_path": format!("{file}.tmp")}),
            _ => {
                json!({"command": "rename", "old_path": format!("/memories/notes/file-{:02}.md.tmp", (n - 1) % files), "new_path": format!("/memories/notes/file-{:02}.md", (n - 1) % files)})
            }
        };
        let mut result = reference.call(&input);
        if n % 50 == 7 {
            result.text = result.text.replace('\t', "    ");
        }
        let id = format!("toolu_bench{n:06}");
        messages.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "memory", "input": input}]}));
        let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": result.text});
        if result.is_error {
            block["is_error"] = json!(true);
        }
        messages.push(json!({"role": "user", "content": [block]}));
    }
    json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "tools": [{"type": "memory_20250818", "name": "memory"}], "messages": messages})
}

fn fail(error: &dyn std::fmt::Display) -> ! {
    eprintln!("replay_bench: {error}");
    std::process::exit(1)
}

/// Writes the long transcript and runs the measuring child on it.
fn long(lines: usize) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let memspec = root.join("target/release/memspec");
    if !memspec.exists() {
        fail(&"build the binary first: cargo build --release (the backend wraps memspec serve)");
    }
    let dir = tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap_or_else(|e| fail(&e));
    let path = dir.path().join("long-view.golden.jsonl");
    let started = Instant::now();
    let text: String = (1..=lines)
        .map(|n| format!("line {n} of a long file\n"))
        .collect();
    // The recorded view is the whole file in the spec's numbered format (the backend's answer
    // before it changed one line).
    let mut view = String::from("Here's the content of /memories/long.txt with line numbers:");
    for (n, line) in text.lines().enumerate() {
        view.push_str(&format!("\n{:>6}\t{line}", n + 1));
    }
    let header = json!({"memspec_session": 1, "backend": "a backend that shows long views whole", "created": "2026-11-22T08:00:00Z"});
    let create = json!({"step": 1, "input": {"command": "create", "path": "/memories/long.txt", "file_text": text}, "result": {"text": "File created successfully at: /memories/long.txt", "is_error": false}});
    let view = json!({"step": 2, "input": {"command": "view", "path": "/memories/long.txt"}, "result": {"text": view, "is_error": false}});
    std::fs::write(&path, format!("{header}\n{create}\n{view}\n")).unwrap_or_else(|e| fail(&e));
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    println!(
        "generated a golden file that creates a file of {lines} lines and views it whole ({:.1} MB) in {:.2?}; the backend changes line {}",
        size as f64 / 1e6,
        started.elapsed(),
        CHANGED_LINE
    );
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(&e));
    let status = std::process::Command::new(exe)
        .arg("--long-child")
        .arg(&path)
        .env("MEMSPEC_CHANGED_LINE", CHANGED_LINE.to_string())
        .status()
        .unwrap_or_else(|e| fail(&e));
    if !status.success() {
        fail(&format!("the measuring child failed: {status}"));
    }
}

/// The line the long bench's backend changes.
const CHANGED_LINE: usize = 500_000;

/// Peak and current resident memory of this process, in bytes.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// Opens, replays and draws the long transcript at `path`, printing times and memory.
fn long_child(path: &str) {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let mb = |bytes: u64| bytes as f64 / 1e6;
    let spec = memspec::spec::Spec::builtin(memspec::spec::Revision::Ga2026).ok();
    let started = Instant::now();
    let transcript =
        memspec::transcript::read(std::path::Path::new(path), None).unwrap_or_else(|e| fail(&e));
    let read = started.elapsed();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let backend = format!(
        "python3 {} {{memories}} {}",
        root.join("tests/backends/view_whole_changed_line.py")
            .display(),
        root.join("target/release/memspec").display()
    );
    let options = ReplayOptions {
        backend: BackendSpec::command(&backend, None),
        seed: None,
        timeout: Duration::from_secs(60),
        check: false,
        revision: memspec::spec::Revision::Ga2026,
        user: None,
    };
    let started = Instant::now();
    let replayed = replay::replay(transcript, &options, spec.as_ref(), &memspec::events::Quiet)
        .unwrap_or_else(|e| fail(&e));
    let replayed_in = started.elapsed();
    let (peak_replay, _) = memory();
    println!(
        "transcript {:.1} MB; read {read:.2?}; replay {replayed_in:.2?}; peak after replay {:.1} MB ({:.2}x)",
        mb(size),
        mb(peak_replay),
        peak_replay as f64 / size as f64
    );
    let started = Instant::now();
    let mut app = App::new(replayed, spec, Options { mouse: false });
    let opened = started.elapsed();
    println!(
        "the TUI opens on step {} of {}",
        app.selected() + 1,
        app.replay().steps.len()
    );
    for (width, height) in [(80, 24), (160, 48)] {
        let mut terminal =
            Terminal::new(TestBackend::new(width, height)).unwrap_or_else(|e| fail(&e));
        let mut timed = |label: &str, app: &mut App, actions: &[Action]| {
            let started = Instant::now();
            for action in actions {
                app.apply(*action);
            }
            terminal.draw(|f| app.draw(f)).unwrap_or_else(|e| fail(&e));
            println!("{width}x{height} {label:<44} {:>10.2?}", started.elapsed());
        };
        timed("first frame", &mut app, &[]);
        timed(
            "select the step before + draw",
            &mut app,
            &[Action::PrevStep],
        );
        timed(
            "select the long step + draw (diff computed)",
            &mut app,
            &[Action::NextStep],
        );
        timed("page down + draw", &mut app, &[Action::PageDown]);
        timed("side by side + draw", &mut app, &[Action::ToggleLayout]);
        timed("unified + draw", &mut app, &[Action::ToggleLayout]);
        timed("scroll right + draw", &mut app, &[Action::ScrollRight]);
        timed("results tab + draw", &mut app, &[Action::ShowResults]);
        timed("diff tab + draw", &mut app, &[Action::ShowDiff]);
        timed(
            "expand the fold (Enter) + draw",
            &mut app,
            &[Action::ToggleFold],
        );
        timed(
            "back to the top (PgUp x3) + draw",
            &mut app,
            &[Action::PageUp, Action::PageUp, Action::PageUp],
        );
        timed(
            "walk to the change (]) + draw",
            &mut app,
            &[Action::NextChange],
        );
        timed("zoom + draw", &mut app, &[Action::ToggleZoom]);
        timed("zoom off + draw", &mut app, &[Action::ToggleZoom]);
        let mut times = Vec::new();
        let mut terminal =
            Terminal::new(TestBackend::new(width, height)).unwrap_or_else(|e| fail(&e));
        for i in 0..200 {
            app.apply(if i % 2 == 0 {
                Action::ScrollDown
            } else {
                Action::ScrollUp
            });
            let frame = Instant::now();
            terminal.draw(|f| app.draw(f)).unwrap_or_else(|e| fail(&e));
            times.push(frame.elapsed());
        }
        times.sort();
        let mean = times.iter().sum::<Duration>() / times.len() as u32;
        println!(
            "{width}x{height} {:<44} {mean:>10.2?} (max {:.2?})",
            "a frame on the long step, mean of 200",
            times[times.len() - 1]
        );
    }
    let (peak, now) = memory();
    println!("App::new (opens on the step): {opened:.2?}");
    println!(
        "memory: peak {:.1} MB = {:.2}x the transcript; resident at the end {:.1} MB = {:.2}x",
        mb(peak),
        peak as f64 / size as f64,
        mb(now),
        now as f64 / size as f64
    );
}
