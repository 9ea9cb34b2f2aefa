//! The declarative conformance suite: case model, loading and linting, matching, grading,
//! the runner and baselines.

mod answers;
pub mod baseline;
pub mod cascade;
pub mod case;
pub mod coverage;
mod effects;
pub mod grade;
pub mod lineage;
pub mod load;
pub mod matcher;
pub mod runner;
pub mod witness;
