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
    };
    let replayed_at = Instant::now();
    let replayed = replay::replay(transcript, &options, spec.as_ref(), &mut |_, _| {})
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
