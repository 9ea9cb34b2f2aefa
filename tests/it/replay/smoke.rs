//! The real binary in a real terminal: tmux runs `memspec replay` on the 50-step transcript,
//! the test jumps to the first divergence, reads the screen, and quits. Skipped (with a
//! printed reason) where tmux is not installed.

use std::process::Command;
use std::time::{Duration, Instant};

use super::{bin, root};

struct Tmux {
    session: String,
}

impl Tmux {
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
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return Ok(screen);
            }
            if started.elapsed() > Duration::from_secs(15) {
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
    }
}

#[test]
fn a_new_user_finds_the_first_divergence_in_tmux() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("skipped: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    let tmux = Tmux {
        session: format!("memspec-smoke-{}", std::process::id()),
    };
    let done = std::env::temp_dir().join(format!("{}.exit", tmux.session));
    // Written whole, then renamed: the test never reads a file the shell has only opened.
    let command = format!(
        "cd {} && {} replay tests/fixtures/transcripts/sdk-python-50.request.json; echo $? > {done}.tmp && mv {done}.tmp {done}; sleep 5",
        root().display(),
        bin(),
        done = done.display()
    );
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        &tmux.session,
        "-x",
        "80",
        "-y",
        "24",
        &command,
    ]);
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
    // The terminal is restored: the shell's own output shows again.
    let started = Instant::now();
    while !done.exists() && started.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let code = std::fs::read_to_string(&done).unwrap_or_default();
    let _ = std::fs::remove_file(&done);
    assert_eq!(code.trim(), "0");
    let after = tmux.screen();
    assert!(
        !after.contains("memspec replay "),
        "the alternate screen was left:\n{after}"
    );
}
