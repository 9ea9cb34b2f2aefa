//! Backends under test and the protocol that reaches them.

pub mod wire;
