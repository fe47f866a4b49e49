#!/usr/bin/env bash
# The C++ sources against the repository's .clang-format: clang-format-14 (Debian's clang-format-14)
# in --dry-run --Werror mode prints every place a reformat would change and exits non-zero if there is one.
#   bash tools/check_format.sh [FILE...]   default: every tracked *.cpp *.hpp *.h under core/ cli/
#                                          imgui_app/ web/ tests/ tools/ (the fuzz targets are in tests/fuzz/)
# To reformat instead: the same file list through `clang-format-14 -i`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CLANG_FORMAT="${CLANG_FORMAT:-clang-format-14}"
command -v "$CLANG_FORMAT" >/dev/null || { echo "check_format: $CLANG_FORMAT not found (apt-get install clang-format-14)" >&2; exit 2; }
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- core cli imgui_app web tests tools | grep -E '\.(cpp|hpp|h)$')
fi
"$CLANG_FORMAT" --dry-run --Werror "${files[@]}"
echo "check_format: ${#files[@]} files match .clang-format"
