//! Shared helpers for the cross-crate suites.
