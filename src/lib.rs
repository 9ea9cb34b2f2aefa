//! memspec: the conformance harness for backends of Claude's memory tool (`memory_20250818`).
//!
//! The modules, each using only those below it (DESIGN.md, "Layout"; `tests/it/layers.rs`):
//!
//! - [`tui`]: the replay TUI, over replay's results.
//! - [`exit`]: how a run ends, the class every error of the commands maps into.
//! - [`schema_files`]: the JSON Schemas of the case, spec and report files, from the types.
//! - [`report`]: the one reporter: reports of every command's run in every format, the verdict.
//! - [`check`], [`replay`], [`fuzz`]: the engines of `memspec check`, `memspec replay` (and
//!   `record`) and `memspec fuzz`: what to run, in which order; fuzz beside check, not above it.
//!   They emit [`events`] and never render: the report does.
//! - [`race`]: several clients on one store, the engine `check` and `fuzz` both run.
//! - [`crash`]: a write killed at each point of its work, then a restart (`check --crash`).
//! - [`events`]: the stream every engine emits (started, a case or a step done) into a sink.
//! - [`serve`]: the reference backend served over protocol v1.
//! - [`judge`]: THE judge: findings, outcomes, the witness, grading by a revision's rules,
//!   causes ranked by harm.
//! - [`suite`]: the suite as data: case model, loading, selection, baselines, coverage (no
//!   grading).
//! - [`exec`]: the sandbox backends run on, sessions, hostile-safe filesystem access to it;
//!   knows nothing of cases or rules.
//! - [`backend`]: backends under test and protocol v1 (JSON Lines over stdio).
//! - [`reference`]: the reference backend, the spec made executable and impossible to escape.
//! - [`transcript`]: conversations read from the formats users have on disk.
//! - [`spec`]: the spec's rules and the reference's decisions, as data.
//! - [`protocol`]: the tool input model and results.
//! - [`diff`]: whitespace-visible diffs shared by reports and the TUI.
//! - [`builtin`]: the spec and the suite compiled into the binary.
//! - [`rng`]: the fuzzer's random numbers, the same for a `--seed` in every build.
//! - [`schema`]: the building blocks of the JSON Schemas (id patterns, markers) every layer names.

pub mod backend;
pub mod builtin;
pub mod check;
#[cfg(target_os = "linux")]
pub mod crash;
pub mod diff;
pub mod events;
pub mod exec;
pub mod exit;
pub mod fuzz;
pub mod judge;
pub mod protocol;
pub mod race;
pub mod reference;
pub mod replay;
pub mod report;
pub mod rng;
pub mod schema;
pub mod schema_files;
pub mod serve;
pub mod spec;
pub mod suite;
pub mod transcript;
pub mod tui;
