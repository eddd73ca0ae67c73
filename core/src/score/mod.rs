//! Scoring: the Chinese Official fan table ([`mcr`]).

pub mod mcr;
