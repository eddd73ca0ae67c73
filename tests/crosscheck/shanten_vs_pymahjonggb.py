#!/usr/bin/env python3
"""Cross-checks `tongcheng shanten` against an independent implementation.

The independent implementation is PyPI's `pymahjonggb` (the C++ ChineseOfficialMahjongHelper
algorithms). It lists a kind as useful even when the hand holds all four copies; our definition
never does, so those are filtered out of its answer before comparing.

Usage: shanten_vs_pymahjonggb.py TONGCHENG_BINARY [HANDS] [SEED]
"""
import json
import random
import subprocess
import sys

import MahjongGB as gb

SUITS = "mps"
GB_HONORS = ["F1", "F2", "F3", "F4", "J3", "J2", "J1"]  # 1z..7z: E S W N White Green Red


def gb_name(kind):
    if kind < 27:
        return "WBT"[kind // 9] + str(kind % 9 + 1)
    return GB_HONORS[kind - 27]


def from_gb(name):
    if name[0] in "WBT":
        return "WBT".index(name[0]) * 9 + int(name[1]) - 1
    return 27 + GB_HONORS.index(name)


def notation(kinds):
    out, last = "", None
    for k in sorted(kinds):
        suit = "mpsz"[min(k // 9, 3)]
        rank = k - 27 + 1 if k >= 27 else k % 9 + 1
        if last is not None and last != suit:
            out += last
        out += str(rank)
        last = suit
    return out + (last or "")


def random_hand(rng, style):
    wall = [k for k in range(34) for _ in range(4)]
    if style == "one_suit":
        suit = rng.randrange(3)
        wall = [k for k in wall if k // 9 == suit or k >= 27 and rng.random() < 0.1]
    elif style == "orphans":
        wall = [k for k in wall if k >= 27 or k % 9 in (0, 8) or rng.random() < 0.2]
    elif style == "knitted":
        perm = rng.sample(range(3), 3)
        wall = [k for k in wall if k >= 27 or (k % 9) % 3 == perm[k // 9] or rng.random() < 0.15]
    return sorted(rng.sample(wall, 13))


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    styles = ["any", "one_suit", "orphans", "knitted"]
    hands = [random_hand(rng, styles[i % 4]) for i in range(count)]
    lines = "\n".join(notation(h) for h in hands) + "\n"
    out = subprocess.run([binary, "shanten"], input=lines, capture_output=True, text=True, check=True)
    ours = [json.loads(l) for l in out.stdout.splitlines()]
    assert len(ours) == len(hands), "one output line per hand"
    funcs = {
        "regular": gb.RegularShanten,
        "seven_pairs": gb.SevenPairsShanten,
        "thirteen_orphans": gb.ThirteenOrphansShanten,
        "honors_knitted": gb.HonorsAndKnittedTilesShanten,
        "knitted_straight": gb.KnittedStraightShanten,
    }
    bad = 0
    for hand, mine in zip(hands, ours):
        tiles = tuple(gb_name(k) for k in hand)
        overall = 99
        for shape, f in funcs.items():
            s, useful = f(tiles)
            useful = {from_gb(u) for u in useful if hand.count(from_gb(u)) < 4}
            overall = min(overall, s)
            got = mine["shapes"][shape]
            want = {"shanten": s, "useful": notation(useful)}
            if got != want:
                bad += 1
                if bad <= 20:
                    print(f"MISMATCH {notation(hand)} {shape}: ours {got} pymahjonggb {want}")
        if mine["shanten"] != overall:
            bad += 1
            print(f"MISMATCH {notation(hand)} overall: ours {mine['shanten']} pymahjonggb {overall}")
    checked = len(hands) * len(funcs)
    print(f"shanten-crosscheck: {checked - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
