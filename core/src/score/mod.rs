//! Scoring: the Chinese Official fan table ([`mcr`]) and the Hangzhou tables ([`hangzhou`]).

pub mod hangzhou;
pub mod mcr;
