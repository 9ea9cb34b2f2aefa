//! memspec: the conformance harness for backends of Claude's memory tool (`memory_20250818`).
//!
//! - [`reference`]: the reference backend, the spec made executable and impossible to escape.
//! - [`protocol`]: the tool input model and results.
//! - [`backend`]: backends under test and protocol v1 (JSON Lines over stdio).
//! - [`serve`]: the reference backend served over protocol v1.
//! - [`suite`]: the declarative suite: cases, matching, grading, runner, baselines.

pub mod backend;
pub mod protocol;
pub mod reference;
pub mod serve;
pub mod suite;
