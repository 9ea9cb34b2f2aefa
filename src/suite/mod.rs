//! The declarative conformance suite: case model, loading and linting, matching, grading,
//! the runner and baselines.

pub mod case;
