//! The crash points of a backend's work: its process group traced with `ptrace`, every system
//! call that changes storage counted in the order the kernel saw them (across all its threads and
//! children), and, when asked, the whole group killed with SIGKILL on entry to the Nth — so that
//! call never happens and nothing after it does.
//!
//! Counting across threads is why this is ours and not `strace --inject=…:when=N`: strace counts
//! per syscall *and per thread*, and a Node backend writes from whichever thread of libuv's pool
//! is free, so the same N names a different write from one run to the next.
//!
//! The tracer is a process of its own (`memspec trace-group`, hidden; [`serve_tracer`]), never a
//! thread of the harness: a ptrace stop of the backend is reported to every thread of the
//! tracer's process that waits on it, and the harness waits on its backends' processes from its
//! worker threads. The tracer process has no child of its own, so it waits on its tracees alone;
//! it dies with its tracees killed (`PTRACE_O_EXITKILL`) when the harness gives up on it.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::FileExt;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::libc;
use nix::sys::ptrace::{self, Options};
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

/// A call that changes storage: a kill point.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StorageCall {
    /// What the call does (`write`, `rename`, `unlink`, `open(O_TRUNC)` …).
    pub kind: String,
    /// What it works on: a path, `socket` for a send to a server, or `?` when it could not be
    /// read. Bounded: at most [`TARGET_SHOWN`] characters.
    pub target: String,
}

impl std::fmt::Display for StorageCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.kind, self.target)
    }
}

/// The longest target kept.
const TARGET_SHOWN: usize = 160;

/// What a traced run showed.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Traced {
    /// The storage calls, in the order they were entered; with a kill, the last is the one the
    /// group was killed on (it never ran).
    pub calls: Vec<StorageCall>,
    /// Whether the group was killed at the asked point.
    pub killed: bool,
    /// Flushes to disk (`fsync`, `fdatasync`, `sync_file_range`, `msync`, `syncfs`, `sync`)
    /// made, counted.
    pub syncs: usize,
    /// Why the trace cannot be trusted, when it cannot: a stop whose system call the kernel
    /// would not describe (`PTRACE_GET_SYSCALL_INFO` needs Linux 5.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken: Option<String>,
}

/// Why a process group could not be traced: the reason a report gives for running no crash
/// point.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TraceError {
    /// The kernel refused: no ptrace rights here (a container without `CAP_SYS_PTRACE` under
    /// Yama, or seccomp).
    #[error(
        "cannot trace the backend's processes ({0}): this machine or container does not allow ptrace"
    )]
    Refused(String),
    /// The group had no process to trace.
    #[error("the backend has no running process to trace")]
    NoProcess,
    /// The tracer thread died.
    #[error("the tracer stopped unexpectedly: {0}")]
    Tracer(String),
}

/// A traced process group, traced by a `memspec trace-group` process; [`Tracer::finish`] waits
/// for the tracing to end, which it does when every traced process has exited (the caller stops
/// the backend).
#[derive(Debug)]
pub struct Tracer {
    child: Child,
    out: BufReader<ChildStdout>,
}

/// The line a tracer process prints once every thread is attached.
const READY: &str = "ready";

/// How long [`Tracer::finish`] waits for the traced processes to be gone: past it, the tracer
/// is killed, and its tracees with it.
const FINISH_WITHIN: Duration = Duration::from_secs(20);

/// Starts `memspec trace-group` (the program `memspec`: this process's own, or `MEMSPEC_BIN`)
/// on process group `group`, counting its storage calls; with `kill_at = Some(n)`, it kills the
/// group on entry to the `n`th (1-based). Returns once every thread is attached and resumed, so
/// that the next request the backend reads is traced.
pub fn attach(group: i32, kill_at: Option<usize>) -> Result<Tracer, TraceError> {
    let program = std::env::var_os("MEMSPEC_BIN")
        .map(std::path::PathBuf::from)
        .map_or_else(std::env::current_exe, Ok)
        .map_err(|e| TraceError::Tracer(format!("cannot find memspec's own program: {e}")))?;
    let mut command = Command::new(program);
    command
        .arg("trace-group")
        .arg(group.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(n) = kill_at {
        command.arg("--kill-at").arg(n.to_string());
    }
    let mut child = crate::backend::cleanup::start_unless_stopping(|| command.spawn())
        .ok_or_else(|| TraceError::Tracer("the run is being stopped".to_string()))?
        .map_err(|e| TraceError::Tracer(format!("cannot start the tracer: {e}")))?;
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(TraceError::Tracer("the tracer has no output".to_string()));
    };
    let mut out = BufReader::new(stdout);
    let mut first = String::new();
    let _ = out.by_ref().take(4096).read_line(&mut first);
    let first = first.trim_end();
    if first == READY {
        return Ok(Tracer { child, out });
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(match first.strip_prefix("refused: ") {
        Some(why) => TraceError::Refused(why.to_string()),
        None if first == "no process" => TraceError::NoProcess,
        None => TraceError::Tracer(format!("the tracer said {first:?}")),
    })
}

impl Tracer {
    /// Waits until every traced process has exited (at most [`FINISH_WITHIN`]: a process that
    /// left the group outlives the caller's kill, and is killed with the tracer), and says what
    /// was seen.
    pub fn finish(mut self) -> Result<Traced, TraceError> {
        let started = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if started.elapsed() < FINISH_WITHIN => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return Err(TraceError::Tracer(format!(
                        "the traced processes were still running {} s after the backend was stopped",
                        FINISH_WITHIN.as_secs()
                    )));
                }
            }
        }
        let mut line = String::new();
        let _ = self.out.by_ref().take(16 << 20).read_line(&mut line);
        let traced: Traced = serde_json::from_str(&line)
            .map_err(|e| TraceError::Tracer(format!("the tracer's report is unreadable: {e}")))?;
        match traced.broken {
            Some(why) => Err(TraceError::Refused(why)),
            None => Ok(traced),
        }
    }
}

/// The tracer process (`memspec trace-group GROUP [--kill-at N]`): attaches to every thread of
/// process group `group`, writes `ready` (or `refused: …`, `no process`) to `out`, follows the
/// tracees until none is left, then writes what it saw as one JSON line.
pub fn serve_tracer(
    group: i32,
    kill_at: Option<usize>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut state = State::new(group, kill_at);
    match state.seize_group() {
        Ok(()) => {
            writeln!(out, "{READY}")?;
            out.flush()?;
            state.follow();
            serde_json::to_writer(&mut *out, &state.traced)?;
            writeln!(out)?;
        }
        Err(e) => {
            state.release();
            match e {
                TraceError::NoProcess => writeln!(out, "no process")?,
                other => writeln!(out, "refused: {other}")?,
            }
        }
    }
    out.flush()
}

/// The tracer's state.
struct State {
    group: i32,
    kill_at: Option<usize>,
    /// Every thread attached and not yet gone.
    tracees: Vec<Pid>,
    traced: Traced,
}

impl State {
    fn new(group: i32, kill_at: Option<usize>) -> State {
        State {
            group,
            kill_at,
            tracees: Vec::new(),
            traced: Traced::default(),
        }
    }

    /// Seizes every thread of the group, looking again until a look finds none new (a thread
    /// made while the others were being seized).
    fn seize_group(&mut self) -> Result<(), TraceError> {
        let options = Options::PTRACE_O_TRACESYSGOOD
            | Options::PTRACE_O_TRACECLONE
            | Options::PTRACE_O_TRACEFORK
            | Options::PTRACE_O_TRACEVFORK
            // Should memspec die, its tracees die with it rather than run on stopped.
            | Options::PTRACE_O_EXITKILL;
        loop {
            let mut new = 0;
            for tid in threads_of_group(self.group) {
                if self.tracees.contains(&tid) {
                    continue;
                }
                match ptrace::seize(tid, options) {
                    Ok(()) => {}
                    // Gone meanwhile.
                    Err(Errno::ESRCH) => continue,
                    // Already ours: a thread or child made by a seized thread is attached as it
                    // is made, and reported to `follow`.
                    Err(Errno::EPERM) if traced_by_me(tid) => {
                        self.tracees.push(tid);
                        continue;
                    }
                    Err(e) => return Err(TraceError::Refused(e.desc().to_string())),
                }
                self.tracees.push(tid);
                new += 1;
                // Stops it so that the loop resumes it under PTRACE_SYSCALL.
                let _ = ptrace::interrupt(tid);
            }
            if new == 0 {
                break;
            }
        }
        if self.tracees.is_empty() {
            return Err(TraceError::NoProcess);
        }
        Ok(())
    }

    /// Lets every attached thread go: the tracing ended before it began.
    fn release(&mut self) {
        for tid in self.tracees.drain(..) {
            let _ = ptrace::detach(tid, None);
        }
    }

    /// Follows the tracees until none is left: the wait ends with `ECHILD` once the last
    /// traced thread has exited (the caller stops the backend, or the kill did).
    fn follow(&mut self) {
        loop {
            match waitpid(
                Pid::from_raw(-1),
                Some(WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD),
            ) {
                Ok(status) => self.on(status),
                Err(Errno::EINTR) => {}
                // ECHILD: no tracee left for this thread.
                Err(_) => break,
            }
        }
    }

    fn on(&mut self, status: WaitStatus) {
        match status {
            WaitStatus::Exited(tid, _) | WaitStatus::Signaled(tid, _, _) => {
                self.tracees.retain(|t| *t != tid);
            }
            WaitStatus::PtraceSyscall(tid) => {
                if self.at_syscall(tid) {
                    // Killed: its threads are reported as they die.
                    return;
                }
                let _ = ptrace::syscall(tid, None);
            }
            WaitStatus::PtraceEvent(tid, _, event) => {
                if matches!(
                    event,
                    libc::PTRACE_EVENT_CLONE | libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK
                ) && let Ok(child) = ptrace::getevent(tid)
                {
                    let child = Pid::from_raw(child as i32);
                    if !self.tracees.contains(&child) {
                        self.tracees.push(child);
                    }
                }
                // Interrupt, group or new-child stops: carry on under PTRACE_SYSCALL.
                let _ = ptrace::syscall(tid, None);
            }
            WaitStatus::Stopped(tid, signal) => {
                // A signal on its way to the tracee: delivered, as without a tracer.
                let _ = ptrace::syscall(tid, Some(signal));
            }
            _ => {}
        }
    }

    /// A syscall stop; `true` when the group was killed here.
    fn at_syscall(&mut self, tid: Pid) -> bool {
        let info = match ptrace::syscall_info(tid) {
            Ok(info) => info,
            // Gone meanwhile (killed): nothing to count.
            Err(Errno::ESRCH) => return false,
            Err(e) => {
                self.traced.broken.get_or_insert_with(|| {
                    format!("the kernel does not describe the backend's system calls ({}); PTRACE_GET_SYSCALL_INFO needs Linux 5.3", e.desc())
                });
                return false;
            }
        };
        if info.op != libc::PTRACE_SYSCALL_INFO_ENTRY {
            return false;
        }
        // SAFETY: `op` says the kernel filled the union's `entry` member.
        let entry = unsafe { info.u.entry };
        let Some(kind) = classify(tid, entry.nr as i64, &entry.args) else {
            return false;
        };
        match kind {
            Classified::Sync => {
                self.traced.syncs += 1;
                false
            }
            Classified::Storage(call) => {
                self.traced.calls.push(call);
                if self.kill_at == Some(self.traced.calls.len()) {
                    self.traced.killed = true;
                    // The thread is held at the call's entry: killed now, the call never runs.
                    let _ = kill(Pid::from_raw(-self.group), Signal::SIGKILL);
                    if let Ok(tgid) = thread_group(tid) {
                        let _ = kill(tgid, Signal::SIGKILL);
                    }
                    return true;
                }
                false
            }
        }
    }
}

/// What a syscall is to the crash lane.
enum Classified {
    /// It changes storage: a kill point.
    Storage(StorageCall),
    /// It flushes to disk.
    Sync,
}

/// Whether syscall `nr` with `args`, entered by `tid`, changes storage. Writes count when they
/// go to a file or a socket (a database server), never to the pipes memspec talks through.
fn classify(tid: Pid, nr: i64, args: &[u64; 6]) -> Option<Classified> {
    let storage = |kind: &'static str, target: String| {
        Some(Classified::Storage(StorageCall {
            kind: kind.to_string(),
            target: bounded(target),
        }))
    };
    let fd_target = |fd: u64| fd_target(tid, fd);
    let path_at = |addr: u64| read_path(tid, addr);
    match nr {
        libc::SYS_write
        | libc::SYS_pwrite64
        | libc::SYS_writev
        | libc::SYS_pwritev
        | libc::SYS_pwritev2
        | libc::SYS_sendto
        | libc::SYS_sendmsg
        | libc::SYS_sendmmsg
        | libc::SYS_fallocate
        | libc::SYS_ftruncate => {
            let target = fd_target(args[0])?;
            let kind = match nr {
                libc::SYS_fallocate => "fallocate",
                libc::SYS_ftruncate => "ftruncate",
                _ if target == "socket" => "send",
                _ => "write",
            };
            storage(kind, target)
        }
        libc::SYS_copy_file_range => storage("copy_file_range", fd_target(args[2])?),
        libc::SYS_sendfile => storage("sendfile", fd_target(args[0])?),
        libc::SYS_openat => opening(args[2], path_at(args[1])),
        libc::SYS_truncate => storage("truncate", path_at(args[0])),
        libc::SYS_renameat | libc::SYS_renameat2 => storage("rename", path_at(args[1])),
        libc::SYS_unlinkat => storage(
            if args[2] & libc::AT_REMOVEDIR as u64 != 0 {
                "rmdir"
            } else {
                "unlink"
            },
            path_at(args[1]),
        ),
        libc::SYS_mkdirat => storage("mkdir", path_at(args[1])),
        libc::SYS_linkat => storage("link", path_at(args[3])),
        libc::SYS_symlinkat => storage("symlink", path_at(args[2])),
        libc::SYS_fsync
        | libc::SYS_fdatasync
        | libc::SYS_sync_file_range
        | libc::SYS_msync
        | libc::SYS_syncfs
        | libc::SYS_sync => Some(Classified::Sync),
        _ => legacy(nr, args, tid),
    }
}

/// The calls x86-64 still has beside their `*at` forms.
#[cfg(target_arch = "x86_64")]
fn legacy(nr: i64, args: &[u64; 6], tid: Pid) -> Option<Classified> {
    let path_at = |addr: u64| read_path(tid, addr);
    let storage = |kind: &'static str, target: String| {
        Some(Classified::Storage(StorageCall {
            kind: kind.to_string(),
            target: bounded(target),
        }))
    };
    match nr {
        libc::SYS_open => opening(args[1], path_at(args[0])),
        libc::SYS_creat => storage("open(O_CREAT|O_TRUNC)", path_at(args[0])),
        libc::SYS_rename => storage("rename", path_at(args[0])),
        libc::SYS_unlink => storage("unlink", path_at(args[0])),
        libc::SYS_rmdir => storage("rmdir", path_at(args[0])),
        libc::SYS_mkdir => storage("mkdir", path_at(args[0])),
        libc::SYS_link => storage("link", path_at(args[1])),
        libc::SYS_symlink => storage("symlink", path_at(args[1])),
        _ => None,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn legacy(_nr: i64, _args: &[u64; 6], _tid: Pid) -> Option<Classified> {
    None
}

/// An open that creates or truncates is a change; a plain open is not.
fn opening(flags: u64, path: String) -> Option<Classified> {
    let flags = flags as i32;
    let kind = match (flags & libc::O_CREAT != 0, flags & libc::O_TRUNC != 0) {
        (_, true) => "open(O_TRUNC)",
        (true, false) => "open(O_CREAT)",
        (false, false) => return None,
    };
    // Device files and /proc are not storage.
    if is_pseudo(&path) {
        return None;
    }
    Some(Classified::Storage(StorageCall {
        kind: kind.to_string(),
        target: bounded(path),
    }))
}

/// What fd `fd` of `tid` names, when writing to it changes storage: a regular file's path, or
/// `socket`. `None` for pipes, terminals, device files, event fds and what cannot be read.
fn fd_target(tid: Pid, fd: u64) -> Option<String> {
    let link = std::fs::read_link(format!("/proc/{tid}/fd/{fd}")).ok()?;
    let link = link.to_string_lossy().into_owned();
    if link.starts_with("socket:") {
        return Some("socket".to_string());
    }
    (link.starts_with('/') && !is_pseudo(&link)).then_some(link)
}

fn is_pseudo(path: &str) -> bool {
    ["/dev/", "/proc/", "/sys/"]
        .iter()
        .any(|prefix| path.starts_with(prefix))
}

/// The NUL-terminated path at `addr` in `tid`'s memory, at most 4 KiB, lossily decoded; `?`
/// when it cannot be read.
fn read_path(tid: Pid, addr: u64) -> String {
    let Ok(mem) = File::open(format!("/proc/{tid}/mem")) else {
        return "?".to_string();
    };
    let mut buf = vec![0u8; 4096];
    // A path near the end of a mapping: read what there is, one page at most.
    let read = mem.read_at(&mut buf, addr).unwrap_or(0);
    buf.truncate(read);
    match buf.iter().position(|b| *b == 0) {
        Some(end) => String::from_utf8_lossy(&buf[..end]).into_owned(),
        None if read == 0 => "?".to_string(),
        None => String::from_utf8_lossy(&buf).into_owned(),
    }
}

fn bounded(text: String) -> String {
    if text.chars().count() <= TARGET_SHOWN {
        return text.chars().filter(|c| !c.is_control()).collect();
    }
    let kept: String = text
        .chars()
        .filter(|c| !c.is_control())
        .take(TARGET_SHOWN)
        .collect();
    format!("{kept}…")
}

/// Kills process group `group` with SIGKILL at once: a crash right after an answer, with no
/// chance to flush or finish anything.
pub fn kill_group(group: i32) {
    let _ = kill(Pid::from_raw(-group), Signal::SIGKILL);
}

/// Every thread of every process whose process group is `group`.
fn threads_of_group(group: i32) -> Vec<Pid> {
    super::procfs::processes()
        .into_iter()
        .filter(|p| p.group == group)
        .filter_map(|p| std::fs::read_dir(format!("/proc/{}/task", p.pid)).ok())
        .flat_map(|tasks| {
            tasks
                .flatten()
                .filter_map(|t| t.file_name().to_str()?.parse::<i32>().ok())
                .map(Pid::from_raw)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether this process already traces thread `tid` (`TracerPid` in its status).
fn traced_by_me(tid: Pid) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{tid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("TracerPid:"))
        .and_then(|v| v.trim().parse::<u32>().ok())
        == Some(std::process::id())
}

/// The process a thread belongs to.
fn thread_group(tid: Pid) -> Result<Pid, ()> {
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).map_err(|_| ())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
        .map(Pid::from_raw)
        .ok_or(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_that_neither_create_nor_truncate_are_no_change() {
        assert!(opening(libc::O_RDONLY as u64, "/tmp/a".into()).is_none());
        assert!(opening((libc::O_WRONLY | libc::O_CREAT) as u64, "/dev/null".into()).is_none());
        assert!(matches!(
            opening((libc::O_WRONLY | libc::O_TRUNC) as u64, "/tmp/a".into()),
            Some(Classified::Storage(StorageCall { kind, .. })) if kind == "open(O_TRUNC)"
        ));
    }
}
