#!/usr/bin/env python3
"""Checks that the phone shells only draw the app model's views and decide nothing.

The Compose (android/app) and SwiftUI (ios/App) sources may lay out view fields and send back
a button's tap; they may not carry words of their own (every text comes from the model's
catalogue), compare anything to a text (a decision on the game's state), or call the engine's
own API (sessions, actions, the history, the network client), which the model does for them.
Exits 1 naming each line that breaks a rule.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHELLS = sorted(
    list((ROOT / "android/app/src/main/kotlin").rglob("*.kt")) + list((ROOT / "ios/App").rglob("*.swift"))
)
# The engine's API: what the model calls, never a shell.
ENGINE = re.compile(
    r"\b(GameSession|SessionConfig|ActionModel|TableModel|PendingModel|HintModel|HistoryStore|"
    r"OnlineClient|OnlineSession|QueueTicket|verifyRecord|tileNames)\b"
)
# Platform names a shell needs (key store, file names, queues): not words for people.
TECHNICAL = {"AndroidKeyStore", "AES/GCM/NoPadding", "tongcheng-device", "device.key", "device.key.tmp",
             "com.tongcheng.device", "device-key", "tongcheng.network"}
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
INTERPOLATION = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_]\w*|\\\([^)]*\)")
CJK = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")
WORDS = re.compile(r"[A-Za-z]{2,}")


def problems(path: pathlib.Path):
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("//", 1)[0] if "://" not in line else line
        stripped = code.strip()
        if not stripped or stripped.startswith(("import ", "package ", "*", "/*", "@file:")):
            continue
        if ENGINE.search(code):
            yield n, "calls the engine's API (the model does)"
        if re.search(r'[=!]=\s*"', code):
            yield n, "compares with a text (a decision the model makes)"
        for lit in LITERAL.findall(code):
            text = INTERPOLATION.sub("", lit)
            if lit in TECHNICAL:
                continue
            if CJK.search(text) or WORDS.search(text):
                yield n, f'words of its own: "{lit}" (texts come from the model\'s catalogue)'


def main() -> int:
    bad = 0
    for path in SHELLS:
        for n, why in problems(path):
            bad += 1
            print(f"{path.relative_to(ROOT)}:{n}: {why}")
    print(f"thin shells: {len(SHELLS)} files checked, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
