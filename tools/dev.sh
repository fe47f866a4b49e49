#!/usr/bin/env bash
# vramcalc developer entry point: one script behind the README's two commands.
#
#   bash tools/dev.sh run [--desktop|--cli]   install what is missing, build, serve the page (or run the
#                                             desktop app, or print a CLI bill)
#   bash tools/dev.sh test                    install what is missing, build, run every test
#   bash tools/dev.sh report [--screenshots]  the page's and desktop app's measured figures (and docs/ PNGs)
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
  libyaml-cpp-dev                    # YAML of imported configs (vramcalc import); wasm: its source package
  emscripten                         # the wasm build (uses Debian's clang-14, lld, binaryen)
  clang-14 libclang-rt-14-dev        # sanitizer build (ASan + UBSan) and libFuzzer targets
  clang-format-14                    # the C++ sources' style (.clang-format, tools/check_format.sh)
  libglfw3-dev libgl-dev             # the native desktop app
  xvfb xauth                         # running the desktop app headless in tests
  chromium                           # page tests in a real browser
  fonts-dejavu-core                  # a sans-serif for the browser to draw the page's text with (web/browser_fonts.cpp)
  nodejs                             # serving the page, browser tests (npm: playwright-core)
  terser                             # the page's runtime JS, compressed (web/CMakeLists.txt)
  fonts-karla                        # Karla, the desktop app's UI font (the page draws the system sans-serif)
  libstb-dev                         # PNG screenshots of the desktop app (stb_image_write.h)
  python3                            # tools/measure dry-run test (already pulled in by emscripten)
)

say()  { printf '\033[1m[vramcalc %dm%02ds]\033[0m %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
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
# apt-get source needs a deb-src entry; we add one for the same archive the machine already uses (read
# from its own sources file, no host name written here).
ensure_deb_src() {
  apt-get source --print-uris "$1" >/dev/null 2>&1 && return 0
  local SUDO; SUDO="$(need_root)"
  local src_list=/etc/apt/sources.list.d/vramcalc-deb-src.sources uri
  uri="$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
  [ -n "$uri" ] || uri="$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)"
  [ -n "$uri" ] || fail "cannot find the Debian archive URI to add a deb-src entry for $1"
  say "adding a deb-src entry for $uri (for the sources of $1)"
  printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" \
    | $SUDO tee "$src_list" >/dev/null
  $SUDO apt-get update -qq || fail "apt-get update failed after adding deb-src"
}

# Unpacks Debian source package $1's upstream tarball into $2 (unless $2/$3 exists).
fetch_source() {
  local pkg="$1" dest="$2" check="$3"
  [ -f "$dest/$check" ] && return 0
  ensure_deb_src "$pkg"
  say "downloading the sources of $pkg (Debian source package)"
  local tmp; tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get source --download-only "$pkg" >/dev/null 2>&1) || fail "apt-get source $pkg failed"
  local tarball; tarball="$(ls "$tmp"/"$pkg"_*.orig.tar.* 2>/dev/null | head -1)"
  [ -n "$tarball" ] || fail "$pkg source tarball not found after apt-get source"
  rm -rf "$dest" && mkdir -p "$dest"
  tar -xf "$tarball" -C "$dest" --strip-components=1 || fail "cannot unpack $tarball"
  rm -rf "$tmp"
  [ -f "$dest/$check" ] || fail "$check missing from $tarball"
}

# Dear ImGui: libimgui-dev lacks the core .cpp files the wasm build needs, so both builds take the
# sources from Debian's *source* package.
fetch_imgui() {
  [ -f "$DEPS/imgui/backends/imgui_impl_glfw.cpp" ] || rm -f "$DEPS/imgui/imgui.cpp"
  fetch_source imgui "$DEPS/imgui" imgui.cpp
}

# yaml-cpp for the wasm build (the native one links Debian's libyaml-cpp-dev): its sources, compiled by
# core/CMakeLists.txt under emcmake like the rest of the page.
fetch_yaml_cpp() {
  fetch_source yaml-cpp "$DEPS/yaml-cpp" src/parse.cpp
}

# playwright-core drives Debian's Chromium in the page tests (it never downloads a browser).
npm_deps() {
  local dir="$ROOT/tests/browser"
  [ -f "$dir/node_modules/playwright-core/package.json" ] && return 0
  if ! command -v npm >/dev/null; then
    local SUDO; SUDO="$(need_root)"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null || fail "apt-get install npm failed"
  fi
  say "installing playwright-core from the npm registry (tests/browser)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci in tests/browser failed (is the npm registry reachable?)"
}

setup() {
  install_packages
  fetch_imgui
  fetch_yaml_cpp
  npm_deps
}

# Emscripten 3.1.6 from Debian needs Debian's node modules (acorn) on the module path.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

configure_native() {
  # The unit tests are built and run by the sanitizer and wasm builds (run_tests); the native build makes the
  # programs (CLI, desktop app) whose checks run here. VRAMCALC_NATIVE_UNIT_TESTS=ON builds them here too.
  cmake -S "$ROOT" -B "$BUILD_NATIVE" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DVRAMCALC_UNIT_TESTS="${VRAMCALC_NATIVE_UNIT_TESTS:-OFF}" \
    -DVRAMCALC_IMGUI_DIR="$DEPS/imgui" >/dev/null || fail "native configure failed"
}

build_native() {
  say "native build (build/native)"
  configure_native
  cmake --build "$BUILD_NATIVE" -j "$JOBS" || fail "native build failed"
}

# Only the native CLI (`run` serves the page without the rest): the wasm build reads the page's presets with it
# (presets/CMakeLists.txt, VRAMCALC_NATIVE_CLI).
build_native_cli() {
  say "native CLI (build/native): it reads the page's presets for the wasm build"
  configure_native
  cmake --build "$BUILD_NATIVE" -j "$JOBS" --target vramcalc || fail "native CLI build failed"
}

build_wasm() {
  say "wasm build (build/wasm)"
  # No CLI in the wasm build: nothing runs it there (the native CLI is the one tested and shipped), and its
  # link-time-optimised link alone took 30 s of a 2-core CI run.
  emcmake cmake -S "$ROOT" -B "$BUILD_WASM" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVRAMCALC_BUILD_CLI=OFF \
    -DVRAMCALC_NATIVE_CLI="$BUILD_NATIVE/cli/vramcalc" \
    -DVRAMCALC_IMGUI_DIR="$DEPS/imgui" >/dev/null || fail "wasm configure failed"
  cmake --build "$BUILD_WASM" -j "$JOBS" || fail "wasm build failed"
}

# The whole native suite built with clang's ASan + UBSan (build/asan, cmake/sanitizers.cmake), then each
# fuzz target for a few seconds (tools/fuzz.sh; longer runs: bash tools/fuzz.sh 600).
sanitizer_tests() {
  say "sanitizer build (ASan + UBSan) and tests"
  cmake -S "$ROOT" -B "$ROOT/build/asan" -G Ninja -C "$ROOT/cmake/sanitizers.cmake" >/dev/null || return 1
  cmake --build "$ROOT/build/asan" -j "$JOBS" || return 1
  # The docs check compares validate's Markdown with docs/validation.md byte for byte: the native stage does
  # that; the validation code runs under the sanitizers in its own unit tests.
  ASAN_OPTIONS=detect_leaks=1 ctest --test-dir "$ROOT/build/asan" --output-on-failure -j "$JOBS" \
    -E '^docs: validation.md is current$' || return 1
  say "fuzz targets, ${VRAMCALC_FUZZ_SECONDS:-8} s each"
  bash "$ROOT/tools/fuzz.sh" "${VRAMCALC_FUZZ_SECONDS:-8}"
}

run_tests() {
  local rc=0
  say "native checks (the CLI, the desktop app, docs, the C++ style; the unit tests run in the wasm and sanitizer builds)"
  ctest --test-dir "$BUILD_NATIVE" --output-on-failure -j "$JOBS" || rc=1
  bash "$ROOT/tools/check_format.sh" || rc=1
  say "wasm tests (under Node)"
  ctest --test-dir "$BUILD_WASM" --output-on-failure -j "$JOBS" || rc=1
  sanitizer_tests || rc=1
  say "page tests in headless Chromium"
  node "$ROOT/tests/browser/page.test.mjs" --dist "$BUILD_WASM/dist" --cli "$BUILD_NATIVE/cli/vramcalc" \
    --out "$ROOT/build/test-artifacts" || rc=1
  [ $rc -eq 0 ] || fail "some tests failed"
  say "all tests passed"
}

# Figures the issues ask for, measured here: page transfer size (gzip of html + js + wasm), first paint
# (median of 5 loads), idle animation frames/s and main-thread ms/s (Chrome's TaskDuration), the wheel
# step, in-page catalog solve; desktop first frame and idle CPU; native estimator timings. The page's
# screenshots (1400x900, 1280x720, 390x844 at 3x, embed) land in build/report. --screenshots refreshes docs/*.png.
report() {
  say "page (headless Chromium)"
  node "$ROOT/tests/browser/page.test.mjs" --dist "$BUILD_WASM/dist" --cli "$BUILD_NATIVE/cli/vramcalc" \
    --out "$ROOT/build/report" --measure | grep -v '^ok '
  say "desktop app (Xvfb)"
  python3 "$ROOT/tests/desktop_test.py" --app "$BUILD_NATIVE/imgui_app/vramcalc-desktop" --cli "$BUILD_NATIVE/cli/vramcalc" \
    --out "$ROOT/build/report" --measure | grep -v '^ok '
  say "estimator (native)"
  "$BUILD_NATIVE/cli/vramcalc" bench
  say "screenshots: $ROOT/build/report/screenshot-*.png"
  if [ "${1:-}" = "--screenshots" ]; then
    cp "$ROOT/build/report/screenshot-page.png" "$ROOT/build/report/screenshot-embed.png" \
       "$ROOT/build/report/screenshot-desktop.png" "$ROOT/docs/"
    say "screenshots copied to docs/"
  fi
}

cmd="${1:-run}"; shift || true
case "$cmd" in
  setup) setup ;;
  build) setup; build_native; build_wasm ;;
  test)  setup; build_native; build_wasm; run_tests ;;
  report) setup; build_native; build_wasm; report "$@" ;;
  run)
    case "${1:-}" in
      "")
        setup; build_native_cli; build_wasm
        say "serving the page (Ctrl+C stops); the desktop app: bash tools/dev.sh run --desktop"
        exec node "$ROOT/tools/serve.mjs" "$BUILD_WASM/dist" "${VRAMCALC_PORT:-8080}" ;;
      --desktop)
        setup; build_native; shift
        [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || fail "no display: run it on a desktop, or under xvfb-run with --screenshot OUT.png"
        exec "$BUILD_NATIVE/imgui_app/vramcalc-desktop" "$@" ;;
      --cli)
        setup; build_native
        say "default scenario (Llama-3.1-8B, LoRA rank 8, bf16, H100 80GB):"
        "$BUILD_NATIVE/cli/vramcalc" estimate --model llama-3.1-8b --method lora --precision bf16 --gpu h100-80gb ;;
      *) fail "unknown option '$1' (allowed: --desktop, --cli)" ;;
    esac ;;
  *) fail "unknown command '$cmd' (allowed: run, test, report, setup, build)" ;;
esac
