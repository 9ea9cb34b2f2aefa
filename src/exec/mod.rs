//! Running backends safely: the sandbox a backend runs on, held as a capability, the
//! filesystem access the harness uses on anything a backend can touch, and the session that
//! runs a backend process on its sandbox and checks that it stayed inside.
//!
//! Everything that runs a backend (`check`, `matrix`, `replay`, `record`) makes its sandboxes
//! and runs its processes here, so that one set of rules keeps a hostile backend from turning
//! the harness against the machine it runs on: no link followed, no open that blocks, no
//! unbounded read, no recursion; and one set of checks says when it tried.

pub mod children;
pub mod disk_look;
pub mod fs;
pub mod leftovers;
pub mod plant;
pub mod procfs;
pub mod sandbox;
pub mod session;
#[cfg(target_os = "linux")]
pub mod trace;
pub mod tree;
pub mod users;
pub mod watch;

pub use leftovers::{Dirty, Look, Moment};
pub use sandbox::{Entry, FixtureError, Looked, Outside, Sandbox, Seen};
pub use session::{Breach, Broke, Confined, Fault, Reset, Session, Stopped};
