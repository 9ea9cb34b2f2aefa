//! The tail of a backend process's stderr, kept by a reader thread, and the excerpt of it that
//! belongs to the current case.

use std::io::{BufReader, Read};
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use super::Stdio;

/// How much of stderr is kept, so that one case's output is usually there whole.
const STDERR_TAIL_BYTES: usize = 16 << 10;
/// How much of a case's stderr an error report quotes (its last whole lines).
const STDERR_EXCERPT_BYTES: usize = 2048;

/// The last bytes a process wrote to stderr, and how many it wrote in all.
#[derive(Debug, Default)]
pub(super) struct StderrTail {
    bytes: Vec<u8>,
    pub(super) total: u64,
    /// Whether the reader reached the end of the stream (every writer is gone).
    closed: bool,
}

/// How long an exited process's last stderr may take to reach the reader thread.
const STDERR_SETTLE: Duration = Duration::from_millis(500);

impl Stdio {
    /// What the process wrote to stderr during the current case, as whole lines. Once the
    /// process has exited, its last lines may still be on their way through the reader thread
    /// (a loaded machine): wait for the end of the stream, briefly, so they are not lost.
    pub(super) fn stderr_text(&mut self) -> String {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            let started = std::time::Instant::now();
            while started.elapsed() < STDERR_SETTLE
                && self.stderr.lock().is_ok_and(|tail| !tail.closed)
            {
                thread::sleep(Duration::from_millis(5));
            }
        }
        match self.stderr.lock() {
            Ok(tail) => excerpt(
                &tail.bytes,
                tail.total,
                self.case_start,
                STDERR_EXCERPT_BYTES,
            ),
            Err(_) => String::new(),
        }
    }
}

pub(super) fn keep_tail(stderr: impl Read, tail: &Mutex<StderrTail>) {
    let mut reader = BufReader::new(stderr);
    let mut chunk = [0u8; 4096];
    loop {
        let n = match reader.read(&mut chunk) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Ok(0) | Err(_) => {
                if let Ok(mut tail) = tail.lock() {
                    tail.closed = true;
                }
                return;
            }
            Ok(n) => n,
        };
        if let Ok(mut tail) = tail.lock() {
            tail.bytes.extend_from_slice(&chunk[..n]);
            tail.total += n as u64;
            if tail.bytes.len() > STDERR_TAIL_BYTES {
                let cut = tail.bytes.len() - STDERR_TAIL_BYTES;
                tail.bytes.drain(..cut);
            }
        }
    }
}

/// The whole lines written since byte `since` of a stream whose last bytes are `tail` (out of
/// `total`), at most about `max` bytes of them, the last ones. A line begun before `since` or
/// only partly kept is dropped, so the excerpt never starts mid-word or mid-character; a cut is
/// said at the front.
fn excerpt(tail: &[u8], total: u64, since: u64, max: usize) -> String {
    let kept_from = total.saturating_sub(tail.len() as u64);
    let (mut text, mut cut) = if since >= kept_from {
        let start = usize::try_from(since - kept_from)
            .unwrap_or(tail.len())
            .min(tail.len());
        let text = &tail[start..];
        // The case began in the middle of a line of the one before: that line is not its own.
        let mid_line = start > 0 && tail[start - 1] != b'\n';
        (if mid_line { after_newline(text) } else { text }, false)
    } else {
        (after_newline(tail), true)
    };
    if text.len() > max {
        text = after_newline(&text[text.len() - max..]);
        cut = true;
    }
    let text = String::from_utf8_lossy(text);
    let text = text.trim();
    match (cut, text.is_empty()) {
        (_, true) => String::new(),
        (true, false) => format!("[earlier lines cut]\n{text}"),
        (false, false) => text.to_string(),
    }
}

/// What follows the first newline; nothing when there is none (a partial line).
fn after_newline(bytes: &[u8]) -> &[u8] {
    match memchr::memchr(b'\n', bytes) {
        Some(i) => &bytes[i + 1..],
        None => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn the_excerpt_is_the_cases_whole_lines() {
        let stream = b"old traceback\nKeyError: 'x'\nnew line one\nnew line two\n";
        let since = stream.len() as u64 - 26;
        let total = stream.len() as u64;
        assert_eq!(
            excerpt(stream, total, since, 2048),
            "new line one\nnew line two"
        );
        // Marked in the middle of a line: the rest of that line belongs to the case before.
        assert_eq!(
            excerpt(stream, total, 5, 2048),
            "KeyError: 'x'\nnew line one\nnew line two"
        );
        assert_eq!(excerpt(stream, total, total, 2048), "");
    }

    #[test]
    fn a_long_excerpt_is_cut_at_a_line_start() {
        let stream = "é\n".repeat(100) + "last line\n";
        let bytes = stream.as_bytes();
        let total = bytes.len() as u64;
        let text = excerpt(bytes, total, 0, 20);
        assert!(text.starts_with("[earlier lines cut]\n"), "{text}");
        assert!(text.ends_with("é\nlast line"), "{text}");
        assert!(!text.contains('\u{FFFD}'), "{text}");
        // Only the last bytes kept: the partial first line is dropped too.
        let kept = &bytes[bytes.len() - 11..];
        assert_eq!(
            excerpt(kept, total, 0, 2048),
            "[earlier lines cut]\nlast line"
        );
    }
}
