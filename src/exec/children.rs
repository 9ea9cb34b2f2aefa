//! The backend processes this process started, for a harness that must end at once (a signal):
//! their groups are killed, since the workers that would stop them do not run any more.

/// Sends SIGKILL to the process group of every child of this process (each backend runs in a
/// session of its own, whose group holds what it started). Found through `/proc`: the running
/// sessions belong to worker threads that a signal does not stop.
pub fn kill_child_groups() {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: the command name may hold spaces and parentheses, so the
        // fields are counted from the last `)`.
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|ppid| ppid.parse::<u32>().ok());
        if parent == Some(me)
            && let Some(pid) = rustix::process::Pid::from_raw(pid)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}
