//! `check`, `matrix`, `cases` and `spec`: the suite from the command line.
//!
//! Each file holds one part:
//!
//! - `args`: `check`'s arguments, their defaults, and the arguments that select the same run
//!   again.
//! - `adapters`: `--python`/`--node`, a backend served by an adapter built into memspec.
//! - `run`: `check` itself, from its arguments to the run and its progress.
//! - `outputs`: the run's report, written where the arguments say, and the exit code of its
//!   verdict.
//! - `signals`: the clean-up of temporary folders when a signal ends a command.
//! - `matrix`: the suite against several backends, side by side.
//! - `cases`: `cases lint` and `cases list`.
//! - `spec`: `spec coverage`, `spec diff` and `spec schemas`.

mod adapters;
mod args;
mod cases;
mod matrix;
mod outputs;
mod run;
mod signals;
mod spec;

pub(crate) use adapters::AdapterArgs;
pub(crate) use args::CheckArgs;
pub(crate) use cases::{CasesAction, cases};
pub(crate) use matrix::{MatrixArgs, matrix};
pub(crate) use run::run_check;
pub(crate) use signals::clean_up_on_signals;
pub(crate) use spec::{SpecAction, coverage, schemas, spec_diff, strings};

pub(crate) use memspec::report::Format;
