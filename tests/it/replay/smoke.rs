//! The real binary in a real terminal: tmux runs `memspec replay` on the 50-step transcript,
//! the test jumps to the first divergence, reads the screen, and quits. Skipped (with a
//! printed reason) where tmux is not installed.

use std::process::Command;
use std::time::{Duration, Instant};

use super::{bin, root};

struct Tmux {
    session: String,
    /// Where the shell writes the replay's exit code once it ends.
    exit_file: std::path::PathBuf,
}

impl Tmux {
    /// A detached 80x24 session running `memspec replay` on the 50-step transcript; `None`
    /// (with a printed reason) where tmux is not installed.
    fn replay(name: &str) -> Option<Tmux> {
        Tmux::start(
            name,
            "tests/fixtures/transcripts/sdk-python-50.request.json",
        )
    }

    /// A detached 80x24 session running `memspec replay ARGS` from the root.
    fn start(name: &str, args: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            println!("skipped: tmux is not installed (apt-get install -y tmux)");
            return None;
        }
        let session = format!("memspec-{name}-{}", std::process::id());
        let exit_file = std::env::temp_dir().join(format!("{session}.exit"));
        let _ = std::fs::remove_file(&exit_file);
        // Written whole, then renamed: the test never reads a file the shell has only opened.
        let command = format!(
            "cd {} && {} replay {args}; echo $? > {done}.tmp && mv {done}.tmp {done}; sleep 5",
            root().display(),
            bin(),
            done = exit_file.display()
        );
        let tmux = Tmux { session, exit_file };
        // Tests start sessions at once; when no tmux server runs yet, their clients race to
        // start one and all but one may fail to connect: such a start is tried again.
        let mut failures = Vec::new();
        while failures.len() < 5 {
            let output = Command::new("tmux")
                .args(["new-session", "-d", "-s", &tmux.session])
                .args(["-x", "80", "-y", "24", &command])
                .output()
                .unwrap_or_else(|e| panic!("tmux: {e}"));
            if output.status.success() {
                return Some(tmux);
            }
            failures.push(String::from_utf8_lossy(&output.stderr).into_owned());
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("tmux new-session failed 5 times: {failures:?}")
    }

    /// The pid of the `memspec` process the pane's shell runs.
    fn replay_pid(&self) -> String {
        let shell = self.run(&["display-message", "-p", "-t", &self.session, "#{pane_pid}"]);
        child_named(shell.trim(), "memspec")
            .unwrap_or_else(|| panic!("no memspec under the pane's shell {shell}"))
    }

    /// The replay's exit code, once the shell has written it.
    fn exit_code(&self) -> String {
        let started = Instant::now();
        while !self.exit_file.exists() && started.elapsed() < Duration::from_secs(15) {
            std::thread::sleep(Duration::from_millis(50));
        }
        std::fs::read_to_string(&self.exit_file)
            .unwrap_or_default()
            .trim()
            .to_string()
    }

    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("tmux")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("tmux: {e}"));
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", &self.session])
    }

    fn keys(&self, keys: &str) {
        self.run(&["send-keys", "-t", &self.session, keys]);
    }

    /// Waits until the screen contains `text`; the screen otherwise.
    fn wait_for(&self, text: &str) -> Result<String, String> {
        self.wait_until(|screen| screen.contains(text))
    }

    /// Waits until the screen no longer contains `text`; the screen otherwise.
    fn wait_gone(&self, text: &str) -> Result<String, String> {
        self.wait_until(|screen| !screen.contains(text))
    }

    fn wait_until(&self, done: impl Fn(&str) -> bool) -> Result<String, String> {
        self.wait_longer(Duration::from_secs(15), done)
    }

    fn wait_longer(&self, limit: Duration, done: impl Fn(&str) -> bool) -> Result<String, String> {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return Ok(screen);
            }
            if started.elapsed() > limit {
                return Err(screen);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.session])
            .output();
        let _ = std::fs::remove_file(&self.exit_file);
    }
}

#[test]
fn a_new_user_finds_the_first_divergence_in_tmux() {
    let Some(tmux) = Tmux::replay("smoke") else {
        return;
    };
    let screen = tmux
        .wait_for("first divergence: step 4")
        .unwrap_or_else(|s| panic!("no TUI:\n{s}"));
    assert!(screen.contains("MUST view.file.content"), "{screen}");
    assert!(screen.contains("name→   product→delivery day"), "{screen}");
    assert!(screen.contains("name····product·delivery day"), "{screen}");
    tmux.keys("g");
    tmux.keys("f");
    tmux.wait_for("Steps 4/52")
        .unwrap_or_else(|s| panic!("f did not jump back:\n{s}"));
    tmux.keys("?");
    tmux.wait_for("Keys · Esc closes")
        .unwrap_or_else(|s| panic!("no help:\n{s}"));
    tmux.keys("Escape");
    tmux.wait_gone("Keys · Esc closes")
        .unwrap_or_else(|s| panic!("Esc did not close the help:\n{s}"));
    tmux.keys("q");
    assert_eq!(tmux.exit_code(), "0");
    // The terminal is restored: the shell's own output shows again.
    let after = tmux.screen();
    assert!(
        !after.contains("memspec replay "),
        "the alternate screen was left:\n{after}"
    );
}

#[test]
fn sigterm_restores_the_terminal() {
    let Some(tmux) = Tmux::replay("sigterm") else {
        return;
    };
    tmux.wait_for("first divergence: step 4")
        .unwrap_or_else(|s| panic!("no TUI:\n{s}"));
    let pid = tmux.replay_pid();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(killed.success());
    // 128 + 15, as a shell reports a process SIGTERM ended.
    assert_eq!(tmux.exit_code(), "143");
    let after = tmux
        .wait_for("memspec: stopped by signal 15")
        .unwrap_or_else(|s| panic!("no message after the TUI:\n{s}"));
    assert!(
        !after.contains("memspec replay "),
        "the alternate screen was left:\n{after}"
    );
}

#[test]
fn closing_the_terminal_ends_the_replay() {
    // crossterm spins on a tty that hung up (crossterm-rs/crossterm#793); the TUI must not
    // outlive its terminal, whether or not a SIGHUP reaches it.
    let Some(tmux) = Tmux::replay("hangup") else {
        return;
    };
    tmux.wait_for("first divergence: step 4")
        .unwrap_or_else(|s| panic!("no TUI:\n{s}"));
    let pid = tmux.replay_pid();
    tmux.run(&["kill-session", "-t", &tmux.session]);
    let started = Instant::now();
    while running(&pid) && started.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let alive = running(&pid);
    if alive {
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
    assert!(!alive, "memspec {pid} outlived its terminal");
}

/// Whether a process exists and has not ended (a zombie waiting for a reaper has ended).
fn running(pid: &str) -> bool {
    proc_stat(pid).is_some_and(|stat| stat.state != "Z")
}

/// The pid of a child of `parent` whose command is `name`, from `/proc`.
fn child_named(parent: &str, name: &str) -> Option<String> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .find(|pid| proc_stat(pid).is_some_and(|stat| stat.comm == name && stat.ppid == parent))
}

/// The fields of `/proc/PID/stat` these tests look at.
struct ProcStat {
    comm: String,
    state: String,
    ppid: String,
}

fn proc_stat(pid: &str) -> Option<ProcStat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`; comm may hold spaces, so split at the last `)`.
    let (head, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    Some(ProcStat {
        comm: head.split_once('(')?.1.to_string(),
        state: fields.next()?.to_string(),
        ppid: fields.next()?.to_string(),
    })
}

/// A golden file whose one step views a 999,999-line file (the recorded answer is the whole
/// view), and the seed folder holding the file; made once in the target's scratch folder and
/// kept for later runs.
fn long_view_fixture() -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tui-long-view");
    let (golden, seed) = (dir.join("golden.jsonl"), dir.join("seed"));
    let done = dir.join("complete");
    if done.exists() {
        return (golden, seed);
    }
    std::fs::create_dir_all(&seed).unwrap_or_else(|e| panic!("{e}"));
    let mut text = String::with_capacity(14_000_000);
    let mut view = String::from("Here's the content of /memories/long.txt with line numbers:");
    for n in 1..=999_999 {
        let line = format!("line {n}");
        text.push_str(&line);
        text.push('\n');
        view.push_str(&format!("\n{n:>6}\t{line}"));
    }
    std::fs::write(seed.join("long.txt"), &text).unwrap_or_else(|e| panic!("{e}"));
    let header = serde_json::json!({"memspec_session": 1, "backend": "reference", "created": "2026-11-22T08:00:00Z"});
    let step = serde_json::json!({"step": 1, "input": {"command": "view", "path": "/memories/long.txt"}, "result": {"text": view, "is_error": false}});
    std::fs::write(&golden, format!("{header}\n{step}\n")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&done, "").unwrap_or_else(|e| panic!("{e}"));
    (golden, seed)
}

#[test]
fn one_keypress_walks_a_million_line_view_to_its_change() {
    let (golden, seed) = long_view_fixture();
    let args = format!(
        "{} --seed {} --backend 'python3 tests/backends/view_whole_changed_line.py {{memories}} {}'",
        golden.display(),
        seed.display(),
        bin()
    );
    let Some(tmux) = Tmux::start("long", &args) else {
        return;
    };
    // The review opens on the changed step, on its change: the 500,000 lines before it folded.
    let screen = tmux
        .wait_longer(Duration::from_secs(120), |s| {
            s.contains("first change to review")
        })
        .unwrap_or_else(|s| panic!("no TUI:\n{s}"));
    assert!(screen.contains("⋯ 499,997 unchanged lines"), "{screen}");
    assert!(screen.contains("(changed)"), "{screen}");
    // Expanded, the view is back at line 1; one `]` walks half a million lines to the change.
    tmux.keys("Enter");
    let screen = tmux
        .wait_for("expanded 499,997 unchanged lines")
        .unwrap_or_else(|s| panic!("Enter did not expand:\n{s}"));
    assert!(!screen.contains("(changed)"), "{screen}");
    tmux.keys("]");
    let screen = tmux
        .wait_for("change 1/1 · line 500,001")
        .unwrap_or_else(|s| panic!("] did not walk to the change:\n{s}"));
    println!("{screen}");
    assert!(screen.contains("line 500000·(changed)"), "{screen}");
    tmux.keys("q");
    assert_eq!(tmux.exit_code(), "0");
}
