//! Whole lines from a backend's stdout, read in the thread that waits for them.
//!
//! The pipe is non-blocking and waited on with `poll` against the caller's deadline, so a hang is
//! a timeout and a closed pipe is the end; a line past [`MAX_LINE_BYTES`] is refused without
//! reading further, and nothing is read that nobody asked for, so a backend that floods stdout
//! between requests fills its pipe, not the harness's memory. Reading here rather than on a
//! thread of its own saves a thread hand-off on every reply, which was a good part of the time a
//! fast backend's call took.

use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::io::Errno;

/// Largest reply line accepted: a 999,999-line view is about 15 MB; anything far beyond is a flood.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// Bytes asked of the pipe per read.
const READ_BYTES: usize = 64 << 10;

/// What waiting for a line came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// A whole line, without its `\n` (the last one may lack it: the stream ended).
    Line(Vec<u8>),
    /// No whole line before the wait ended.
    Waiting,
    /// The stream ended: every writer closed it.
    Closed,
    /// The stream broke (a line too long, a read error); nothing more is read from it.
    Broken(String),
}

/// A backend's stdout, split into lines.
#[derive(Debug)]
pub struct Lines {
    stdout: OwnedFd,
    /// Bytes read and not yet returned: `buffer[start..]`.
    buffer: Vec<u8>,
    start: usize,
    /// How far past `start` holds no `\n` (so a long line is searched once).
    searched: usize,
    ended: bool,
    broken: bool,
}

impl Lines {
    /// Lines of `stdout`, which becomes non-blocking.
    pub fn new(stdout: OwnedFd) -> Lines {
        let _ = rustix::fs::fcntl_setfl(&stdout, rustix::fs::OFlags::NONBLOCK);
        Lines {
            stdout,
            buffer: Vec::new(),
            start: 0,
            searched: 0,
            ended: false,
            broken: false,
        }
    }

    /// The next line, waiting at most `wait` for it (zero: only what has arrived already).
    pub fn next(&mut self, wait: Duration) -> Next {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(line) = self.take_line() {
                return Next::Line(line);
            }
            if self.broken {
                return Next::Closed;
            }
            if self.pending() > MAX_LINE_BYTES {
                self.broken = true;
                return Next::Broken(format!("a reply line longer than {MAX_LINE_BYTES} bytes"));
            }
            if self.ended {
                // What is left after the last `\n` is a last line without one.
                if self.pending() > 0 {
                    let line = self.buffer.split_off(self.start);
                    self.buffer.clear();
                    self.start = 0;
                    self.searched = 0;
                    return Next::Line(line);
                }
                return Next::Closed;
            }
            match self.fill() {
                Ok(true) => {}
                Ok(false) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() || !self.wait_readable(left) {
                        return Next::Waiting;
                    }
                }
                Err(e) => {
                    self.broken = true;
                    return Next::Broken(format!("reading stdout failed: {e}"));
                }
            }
        }
    }

    fn pending(&self) -> usize {
        self.buffer.len() - self.start
    }

    /// A whole line out of the buffer, if one is there.
    fn take_line(&mut self) -> Option<Vec<u8>> {
        let from = self.start + self.searched;
        let Some(at) = memchr::memchr(b'\n', &self.buffer[from..]) else {
            self.searched = self.pending();
            return None;
        };
        let end = from + at;
        let line = self.buffer[self.start..end].to_vec();
        self.start = end + 1;
        self.searched = 0;
        if self.start == self.buffer.len() {
            self.buffer.clear();
            self.start = 0;
        }
        Some(line)
    }

    /// Reads what the pipe holds now: `Ok(false)` when it holds nothing yet.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.start > 0 && self.start * 2 >= self.buffer.len() {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        let old = self.buffer.len();
        // At most one byte past the limit: enough to know a line is too long.
        let room = READ_BYTES.min(MAX_LINE_BYTES + 1 - self.pending().min(MAX_LINE_BYTES));
        self.buffer.resize(old + room, 0);
        let read = loop {
            match rustix::io::read(&self.stdout, &mut self.buffer[old..]) {
                Err(Errno::INTR) => {}
                other => break other,
            }
        };
        match read {
            Ok(0) => {
                self.buffer.truncate(old);
                self.ended = true;
                Ok(true)
            }
            Ok(n) => {
                self.buffer.truncate(old + n);
                Ok(true)
            }
            Err(Errno::AGAIN) => {
                self.buffer.truncate(old);
                Ok(false)
            }
            Err(e) => {
                self.buffer.truncate(old);
                Err(e.into())
            }
        }
    }

    /// Waits until the pipe is readable (or closed), at most `wait`.
    fn wait_readable(&self, wait: Duration) -> bool {
        let mut fds = [PollFd::new(&self.stdout, PollFlags::IN)];
        let timeout = Timespec::try_from(wait).unwrap_or(Timespec {
            tv_sec: 1,
            tv_nsec: 0,
        });
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(n) => n > 0,
            // Interrupted: the caller's loop looks again.
            Err(_) => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn pipe() -> (Lines, std::io::PipeWriter) {
        let (read, write) = std::io::pipe().unwrap_or_else(|e| panic!("{e}"));
        (Lines::new(OwnedFd::from(read)), write)
    }

    #[test]
    fn splits_lines_waits_and_ends() {
        let (mut lines, mut writer) = pipe();
        assert_eq!(lines.next(Duration::ZERO), Next::Waiting);
        writer.write_all(b"one\ntw").unwrap_or_default();
        assert_eq!(lines.next(Duration::ZERO), Next::Line(b"one".to_vec()));
        assert_eq!(lines.next(Duration::from_millis(20)), Next::Waiting);
        writer.write_all(b"o\nthree").unwrap_or_default();
        assert_eq!(lines.next(Duration::ZERO), Next::Line(b"two".to_vec()));
        drop(writer);
        assert_eq!(
            lines.next(Duration::from_secs(1)),
            Next::Line(b"three".to_vec())
        );
        assert_eq!(lines.next(Duration::from_secs(1)), Next::Closed);
    }

    #[test]
    fn a_line_past_the_limit_breaks_the_stream() {
        let (mut lines, writer) = pipe();
        let big = vec![b'x'; 1 << 20];
        let feeder = std::thread::spawn(move || {
            let mut writer = writer;
            while writer.write_all(&big).is_ok() {}
        });
        let mut next = Next::Waiting;
        for _ in 0..100_000 {
            next = lines.next(Duration::from_secs(1));
            if next != Next::Waiting {
                break;
            }
        }
        assert!(matches!(next, Next::Broken(ref why) if why.contains("longer than")));
        assert_eq!(lines.next(Duration::ZERO), Next::Closed);
        drop(lines);
        feeder.join().unwrap_or_default();
    }
}
