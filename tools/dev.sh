#!/usr/bin/env bash
# vramcalc developer entry point: one script behind the README's two commands.
#
#   bash tools/dev.sh run [--desktop|--cli]   install what is missing, build, run the main job
#   bash tools/dev.sh test                    install what is missing, build, run every test
#   bash tools/dev.sh setup                   only install what is missing
#   bash tools/dev.sh build                   only build (native + wasm)
#
# Idempotent: a second run installs nothing and rebuilds only what changed.
# Environment: VRAMCALC_PORT (default 8080), VRAMCALC_JOBS (default: nproc).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS="$ROOT/.deps"                 # git-ignored: unpacked third-party sources
BUILD_NATIVE="$ROOT/build/native"
BUILD_WASM="$ROOT/build/wasm"
JOBS="${VRAMCALC_JOBS:-$(nproc)}"

# Debian packages the project needs (see shared notes/toolchain.md for why each).
PACKAGES=(
  g++ cmake ninja-build xz-utils ca-certificates
  nlohmann-json3-dev catch2          # JSON, unit tests
  emscripten                         # the wasm build (uses Debian's clang-14, lld, binaryen)
  libglfw3-dev libgl-dev             # the native desktop app
  xvfb xauth                         # running the desktop app headless in tests
  chromium                           # page tests in a real browser
  python3                            # tools/measure dry-run test (already pulled in by emscripten)
)

say()  { printf '\033[1m[vramcalc]\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31m[vramcalc] error:\033[0m %s\n' "$*" >&2; exit 1; }

need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || fail "installing packages needs root (run as root or install sudo)"
    echo sudo
  fi
}

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local SUDO; SUDO="$(need_root)"
  say "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq || fail "apt-get update failed (is Debian's archive reachable?)"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || fail "apt-get install failed for: ${missing[*]}"
}

# Dear ImGui: libimgui-dev lacks the core .cpp files the wasm build needs, so both builds take the
# sources from Debian's *source* package. apt-get source needs a deb-src entry; we add one for the
# same archive the machine already uses (read from its own sources file, no host name written here).
fetch_imgui() {
  local dest="$DEPS/imgui"
  [ -f "$dest/imgui.cpp" ] && [ -f "$dest/backends/imgui_impl_glfw.cpp" ] && return 0
  local SUDO; SUDO="$(need_root)"
  local src_list=/etc/apt/sources.list.d/vramcalc-deb-src.sources
  if ! apt-get source --print-uris imgui >/dev/null 2>&1; then
    local uri
    uri="$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
    [ -n "$uri" ] || uri="$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)"
    [ -n "$uri" ] || fail "cannot find the Debian archive URI to add a deb-src entry for imgui"
    say "adding a deb-src entry for $uri (for Dear ImGui's sources)"
    printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" \
      | $SUDO tee "$src_list" >/dev/null
    $SUDO apt-get update -qq || fail "apt-get update failed after adding deb-src"
  fi
  say "downloading Dear ImGui sources (Debian source package imgui)"
  local tmp; tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get source --download-only imgui >/dev/null 2>&1) || fail "apt-get source imgui failed"
  local tarball; tarball="$(ls "$tmp"/imgui_*.orig.tar.* 2>/dev/null | head -1)"
  [ -n "$tarball" ] || fail "imgui source tarball not found after apt-get source"
  rm -rf "$dest" && mkdir -p "$dest"
  tar -xf "$tarball" -C "$dest" --strip-components=1 || fail "cannot unpack $tarball"
  rm -rf "$tmp"
  [ -f "$dest/imgui.cpp" ] || fail "imgui.cpp missing from $tarball"
}

setup() {
  install_packages
  fetch_imgui
}

# Emscripten 3.1.6 from Debian needs Debian's node modules (acorn) on the module path.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

build_native() {
  cmake -S "$ROOT" -B "$BUILD_NATIVE" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DVRAMCALC_IMGUI_DIR="$DEPS/imgui" >/dev/null || fail "native configure failed"
  cmake --build "$BUILD_NATIVE" -j "$JOBS" || fail "native build failed"
}

build_wasm() {
  emcmake cmake -S "$ROOT" -B "$BUILD_WASM" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DVRAMCALC_IMGUI_DIR="$DEPS/imgui" >/dev/null || fail "wasm configure failed"
  cmake --build "$BUILD_WASM" -j "$JOBS" || fail "wasm build failed"
}

run_tests() {
  local rc=0
  say "native tests"
  ctest --test-dir "$BUILD_NATIVE" --output-on-failure -j "$JOBS" || rc=1
  say "wasm tests (under Node)"
  ctest --test-dir "$BUILD_WASM" --output-on-failure -j "$JOBS" || rc=1
  [ $rc -eq 0 ] || fail "some tests failed"
  say "all tests passed"
}

cmd="${1:-run}"; shift || true
case "$cmd" in
  setup) setup ;;
  build) setup; build_native; build_wasm ;;
  test)  setup; build_native; build_wasm; run_tests ;;
  run)
    setup; build_native
    case "${1:-}" in
      --cli|"")
        say "default scenario (Llama-3.1-8B, LoRA rank 8, bf16, H100 80GB):"
        "$BUILD_NATIVE/cli/vramcalc" estimate --model llama-3.1-8b --method lora --precision bf16 --gpu h100-80gb ;;
      *) fail "unknown option '$1' (allowed: --cli)" ;;
    esac ;;
  *) fail "unknown command '$cmd' (allowed: run, test, setup, build)" ;;
esac
