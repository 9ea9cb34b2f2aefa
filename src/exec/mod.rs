//! Running backends safely: the sandbox a backend runs on, held as a capability, and the
//! filesystem access the harness uses on anything a backend can touch.
//!
//! Everything that runs a backend (`check`, `matrix`, `replay`, `record`) makes its sandboxes
//! here, so that one set of rules keeps a hostile backend from turning the harness against the
//! machine it runs on: no link followed, no open that blocks, no unbounded read, no recursion.

pub mod fs;
pub mod sandbox;

pub use sandbox::{FixtureError, Outside, Sandbox, Seen};
