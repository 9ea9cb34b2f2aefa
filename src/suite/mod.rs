//! The declarative conformance suite as data: the case model, loading and linting, text
//! matchers, and coverage of the spec's rules. Grading lives in [`crate::judge`]; running the
//! cases in [`crate::check`].

pub mod case;
pub mod coverage;
pub mod load;
pub mod matcher;
pub mod spec_diff;
