#!/usr/bin/env bash
# Kotlin tests on the JVM against the real Rust library, through the generated bindings: the
# app model's journeys (AppModelTests.kt) and the engine's API. Installs what it needs on a
# fresh machine: JNA from Debian's libjna-java, and JetBrains' Kotlin compiler from the PyPI package
# kotlin-jupyter-kernel (its -all jar carries K2JVMCompiler), cached under ~/.cache.
set -euo pipefail
cd "$(dirname "$0")/../.."

KOTLIN_KERNEL_VERSION=0.19.0.944
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tongcheng/kotlin-$KOTLIN_KERNEL_VERSION"
compiler="$cache/kotlin-jupyter-kernel-all.jar"
stdlib="$cache/kotlin-stdlib.jar"

command -v java >/dev/null || { echo "a JDK (17) is required" >&2; exit 1; }
jna=/usr/share/java/jna.jar
if [ ! -f "$jna" ]; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get install -y -qq libjna-java >/dev/null 2>&1) || (apt-get update -qq && apt-get install -y -qq libjna-java >/dev/null)
  else
    sudo apt-get install -y -qq libjna-java >/dev/null
  fi
fi
if [ ! -f "$compiler" ] || [ ! -f "$stdlib" ]; then
  mkdir -p "$cache"
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --disable-pip-version-check --no-deps -d "$tmp" \
    "kotlin-jupyter-kernel==$KOTLIN_KERNEL_VERSION"
  python3 - "$tmp" "$cache" <<'PY'
import glob, sys, zipfile
tmp, cache = sys.argv[1], sys.argv[2]
wheel = glob.glob(tmp + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        base = name.rsplit("/", 1)[-1]
        if base.startswith("kotlin-jupyter-kernel-") and base.endswith("-all.jar"):
            open(cache + "/kotlin-jupyter-kernel-all.jar", "wb").write(z.read(name))
        elif base.startswith("kotlin-stdlib-") and base.endswith(".jar"):
            open(cache + "/kotlin-stdlib.jar", "wb").write(z.read(name))
PY
  rm -rf "$tmp"
fi

# The test profile (optimised, debug assertions on); under scripts/test.sh
# (TONGCHENG_PREBUILT=1) the library, the generator and the server are what `cargo test
# --workspace` already compiled, so nothing is built again.
# TONGCHENG_PROFILE=release tests the release library instead.
profile=${TONGCHENG_PROFILE:-test}
[ "$profile" = release ] && libdir=target/release || libdir=target/debug
# Prebuilt by `cargo test`: the library sits where dependencies are built.
[ "$profile" = test ] && [ "${TONGCHENG_PREBUILT:-}" = 1 ] && libdir=target/debug/deps
TONGCHENG_PROFILE=$profile bash scripts/bindings.sh >/dev/null
out=build/kotlin-tests
rm -rf "$out"
mkdir -p "$out"
java -cp "$compiler" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler \
  -no-stdlib -cp "$stdlib:$jna" -d "$out" -nowarn \
  build/bindings/kotlin \
  tests/kotlin/src
# A fixed, pre-touched heap: RSS changes then show native memory, which the leak test checks.
# The login/sync test talks to a real server process (a debug build is enough; `cargo test
# --workspace` has usually built it already).
[ "${TONGCHENG_PREBUILT:-}" = 1 ] || cargo build -q --profile test -p tongcheng-server
java -Xss4m -Xms256m -Xmx256m -XX:+AlwaysPreTouch -Djna.library.path=$libdir \
  -Dtongcheng.server=target/debug/tongcheng-server -cp "$out:$stdlib:$jna" TongchengTestsKt
