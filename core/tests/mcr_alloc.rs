//! Scoring allocates nothing per hand: counts live in fixed arrays and the readings are
//! enumerated in place. Checked with a counting allocator on the scoring thread.
// A counting global allocator has to implement an unsafe trait.
#![allow(unsafe_code)]

#[path = "suite/mcr_support.rs"]
#[allow(dead_code)] // this test uses a part of the shared support code
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tongcheng_core::score::mcr::{McrOptions, score};

struct Counting;

thread_local! {
    static TRACK: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if TRACK.with(Cell::get) {
            COUNT.with(|c| c.set(c.get() + 1));
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn scoring_allocates_nothing() {
    let specs = [
        "[234m] 345p 45s 678s 99p +6s",
        "1133m55p77p99s117z +7z",
        "19m19p19s1234765z +5z | self",
        "147m258p369s1347z +2z",
        "147m258p369s 234s 5s +5s",
        "234567m 234567p 5s +5s",
        "{2222m} {3333m} 444m 567p 6p +6p",
        "1112345678999m +5m",
        "[5555p] 234m 678m 23s 88s +4s | self on_kong last_tile",
        "111222333m 456p 7s +7s",
        "[123m] [678p] 345s 56s 11z +4s | flowers=8",
    ];
    let cases: Vec<_> = specs.iter().map(|s| support::case(s)).collect();
    let opts = McrOptions::default();
    // The first call builds the lookup tables, once per process.
    for c in &cases {
        score(&c.ctx(), &opts).unwrap();
    }
    TRACK.with(|t| t.set(true));
    let mut total = 0;
    for _ in 0..10 {
        for c in &cases {
            total += score(&c.ctx(), &opts).unwrap().total;
        }
    }
    TRACK.with(|t| t.set(false));
    assert!(total > 0);
    assert_eq!(COUNT.with(Cell::get), 0, "allocations while scoring");
}
