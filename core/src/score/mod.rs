//! Scoring: the Chinese Official fan table ([`mcr`]), the Hangzhou tables ([`hangzhou`]), the
//! Tongcheng values ([`tongcheng`]),
//! and the JSON-line interface over both ([`fan_json`], `tongcheng fan`).

pub mod fan_json;
pub mod hangzhou;
pub mod mcr;
pub mod tongcheng;
