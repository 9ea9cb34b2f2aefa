//! A cgroup (v2) per backend process, when the machine lets memspec make one.
//!
//! A process group and a session reach every process a backend starts, except one that calls
//! `setsid` itself; a cgroup reaches that one too, since no process can leave its cgroup without
//! write access to another. memspec makes one below its own cgroup when the cgroup v2 file system
//! is mounted and writable (root, or a delegated subtree), moves the backend into it before it
//! runs anything (see `Stdio::spawn`), and kills the whole cgroup when the process's life ends.
//! Where it cannot, the process group is all there is, and the README says so.

use std::ffi::CString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long to wait for a killed cgroup to empty before giving up on removing it.
const EMPTY_WAIT: Duration = Duration::from_secs(2);

/// A cgroup made for one backend process, removed (after killing everything in it) on drop.
#[derive(Debug)]
pub struct Cgroup {
    path: PathBuf,
    procs: CString,
}

impl Cgroup {
    /// Makes a new cgroup below memspec's own, or `None` when there is no writable cgroup v2
    /// file system.
    pub fn create() -> Option<Cgroup> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let own = own_cgroup()?;
        let path = own.join(format!(
            "memspec-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&path).ok()?;
        let procs = CString::new(
            path.join("cgroup.procs")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .ok()?;
        Some(Cgroup { path, procs })
    }

    /// The `cgroup.procs` file a process writes `0` to in order to join.
    pub fn procs(&self) -> &std::ffi::CStr {
        &self.procs
    }

    /// Kills every process in the cgroup (`cgroup.kill`, or one by one on kernels before 5.14).
    pub fn kill(&self) {
        if std::fs::write(self.path.join("cgroup.kill"), "1").is_err() {
            for pid in self.members() {
                if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                }
            }
        }
    }

    /// Process ids in the cgroup (bounded read: the file is the kernel's).
    fn members(&self) -> Vec<i32> {
        let mut text = String::new();
        let _ = std::fs::File::open(self.path.join("cgroup.procs"))
            .and_then(|file| file.take(1 << 20).read_to_string(&mut text));
        text.lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        self.kill();
        let started = Instant::now();
        while !self.members().is_empty() && started.elapsed() < EMPTY_WAIT {
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = std::fs::remove_dir(&self.path);
    }
}

/// memspec's own cgroup folder in the cgroup v2 file system, when both can be found.
fn own_cgroup() -> Option<PathBuf> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let relative = cgroups.lines().find_map(|line| line.strip_prefix("0::"))?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // `... <mount point> <options> - cgroup2 <source> <super options>`
    let mount = mountinfo.lines().find_map(|line| {
        let (fields, rest) = line.split_once(" - ")?;
        rest.starts_with("cgroup2 ")
            .then(|| fields.split(' ').nth(4).map(Path::new))
            .flatten()
    })?;
    let own = mount.join(relative.trim_start_matches('/'));
    own.is_dir().then_some(own)
}
