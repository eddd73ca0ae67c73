//! The core's integration tests, one binary: one link and the support code compiled once.
//! `history_kill` (it runs itself as the writer it kills) and `mcr_alloc` (a counting global
//! allocator) stay binaries of their own.

// Each test module uses part of the shared support code.
#![allow(dead_code)]

mod common;
mod mcr_support;

mod history_match;
mod history_v3_fixture;
mod mcr_examples;
mod mcr_fans;
mod mcr_props;
mod shapes_reference;
