//! memspec: the conformance harness for backends of Claude's memory tool (`memory_20250818`).
//!
//! - [`reference`]: the reference backend, the spec made executable and impossible to escape.
//! - [`protocol`]: the tool input model and results.
//! - [`diff`]: whitespace-visible diffs shared by reports and the TUI.
//! - [`exec`]: the sandbox backends run on, and hostile-safe filesystem access to it.
//! - [`builtin`]: the spec and the suite compiled into the binary.
//! - [`check`]: `memspec check` from configuration to report.
//! - [`backend`]: backends under test and protocol v1 (JSON Lines over stdio).
//! - [`replay`]: replaying a transcript against a backend and the reference, verdict per step.
//! - [`report`]: reports of a run in every format, and the verdict.
//! - [`schemas`]: the JSON Schemas of the case, spec and report files, from the types.
//! - [`serve`]: the reference backend served over protocol v1.
//! - [`spec`]: the spec's rules and the reference's decisions, as data.
//! - [`suite`]: the declarative suite: cases, matching, grading, runner, baselines.
//! - [`transcript`]: conversations read from the formats users have on disk.
//! - [`tui`]: the replay TUI.

pub mod backend;
pub mod builtin;
pub mod check;
pub mod diff;
pub mod exec;
pub mod exit;
pub mod fuzz;
pub mod judge;
pub mod protocol;
pub mod reference;
pub mod replay;
pub mod report;
pub mod rng;
pub mod schema;
pub mod schemas;
pub mod serve;
pub mod spec;
pub mod suite;
pub mod transcript;
pub mod tui;
