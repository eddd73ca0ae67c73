//! Scoring: the Chinese Official fan table ([`mcr`]) and the Hangzhou tables ([`hangzhou`]),
//! and the JSON-line interface over both ([`fan_json`], `tongcheng fan`).

pub mod fan_json;
pub mod hangzhou;
pub mod mcr;
