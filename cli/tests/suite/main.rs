//! The `tongcheng` command's integration tests in one binary (one link, the support code
//! compiled once); each module is what used to be a test file of its own.

mod play_support;

mod botzone;
mod face;
mod fan_input;
mod history_guards;
mod net_sync;
mod play_history;
mod play_online;
mod play_scripted;
mod tournament;
