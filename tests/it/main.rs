//! The single integration test binary. Each area of the project adds one `mod` line here.

mod check;
mod docs;
mod fuzz;
mod handlers;
mod judge;
mod layers;
mod packaging;
mod recipes;
mod reference;
mod replay;
mod report_labels;
mod revisions;
mod rust_backend;
mod sandbox;
mod schemas;
mod sdk;
mod suite;
