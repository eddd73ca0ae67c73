//! Per-suit distance tables: the engine of win checks and shanten.
//!
//! For every arrangement of one suit (nine counts 0–4, base-5 encoded) and for every target of
//! `k` sets (0–4) with or without a pair, the table holds the fewest tiles that must be added
//! so that the suit contains that target. A whole hand needs `K` sets and one pair: the sum of
//! the per-suit distances, minimised over how sets and the pair are spread over the suits
//! (a min-plus convolution of four tiny vectors). Shanten is that minimum minus one.
//!
//! Targets may use a fifth copy of a tile, as the classic block-counting shanten does; wild
//! tiles use the same numbers (a wild stands for any added tile).
//!
//! The tables are built once, lazily, by a recurrence over the lowest tile of the suit
//! (tens of milliseconds); arrangements of more than 14 tiles are never reached by a hand and
//! are skipped.

// Index arithmetic over parallel per-kind arrays reads clearer as ranges.
#![allow(clippy::needless_range_loop)]

use std::sync::OnceLock;

/// Distances for one suit: `d[p][k]` = tiles to add for `k` sets plus `p` pairs.
pub(crate) type Dist = [[u8; 5]; 2];

/// Distances of an empty suit: every set costs three tiles, the pair two.
pub(crate) const EMPTY: Dist = [[0, 3, 6, 9, 12], [2, 5, 8, 11, 14]];

/// Distances of a group holding one lone tile: it grows into a set for two more tiles or into
/// the pair for one, or is left out.
pub(crate) const LONE_TILE: Dist = [[0, 2, 5, 8, 11], [1, 4, 7, 10, 13]];

pub(crate) const POW5: [usize; 10] = [1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125];
const MAX_TILES: u32 = 14;
const COMPUTED: u32 = 1 << 31;

pub(crate) struct Tables {
    suit: Vec<u32>,
    honors: Vec<u32>,
}

/// The tables, built on first use.
pub(crate) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables {
        suit: build(9, true),
        honors: build(7, false),
    })
}

impl Tables {
    /// Distances of a suit given its nine counts.
    #[inline(always)]
    pub(crate) fn suit(&self, counts: &[u8]) -> Dist {
        decode(self.suit[key(counts)])
    }

    /// Distances of the honors given their seven counts.
    #[inline(always)]
    pub(crate) fn honors(&self, counts: &[u8]) -> Dist {
        decode(self.honors[key(counts)])
    }

    /// Distances of the suit (or honors, `group == 3`) with one tile of `rank_index` added.
    #[inline(always)]
    pub(crate) fn with_added(&self, group: usize, key: usize, rank_index: usize) -> Dist {
        dist_of_rows(self.with_added_rows(group, key, rank_index))
    }

    /// The rows (see [`Tables::rows_by_key`]) of the group with one tile of `rank_index`
    /// removed (the caller knows it holds one).
    #[inline(always)]
    pub(crate) fn with_removed_rows(
        &self,
        group: usize,
        key: usize,
        rank_index: usize,
    ) -> (u64, u64) {
        self.rows_by_key(group, key - POW5[rank_index])
    }

    /// [`Tables::with_added`] as packed rows.
    #[inline(always)]
    pub(crate) fn with_added_rows(
        &self,
        group: usize,
        key: usize,
        rank_index: usize,
    ) -> (u64, u64) {
        self.rows_by_key(group, key + POW5[rank_index])
    }

    /// Is the group (0–2 suits, 3 honors) exactly `sets` sets, plus a pair when `pair`?
    /// Reads the packed entry without decoding it: the win check's inner step.
    #[inline(always)]
    pub(crate) fn group_complete(
        &self,
        group: usize,
        counts: &[u8],
        sets: usize,
        pair: bool,
    ) -> bool {
        let e = if group == 3 {
            self.honors[key(counts)]
        } else {
            self.suit[key(counts)]
        };
        // d[0][sets] is the sum of the first `sets` two-bit steps; d[1][sets] adds one more field.
        let mut mask = (1u32 << (2 * sets)) - 1;
        if pair {
            mask |= 3 << (8 + 2 * sets);
        }
        e & mask == 0
    }

    /// [`Tables::by_key`] as packed rows (see [`rows`]).
    #[inline(always)]
    pub(crate) fn rows_by_key(&self, group: usize, key: usize) -> (u64, u64) {
        if group == 3 {
            decode_rows(self.honors[key])
        } else {
            decode_rows(self.suit[key])
        }
    }

    /// Looks up a group's distances by key.
    #[inline(always)]
    pub(crate) fn by_key(&self, group: usize, key: usize) -> Dist {
        dist_of_rows(self.rows_by_key(group, key))
    }
}

/// Base-5 key of a group's counts (first tile is the lowest digit).
#[inline(always)]
pub(crate) fn key(counts: &[u8]) -> usize {
    counts
        .iter()
        .rev()
        .fold(0usize, |acc, &c| acc * 5 + c as usize)
}

/// Combines two groups: the best spread of sets and pair over both (min-plus convolution),
/// computing at least the entries for up to `K` sets (without SIMD the rest stay at the
/// maximum: a hand that needs fewer sets need not pay for the others). `K` is a constant so
/// the loops unroll.
#[inline(always)]
pub(crate) fn merge_upto<const K: usize>(a: &Dist, b: &Dist) -> Dist {
    // In SSE2 registers all five entries cost no more than a few: entries above `K` are
    // then exact too, which no caller minds.
    if K >= 4 || simd() {
        return merge_full(a, b);
    }
    merge_upto_scalar::<K>(a, b)
}

// The tests run the plain paths (what ARM phones run) beside the SSE2 ones in one build:
// while this thread's flag is set, the SSE2 paths step aside.
#[cfg(test)]
thread_local! {
    static FORCE_SCALAR: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` on the plain (non-SIMD) paths, as a build without SSE2 would.
#[cfg(test)]
pub(crate) fn with_scalar<T>(f: impl FnOnce() -> T) -> T {
    FORCE_SCALAR.with(|c| c.set(true));
    let out = f();
    FORCE_SCALAR.with(|c| c.set(false));
    out
}

/// Whether the SSE2 paths run: on x86-64 (unless the `scalar` feature, or a test, says no).
#[inline(always)]
fn simd() -> bool {
    #[cfg(test)]
    if FORCE_SCALAR.with(std::cell::Cell::get) {
        return false;
    }
    cfg!(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "scalar")
    ))
}

/// [`merge_upto`] without SIMD: entries for more than `K` sets stay at the maximum.
#[inline(always)]
fn merge_upto_scalar<const K: usize>(a: &Dist, b: &Dist) -> Dist {
    let mut out = [[u8::MAX; 5]; 2];
    for k in 0..=K {
        let mut best0 = u8::MAX;
        let mut best1 = u8::MAX;
        for j in 0..=k {
            best0 = best0.min(a[0][j] + b[0][k - j]);
            best1 = best1.min(a[1][j] + b[0][k - j]).min(a[0][j] + b[1][k - j]);
        }
        out[0][k] = best0;
        out[1][k] = best1;
    }
    out
}

/// A full merge (all five set counts): the inner step of every shanten query. On x86-64 it
/// runs in SSE2 registers (part of every x86-64 CPU), elsewhere as plain loops.
#[inline(always)]
pub(crate) fn merge_full(a: &Dist, b: &Dist) -> Dist {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "scalar")
    ))]
    if simd() {
        return merge_full_sse2(a, b);
    }
    merge_full_scalar(a, b)
}

/// [`merge_full`] with SSE2: both rows of a vector in one register (no pair in bytes 0–4,
/// pair in bytes 8–12, 0xFF elsewhere). For each `j`, `b` moves up `j` sets and `a`'s two
/// entries for `j` are added to it; the minimum over `j` is the merge. Saturating adds keep
/// the 0xFF padding at 0xFF.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "scalar")
))]
#[inline(always)]
#[allow(unsafe_code)] // SSE2 intrinsics; checked against merge_full_scalar in the tests
fn merge_full_sse2(a: &Dist, b: &Dist) -> Dist {
    use std::arch::x86_64::*;
    // SAFETY: only compiled when SSE2 is enabled at build time (always, on x86-64); the
    // intrinsics below are register-only (no memory access).
    unsafe {
        let pack =
            |r: &[u8; 5]| i64::from_le_bytes([r[0], r[1], r[2], r[3], r[4], 0xFF, 0xFF, 0xFF]);
        let bv = _mm_set_epi64x(pack(&b[1]), pack(&b[0]));
        let inf = _mm_set1_epi8(-1);
        let mut out = inf;
        macro_rules! step {
            ($j:literal) => {{
                // b's rows moved up j sets; the j lowest entries of each row become infinite.
                let low = _mm_set1_epi64x(((1u64 << (8 * $j)) - 1) as i64);
                let shifted = _mm_or_si128(_mm_slli_epi64::<{ 8 * $j }>(bv), low);
                // Low half: a0[j] + b0 (no pair); high half: a0[j] + b1 (pair from b).
                let a0 = _mm_set1_epi8(a[0][$j] as i8);
                out = _mm_min_epu8(out, _mm_adds_epu8(a0, shifted));
                // High half: a1[j] + b0 (pair from a), with b's rows swapped.
                let a1 = _mm_unpacklo_epi64(inf, _mm_set1_epi8(a[1][$j] as i8));
                let swapped = _mm_shuffle_epi32::<0x4E>(shifted);
                out = _mm_min_epu8(out, _mm_adds_epu8(a1, swapped));
            }};
        }
        step!(0);
        step!(1);
        step!(2);
        step!(3);
        step!(4);
        let lo = _mm_cvtsi128_si64(out).to_le_bytes();
        let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(out, out)).to_le_bytes();
        [
            [lo[0], lo[1], lo[2], lo[3], lo[4]],
            [hi[0], hi[1], hi[2], hi[3], hi[4]],
        ]
    }
}

/// [`merge_full`] as plain loops with fixed bounds (the reference the SSE2 version is tested
/// against).
#[inline(always)]
fn merge_full_scalar(a: &Dist, b: &Dist) -> Dist {
    let mut out = [[u8::MAX; 5]; 2];
    for k in 0..5 {
        let mut best0 = u8::MAX;
        let mut best1 = u8::MAX;
        for j in 0..=k {
            best0 = best0.min(a[0][j] + b[0][k - j]);
            best1 = best1.min(a[1][j] + b[0][k - j]).min(a[0][j] + b[1][k - j]);
        }
        out[0][k] = best0;
        out[1][k] = best1;
    }
    out
}

/// The single entry `[1][K]` of a merge: the final step of a whole-hand distance.
#[inline(always)]
pub(crate) fn merge_final<const K: usize>(a: &Dist, b: &Dist) -> u8 {
    let mut best = u8::MAX;
    for j in 0..=K {
        best = best.min(a[1][j] + b[0][K - j]).min(a[0][j] + b[1][K - j]);
    }
    best
}

/// A vector prepared as the fixed side of many [`merge_final`]s (the rest of a hand against
/// which each discard or added tile is tried): its rows reversed around `K`, the no-pair row
/// lined up under the other side's pair row and the other way round; 0xFF where unused.
#[derive(Clone, Copy)]
pub(crate) struct FinalSide {
    under_row0: u64,
    under_row1: u64,
}

impl FinalSide {
    #[inline(always)]
    pub(crate) fn of<const K: usize>(b: &Dist) -> FinalSide {
        let mut lo = [0xFFu8; 8];
        let mut hi = [0xFFu8; 8];
        for j in 0..=K {
            lo[j] = b[1][K - j];
            hi[j] = b[0][K - j];
        }
        FinalSide {
            under_row0: u64::from_le_bytes(lo),
            under_row1: u64::from_le_bytes(hi),
        }
    }
}

/// [`merge_final`] of a vector given as packed rows (see [`Tables::rows_by_key`]) against a
/// prepared side: one saturating add and a horizontal minimum in SSE2 registers on x86-64.
#[inline(always)]
#[allow(unsafe_code)] // SSE2 intrinsics; checked against final_against_scalar in the tests
pub(crate) fn final_against((row0, row1): (u64, u64), side: &FinalSide) -> u8 {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "scalar")
    ))]
    if simd() {
        use std::arch::x86_64::*;
        // SAFETY: only compiled when SSE2 is enabled at build time (always, on x86-64); the
        // intrinsics below are register-only.
        unsafe {
            let a = _mm_set_epi64x(row1 as i64, row0 as i64);
            let b = _mm_set_epi64x(side.under_row1 as i64, side.under_row0 as i64);
            let s = _mm_adds_epu8(a, b);
            // Halve the lanes four times; only lane 0 is read, and it never sees the zeros
            // the shifts bring in at the top.
            let m = _mm_min_epu8(s, _mm_shuffle_epi32::<0x4E>(s));
            let m = _mm_min_epu8(m, _mm_srli_epi64::<32>(m));
            let m = _mm_min_epu8(m, _mm_srli_epi64::<16>(m));
            let m = _mm_min_epu8(m, _mm_srli_epi64::<8>(m));
            return (_mm_cvtsi128_si32(m) & 0xFF) as u8;
        }
    }
    final_against_scalar((row0, row1), side)
}

/// [`final_against`] as plain loops: what ARM phones run (and the `scalar` feature on x86).
#[inline(always)]
fn final_against_scalar((row0, row1): (u64, u64), side: &FinalSide) -> u8 {
    let (a0, a1) = (row0.to_le_bytes(), row1.to_le_bytes());
    let (b0, b1) = (side.under_row0.to_le_bytes(), side.under_row1.to_le_bytes());
    let mut best = u8::MAX;
    for j in 0..8 {
        best = best
            .min(a0[j].saturating_add(b0[j]))
            .min(a1[j].saturating_add(b1[j]));
    }
    best
}

/// Calls `f::<K>(args)` with the constant `K` equal to the runtime number of sets (0–4).
macro_rules! with_sets {
    ($sets:expr, $f:ident ( $($arg:expr),* )) => {
        match $sets {
            0 => $f::<0>($($arg),*),
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            _ => $f::<4>($($arg),*),
        }
    };
}
pub(crate) use with_sets;

/// Decoding by small lookup tables instead of a loop over the fields: the prefix sums of the
/// four set steps (8 bits), and the five pair extras (10 bits, as 6 + 4), each already spread
/// one value per byte, so a row is one read and one add.
const STEP_ROWS: [u64; 256] = {
    let mut out = [0u64; 256];
    let mut e = 0;
    while e < 256 {
        let mut acc = 0u64;
        let mut row = 0u64;
        let mut k = 1;
        while k < 5 {
            acc += ((e >> (2 * (k - 1))) & 3) as u64;
            row |= acc << (8 * k);
            k += 1;
        }
        out[e] = row;
        e += 1;
    }
    out
};

/// Pair extras for entries 0–2 (six bits) and 3–4 (four bits), one per byte.
const EXTRA_LOW: [u64; 64] = spread_fields(0);
const EXTRA_HIGH: [u64; 16] = spread_fields(3);

/// For every value of `N`'s worth of 2-bit fields, the fields one per byte from byte `first`.
const fn spread_fields<const N: usize>(first: usize) -> [u64; N] {
    let mut out = [0u64; N];
    let mut e = 0;
    while e < N {
        let mut k = 0;
        while 1 << (2 * k) < N {
            out[e] |= (((e >> (2 * k)) & 3) as u64) << (8 * (k + first));
            k += 1;
        }
        e += 1;
    }
    out
}

#[inline(always)]
fn decode(e: u32) -> Dist {
    dist_of_rows(decode_rows(e))
}

/// An entry's two rows (no pair, pair) packed one distance per byte, `k` sets in byte `k`,
/// zeros above: for comparing many entries at once.
#[inline(always)]
fn decode_rows(e: u32) -> (u64, u64) {
    debug_assert!(e & COMPUTED != 0, "suit arrangement outside the table");
    let e = e as usize;
    // No byte overflows: distances stay below 16.
    let row0 = STEP_ROWS[e & 0xff];
    let row1 = row0 + EXTRA_LOW[(e >> 8) & 0x3f] + EXTRA_HIGH[(e >> 14) & 0xf];
    (row0, row1)
}

/// Packed rows back to a distance vector.
#[inline(always)]
pub(crate) fn dist_of_rows((row0, row1): (u64, u64)) -> Dist {
    let (a, b) = (row0.to_le_bytes(), row1.to_le_bytes());
    [
        [a[0], a[1], a[2], a[3], a[4]],
        [b[0], b[1], b[2], b[3], b[4]],
    ]
}

/// A distance vector packed as [`decode_rows`] packs it.
#[inline(always)]
pub(crate) fn rows(d: &Dist) -> (u64, u64) {
    let pack = |r: &[u8; 5]| u64::from_le_bytes([r[0], r[1], r[2], r[3], r[4], 0, 0, 0]);
    (pack(&d[0]), pack(&d[1]))
}

fn encode(d: &Dist) -> u32 {
    let mut e = COMPUTED;
    for k in 1..5 {
        let step = d[0][k] - d[0][k - 1];
        debug_assert!(step <= 3);
        e |= (step as u32) << (2 * (k - 1));
    }
    for k in 0..5 {
        let extra = d[1][k] - d[0][k];
        debug_assert!(extra <= 2);
        e |= (extra as u32) << (8 + 2 * k);
    }
    e
}

/// Builds the table for a group of `len` ranks; `chows` says whether runs exist (suits) or not
/// (honors).
fn build(len: usize, chows: bool) -> Vec<u32> {
    let size = POW5[len];
    let mut table = vec![0u32; size];
    table[0] = encode(&EMPTY);
    let mut digits = [0u8; 9];
    let mut sum = 0u32;
    for idx in 1..size {
        // Increment the base-5 digits, tracking the tile count.
        let mut i = 0;
        loop {
            if digits[i] == 4 {
                digits[i] = 0;
                sum -= 4;
                i += 1;
            } else {
                digits[i] += 1;
                sum += 1;
                break;
            }
        }
        if sum > MAX_TILES {
            continue;
        }
        let low = digits[..len].iter().position(|&c| c > 0).unwrap();
        let c = &digits[..len];
        let get = |sub: usize| decode(table[sub]);
        let p = POW5[low];
        let mut best = [[u8::MAX; 5]; 2];
        // (tiles removed as key offset, cost, adds a set, adds the pair)
        let mut options: [(usize, u8, bool, bool); 9] = [(0, 0, false, false); 9];
        let mut n = 0;
        let mut push = |o: (usize, u8, bool, bool)| {
            options[n] = o;
            n += 1;
        };
        push((p, 0, false, false)); // leave this tile unused
        push((p, 2, true, false)); // a lone tile grown into a set
        push((p, 1, false, true)); // a lone tile grown into the pair
        if c[low] >= 2 {
            push((2 * p, 1, true, false)); // a pair grown into a pung
            push((2 * p, 0, false, true)); // the pair
        }
        if c[low] >= 3 {
            push((3 * p, 0, true, false)); // a pung
        }
        if chows {
            let has = |r: usize| r < len && c[r] > 0;
            if has(low + 1) && has(low + 2) {
                push((p + POW5[low + 1] + POW5[low + 2], 0, true, false)); // a chow
            }
            if has(low + 1) {
                push((p + POW5[low + 1], 1, true, false)); // two in a row
            }
            if has(low + 2) {
                push((p + POW5[low + 2], 1, true, false)); // a gap of one
            }
        }
        for &(off, cost, set, pair) in &options[..n] {
            let sub = get(idx - off);
            for pp in 0..2 {
                for k in 0..5 {
                    let (sp, sk) = (pp as i32 - pair as i32, k as i32 - set as i32);
                    if sp < 0 || sk < 0 {
                        continue;
                    }
                    let v = sub[sp as usize][sk as usize] + cost;
                    if v < best[pp][k] {
                        best[pp][k] = v;
                    }
                }
            }
        }
        // Fewer sets never cost more: any target can be reached by building from nothing.
        for pp in 0..2 {
            for k in 0..5 {
                best[pp][k] = best[pp][k].min(EMPTY[pp][k]);
            }
        }
        table[idx] = encode(&best);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_against_a_prepared_side_matches_merge_final() {
        let t = tables();
        // Real vectors: every arrangement of up to five tiles in one suit, against a few.
        let sides = [
            EMPTY,
            LONE_TILE,
            t.suit(&[1, 1, 1, 0, 0, 2, 0, 0, 0]),
            t.honors(&[2, 1, 0, 0, 3, 0, 0]),
        ];
        let mut key = 0usize;
        let mut checked = 0;
        while key < 5usize.pow(9) {
            let counts: Vec<u8> = (0..9).map(|r| ((key / 5usize.pow(r)) % 5) as u8).collect();
            if counts.iter().map(|&c| c as u32).sum::<u32>() <= 5 {
                let rows = t.rows_by_key(0, key);
                let a = dist_of_rows(rows);
                for b in &sides {
                    assert_eq!(
                        final_against(rows, &FinalSide::of::<4>(b)),
                        merge_final::<4>(&a, b)
                    );
                    assert_eq!(
                        final_against(rows, &FinalSide::of::<2>(b)),
                        merge_final::<2>(&a, b)
                    );
                    assert_eq!(
                        final_against(rows, &FinalSide::of::<0>(b)),
                        merge_final::<0>(&a, b)
                    );
                    // The plain path phones run, whatever this build uses.
                    for side in [FinalSide::of::<4>(b), FinalSide::of::<1>(b)] {
                        assert_eq!(
                            final_against_scalar(rows, &side),
                            final_against(rows, &side)
                        );
                    }
                    checked += 1;
                }
            }
            key += 1;
        }
        assert!(checked > 5_000, "{checked}");
    }

    #[test]
    fn merge_matches_the_plain_loops() {
        // Every vector the tables can hold arises from real groups; random valid entries
        // (rows non-decreasing, the pair row at most two above) cover more than enough.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as u8
        };
        for _ in 0..100_000 {
            let mut d = [[[0u8; 5]; 2]; 2];
            for v in &mut d {
                for k in 1..5 {
                    v[0][k] = v[0][k - 1] + next(4);
                }
                for k in 0..5 {
                    v[1][k] = v[0][k] + next(3);
                }
            }
            let full = merge_full(&d[0], &d[1]);
            assert_eq!(full, merge_full_scalar(&d[0], &d[1]));
            // The plain partial merges agree with the full one up to their set count.
            let upto = [
                merge_upto_scalar::<0>(&d[0], &d[1]),
                merge_upto_scalar::<1>(&d[0], &d[1]),
                merge_upto_scalar::<2>(&d[0], &d[1]),
                merge_upto_scalar::<3>(&d[0], &d[1]),
            ];
            for (k, part) in upto.iter().enumerate() {
                for row in 0..2 {
                    assert_eq!(part[row][..=k], full[row][..=k], "K = {k}");
                }
            }
        }
    }

    #[test]
    fn simple_suits() {
        let t = tables();
        // 123: one chow, nothing to add; a pair costs two more tiles.
        let d = t.suit(&[1, 1, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(d[0][1], 0);
        assert_eq!(d[1][1], 2);
        // 1112: pung + lone 2 → pair costs 1; or 11 pair + 12 run → set costs 1.
        let d = t.suit(&[3, 1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(d[1][1], 1);
        assert_eq!(d[0][1], 0);
        assert_eq!(d[0][2], 2);
        // Honors never make runs: 1z2z3z as one set costs 2.
        let d = t.honors(&[1, 1, 1, 0, 0, 0, 0]);
        assert_eq!(d[0][1], 2);
        assert_eq!(t.honors(&[3, 0, 0, 0, 0, 0, 0])[0][1], 0);
    }
}
