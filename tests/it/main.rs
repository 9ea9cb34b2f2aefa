//! The single integration test binary. Each area of the project adds one `mod` line here.

mod check;
mod packaging;
mod reference;
mod replay;
mod revisions;
mod sandbox;
mod sdk;
mod suite;
