//! The single integration test binary. Each area of the project adds one `mod` line here.

mod check;
mod reference;
mod replay;
mod revisions;
mod packaging;
mod sandbox;
mod sdk;
mod suite;
