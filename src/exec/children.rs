//! The backend processes this process started, for a harness that must end at once (a signal):
//! their groups are killed, since the workers that would stop them do not run any more.

/// Whether the harness is being stopped (see [`kill_child_groups`]): a session does not start a
/// backend any more, since nothing would stop it.
pub fn stopping() -> bool {
    crate::backend::cleanup::stopping()
}

/// Sends SIGKILL to the process group of every child of this process (each backend runs in a
/// session of its own, whose group holds what it started), and to the child itself (a helper
/// such as the crash lane's tracer runs in memspec's group). Found through `/proc`: the running
/// sessions belong to worker threads that a signal does not stop. From the first call on, no
/// backend process starts again (a worker whose backend just died would start another), and
/// one being started is waited for, so that it is found here.
pub fn kill_child_groups() {
    crate::backend::cleanup::stop_starts();
    let me = i32::try_from(std::process::id()).unwrap_or(i32::MAX);
    for child in super::procfs::processes()
        .into_iter()
        .filter(|p| p.parent == me)
    {
        if let Some(pid) = rustix::process::Pid::from_raw(child.pid) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}
