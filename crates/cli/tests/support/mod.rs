//! Helpers shared by the CLI's integration tests (each test file uses some of them).
#![allow(dead_code)]

pub mod serve;
