#!/usr/bin/env python3
"""Cross-checks `tongcheng fan` against an independent fan calculator.

The independent implementation is PyPI's `pymahjonggb` 1.4.0 (the C++ ChineseOfficialMahjongHelper
algorithm). It differs from mcr-scoring.md on purpose in one place, its 5-point 明暗杠 for one
melded plus one concealed kong, so `tongcheng fan` runs with `--mixed-kong-5` and that fan is
mapped to our optional id 82. (mcr-scoring.md §7 item 10 also says pymahjonggb drops 杠上开花 beside
妙手回春; version 1.4.0 in fact scores both, like our default, so no flag is needed there.)

Hands are random but always complete, seeded and varied: regular hands built from random sets and
a pair with 0-4 melds (chows, pungs, exposed and concealed kongs), styled towards flushes, honors,
terminals, related chows and pungs, simples, greens, reversible tiles; seven pairs (and shifted
pairs), thirteen orphans, honors-and-knitted, knitted straights, nine gates. Flags are random but
consistent with each other (robbing a kong is a discard win, a kong replacement is self-drawn).

Usage: fan_vs_pymahjonggb.py TONGCHENG_BINARY [HANDS] [SEED] [RULES_TSV]
Prints "N passed, M failed" and exits non-zero on any mismatch.
"""
import json
import os
import random
import subprocess
import sys

import MahjongGB as gb

SUITS = "mps"
# 1z..7z are East South West North White Green Red; pymahjonggb's J1 is Red, J3 White.
GB_HONORS = ["F1", "F2", "F3", "F4", "J3", "J2", "J1"]
ORPHANS = [0, 8, 9, 17, 18, 26] + list(range(27, 34))
KNITS = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
GREEN = [19, 20, 21, 23, 25, 32]
REVERSIBLE = [9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 31]
# pymahjonggb prints the wait fans with a prefix and 嵌张 for 坎张.
ALIASES = {"独听・边张": 77, "独听・嵌张": 78, "独听・单钓": 79, "明暗杠": 82}


def gb_name(k):
    if k < 27:
        return "WBT"[k // 9] + str(k % 9 + 1)
    return GB_HONORS[k - 27]


def notation(kinds):
    out, last = "", None
    for k in kinds:
        suit = "mpsz"[min(k // 9, 3)]
        rank = k - 27 + 1 if k >= 27 else k % 9 + 1
        if last is not None and last != suit:
            out += last
        out += str(rank)
        last = suit
    return out + (last or "")


def knit_tiles(arrangement):
    # arrangement[pattern] = suit carrying 147 (pattern 0), 258 (1), 369 (2)
    return [arrangement[p] * 9 + p + 3 * j for p in range(3) for j in range(3)]


class Builder:
    """Collects sets and a pair within the four-copy limit."""

    def __init__(self, rng):
        self.rng = rng
        self.counts = [0] * 34
        self.sets = []  # (kind, lowest, size): kind in chow/pung/kong
        self.pair = None

    def can(self, tiles):
        c = list(self.counts)
        for t in tiles:
            c[t] += 1
            if c[t] > 4:
                return False
        return True

    def add(self, kind, low):
        tiles = [low, low + 1, low + 2] if kind == "chow" else [low] * (4 if kind == "kong" else 3)
        if not self.can(tiles):
            return False
        for t in tiles:
            self.counts[t] += 1
        self.sets.append((kind, low))
        return True


def pick_set(rng, style, b):
    """One set for the style, or None if it did not fit."""
    suit = b.style_suit
    if style == "flush":
        kinds = [suit * 9 + r for r in range(9)] + ([27 + rng.randrange(7)] if rng.random() < 0.3 else [])
    elif style == "honors":
        kinds = list(range(27, 34)) if rng.random() < 0.7 else list(range(27))
    elif style == "terminals":
        kinds = ORPHANS
    elif style == "green":
        kinds = GREEN
    elif style == "reversible":
        kinds = REVERSIBLE
    elif style == "simples":
        kinds = [s * 9 + r for s in range(3) for r in range(1, 8)]
    elif style == "small":
        kinds = [s * 9 + r for s in range(3) for r in range(0, 4)]
    elif style == "big":
        kinds = [s * 9 + r for s in range(3) for r in range(5, 9)]
    elif style == "middle":
        kinds = [s * 9 + r for s in range(3) for r in range(3, 6)]
    elif style == "even":
        kinds = [s * 9 + r for s in range(3) for r in (1, 3, 5, 7)]
    else:
        kinds = list(range(34))
    chow_p = {"honors": 0.2, "terminals": 0.4, "even": 0.0, "chowsy": 0.95, "pungsy": 0.05}.get(style, 0.55)
    if style == "dragons":
        # 123 and 789 chows: 老少副, 一色双龙会, 三色双龙会 around a pair of 5s.
        pick = rng.choice([b.style_suit, b.style_suit, rng.randrange(3)])
        return ("chow", pick * 9 + rng.choice([0, 6]))
    if style == "fives":
        s = rng.randrange(3)
        if rng.random() < 0.25:
            return ("pung", s * 9 + 4)
        return ("chow", s * 9 + rng.choice([2, 3, 4]))
    if style == "allterm":
        return ("pung", rng.choice(ORPHANS[:6]) if rng.random() < 0.9 else 27 + rng.randrange(7))
    if style == "chowsy":
        # Chows with related ranks: same rank across suits, shifted, straights, terminals.
        r = b.style_rank
        choice = rng.choice([r, r, r + 1, r + 2, r + 3, 0, 6, rng.randrange(7)])
        low = rng.randrange(3) * 9 + min(max(choice, 0), 6)
        return ("chow", low)
    if style == "pungsy":
        r = b.style_rank
        choice = rng.choice([r, r, r + 1, r + 2, rng.randrange(9)])
        s = rng.randrange(3)
        if rng.random() < 0.2:
            return ("pung", 27 + rng.randrange(7))
        return ("pung", s * 9 + min(choice, 8))
    k = rng.choice(kinds)
    if k < 27 and rng.random() < chow_p:
        r = k % 9
        low = k - min(r, 6) if r > 6 else k
        low = low - rng.randrange(0, min(low % 9, 2) + 1)
        tiles = [low, low + 1, low + 2]
        if style in ("green", "reversible", "simples", "small", "big", "middle") and not all(t in kinds for t in tiles):
            return ("pung", k)
        return ("chow", low)
    return ("pung", k)


def regular_hand(rng, style):
    for _ in range(100):
        b = Builder(rng)
        b.style_suit = rng.randrange(3)
        b.style_rank = rng.randrange(7)
        ok = True
        for _ in range(4):
            for _ in range(30):
                kind, low = pick_set(rng, style, b)
                if kind == "pung" and rng.random() < (0.6 if style == "kongs" else 0.12):
                    kind = "kong"
                if b.add(kind, low):
                    break
            else:
                ok = False
                break
        if not ok:
            continue
        pair_kinds = {
            "flush": [b.style_suit * 9 + r for r in range(9)],
            "honors": list(range(27, 34)),
            "terminals": ORPHANS,
            "allterm": ORPHANS[:6],
            "dragons": [s * 9 + 4 for s in range(3)],
            "fives": [s * 9 + 4 for s in range(3)],
            "green": GREEN,
            "reversible": REVERSIBLE,
        }.get(style, list(range(34)))
        for _ in range(30):
            p = rng.choice(pair_kinds) if rng.random() < 0.8 else rng.randrange(34)
            if b.counts[p] <= 2:
                b.counts[p] += 2
                b.pair = p
                break
        else:
            continue
        return b
    return None


def split_melds(rng, b, max_melds=4):
    """Decides which sets are melds; kongs always are. Returns (melds, concealed14)."""
    n_melds = rng.choice([0, 0, 1, 1, 2, 2, 3, 4])
    n_melds = min(max(n_melds, sum(1 for s in b.sets if s[0] == "kong")), max_melds)
    order = list(range(len(b.sets)))
    rng.shuffle(order)
    kongs = [i for i in order if b.sets[i][0] == "kong"]
    others = [i for i in order if b.sets[i][0] != "kong"]
    chosen = set(kongs + others[: max(0, n_melds - len(kongs))])
    melds, concealed = [], []
    for i, (kind, low) in enumerate(b.sets):
        tiles = [low, low + 1, low + 2] if kind == "chow" else [low] * (4 if kind == "kong" else 3)
        if i in chosen:
            concealed_kong = kind == "kong" and rng.random() < 0.5
            melds.append((kind, low, concealed_kong))
        else:
            concealed += tiles
    concealed += [b.pair, b.pair]
    return melds, concealed


def seven_pairs(rng):
    style = rng.choice(["any", "flush", "honors", "shifted", "hog", "runs", "runs"])
    if style == "runs":
        # Runs of pairs (223344m...) also read as chows: seven pairs against regular readings.
        counts = [0] * 34
        n = 0
        while n < 7:
            s, r, length = rng.randrange(3), rng.randrange(7), min(rng.randrange(1, 4), 7 - n)
            if r + length > 9 or any(counts[s * 9 + r + d] > 2 for d in range(length)):
                continue
            for d in range(length):
                counts[s * 9 + r + d] += 2
            n += length
        return [], [k for k in range(34) for _ in range(counts[k])]
    if style == "shifted":
        s, start = rng.randrange(3), rng.randrange(3)
        kinds = [s * 9 + start + i for i in range(7)]
    else:
        pool = {
            "flush": [rng.randrange(3) * 9 + r for r in range(9)] + list(range(27, 34)),
            "honors": list(range(27, 34)) + ORPHANS,
        }.get(style, list(range(34)))
        pool = sorted(set(pool))
        if style == "hog":
            k = rng.sample(pool, 6)
            kinds = k + [k[0]]
        else:
            kinds = rng.sample(pool, 7)
    tiles = [k for k in kinds for _ in range(2)]
    return [], tiles


def thirteen_orphans(rng):
    return [], ORPHANS + [rng.choice(ORPHANS)]


def honors_knitted(rng):
    arrangement = rng.choice(KNITS)
    suited = knit_tiles(arrangement)
    honors = 7 if rng.random() < 0.35 else rng.randrange(5, 7)
    tiles = rng.sample(suited, 14 - honors) + rng.sample(range(27, 34), honors)
    return [], tiles


def knitted_straight(rng):
    for _ in range(100):
        b = Builder(rng)
        for t in knit_tiles(rng.choice(KNITS)):
            b.counts[t] += 1
        kind = "chow" if rng.random() < 0.5 else "pung"
        k = rng.randrange(34)
        if kind == "chow" and (k >= 27 or k % 9 > 6):
            kind = "pung"
        if kind == "pung" and rng.random() < 0.15:
            kind = "kong"
        if not b.add(kind, k):
            continue
        p = rng.randrange(34)
        if b.counts[p] > 2:
            continue
        b.counts[p] += 2
        b.pair = p
        knitted = [t for t in range(34) for _ in range(b.counts[t])]
        # Remove the set's tiles from the flat list; they are re-added below as meld or tiles.
        set_tiles = [k, k + 1, k + 2] if kind == "chow" else [k] * (4 if kind == "kong" else 3)
        for t in set_tiles:
            knitted.remove(t)
        if kind == "kong" or rng.random() < 0.4:
            return [(kind, k, kind == "kong" and rng.random() < 0.5)], knitted
        return [], knitted + set_tiles
    return None


def nine_gates(rng):
    s = rng.randrange(3)
    tiles = [s * 9 + r for r in [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8]]
    return [], tiles + [s * 9 + rng.randrange(9)]


def random_hand(rng, i):
    kind = i % 20
    if kind < 13:
        styles = ["any", "any", "flush", "honors", "terminals", "chowsy", "pungsy", "green", "reversible",
                  "simples", "small", "big", "even", "middle", "dragons", "fives", "allterm", "kongs"]
        style = rng.choice(styles)
        b = regular_hand(rng, style)
        if b is None:
            return None
        melds, concealed = split_melds(rng, b)
    elif kind == 13:
        melds, concealed = seven_pairs(rng)
    elif kind == 14:
        melds, concealed = thirteen_orphans(rng)
    elif kind == 15:
        melds, concealed = honors_knitted(rng)
    elif kind in (16, 17):
        r = knitted_straight(rng)
        if r is None:
            return None
        melds, concealed = r
    else:
        melds, concealed = nine_gates(rng) if kind == 18 else split_melds(rng, regular_hand(rng, "flush"))
    win = rng.choice(concealed)
    concealed = list(concealed)
    concealed.remove(win)
    if rng.random() < 0.3:
        # Any winning tile of the 13 held tiles, not only the one taken out: varied waits.
        waits = winning_kinds(melds, concealed)
        if waits:
            win = rng.choice(waits)
    rng.shuffle(concealed)
    has_kong = any(m[0] == "kong" for m in melds)
    in_melds = sum((m[1] <= win <= m[1] + 2) if m[0] == "chow" else (m[1] == win) * (4 if m[0] == "kong" else 3)
                   for m in melds)
    held = win in concealed
    self_drawn = rng.random() < 0.45
    flags = {
        "self_drawn": self_drawn,
        "last_tile": rng.random() < 0.08,
        "on_kong": self_drawn and has_kong and rng.random() < 0.35,
        # Mostly honest flags; now and then one that the hand makes impossible, which both
        # calculators must ignore the same way.
        "robbing_kong": (not self_drawn) and rng.random() < (0.1 if not held and not in_melds else 0.02),
        "last_copy": rng.random() < (0.15 if not held else 0.03),
    }
    return {
        "melds": melds,
        "concealed": concealed,
        "win": win,
        "flags": flags,
        "seat": rng.randrange(4),
        "round": rng.randrange(4),
        "flowers": rng.choice([0, 0, 0, 0, 1, 2, 3, 8]),
    }


def meld_tiles(m):
    kind, low, _ = m
    return [low, low + 1, low + 2] if kind == "chow" else [low] * (4 if kind == "kong" else 3)


def winning_kinds(melds, concealed):
    """The kinds on which pymahjonggb declares the 13 held tiles a win (within four copies)."""
    used = [0] * 34
    for t in concealed + [t for m in melds for t in meld_tiles(m)]:
        used[t] += 1
    pack = tuple(gb_pack(m, 1) for m in melds)
    hand = tuple(gb_name(k) for k in concealed)
    out = []
    for k in range(34):
        if used[k] >= 4:
            continue
        try:
            gb.MahjongFanCalculator(pack, hand, gb_name(k), 0, False, False, False, False, 0, 0)
            out.append(k)
        except TypeError:
            pass
    return out


def to_json(h, rng):
    melds = []
    for kind, low, concealed in h["melds"]:
        if kind == "chow":
            tiles = [low, low + 1, low + 2]
            m = {"kind": "chow", "tiles": notation(tiles), "claimed": notation([rng.choice(tiles)])}
        elif kind == "pung":
            m = {"kind": "pung", "tiles": notation([low] * 3)}
        else:
            m = {"kind": "kong", "tiles": notation([low] * 4)}
            if concealed:
                m["concealed"] = True
        melds.append(m)
    line = {
        "concealed": notation(h["concealed"]),
        "melds": melds,
        "win_tile": notation([h["win"]]),
        "seat_wind": "ESWN"[h["seat"]],
        "round_wind": "ESWN"[h["round"]],
        "flowers": h["flowers"],
    }
    line.update(h["flags"])
    return json.dumps(line, ensure_ascii=False)


def gb_pack(m, offer):
    """A meld as pymahjonggb's (type, tile, offer); offer 0 only for a concealed kong."""
    kind, low, concealed = m
    if kind == "chow":
        return ("CHI", gb_name(low + 1), offer)
    if kind == "pung":
        return ("PENG", gb_name(low), offer)
    return ("GANG", gb_name(low), 0 if concealed else offer)


def reference(h, rng):
    pack = [gb_pack(m, rng.randrange(1, 4)) for m in h["melds"]]
    f = h["flags"]
    try:
        fans = gb.MahjongFanCalculator(
            tuple(pack), tuple(gb_name(k) for k in h["concealed"]), gb_name(h["win"]), h["flowers"],
            f["self_drawn"], f["last_copy"], f["on_kong"] or f["robbing_kong"], f["last_tile"],
            h["seat"], h["round"], verbose=True)
    except TypeError as e:
        return {"error": str(e)}
    return fans


def load_names(path):
    by_zh, by_en = {}, {}
    with open(path, encoding="utf-8") as fh:
        next(fh)
        for row in fh:
            cols = row.rstrip("\n").split("\t")
            by_zh[cols[1]] = int(cols[0])
            by_en[cols[2].lower()] = int(cols[0])
    return by_zh, by_en


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 6000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rules = sys.argv[4] if len(sys.argv) > 4 else os.path.join(here, "..", "..", "docs", "rules", "mcr-fans.tsv")
    by_zh, by_en = load_names(rules)
    rng = random.Random(seed)
    hands = []
    while len(hands) < count:
        h = random_hand(rng, len(hands))
        if h is not None:
            hands.append(h)
    lines = "\n".join(to_json(h, rng) for h in hands) + "\n"
    out = subprocess.run([binary, "fan", "--mixed-kong-5"], input=lines, capture_output=True, text=True, check=True)
    ours = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(ours) == len(hands), "one output line per hand"
    bad = 0
    for h, line, mine in zip(hands, lines.splitlines(), ours):
        ref = reference(h, rng)
        if isinstance(ref, dict):
            want = ref
        else:
            fans = {}
            for points, n, zh, en in ref:
                fid = ALIASES.get(zh) or by_zh.get(zh) or by_en.get(en.lower())
                if fid is None:
                    raise SystemExit(f"unmapped pymahjonggb fan {zh} / {en}")
                fans[fid] = fans.get(fid, 0) + n
            want = {"total": sum(p * n for p, n, _, _ in ref), "fans": fans}
        if "error" in mine or "error" in want:
            same = "error" in mine and "error" in want
            got = mine
        else:
            got = {"total": mine["total"], "fans": {f["id"]: f["count"] for f in mine["fans"]}}
            same = got == want
        if not same:
            bad += 1
            if bad <= 30:
                print(f"MISMATCH {line}\n  ours        {got}\n  pymahjonggb {want}")
    print(f"fan-crosscheck: {len(hands) - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
