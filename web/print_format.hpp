// The page's printf formatter (web/printf_web.cpp makes it the page's snprintf and vsnprintf).
//
// Emscripten's musl formats with printf_core + fmt_fp, and vsnprintf reads each floating argument of a
// va_list as a 128-bit long double (wasm has it only in software). This one formats a double exactly, as
// musl and glibc do: the binary value's full decimal expansion (a double is m x 2^e, so that is m x 5^-e
// digits with the point moved), rounded half to even at the digit asked for. So its text is byte for byte
// musl's for every double; tests/unit-print-format.cpp compares it with the C library's on random values.
//
// Handled: flags - + space # 0, width and precision (also as *), length modifiers hh h l ll j z t, and the
// conversions d i u o x X c s p % f F e E g G. Not handled (the call returns -1, as musl does for a bad
// conversion): positional arguments (%1$d), long double (L), hexadecimal floats (%a) and %n; nothing in the
// page, or in Dear ImGui 1.86, formats with them.
#pragma once

#include <cstdarg>
#include <cstddef>

namespace vramcalc::web {

// vsnprintf's contract: writes at most `size` bytes including the terminating NUL (none when size is 0),
// and returns the length the whole text has, or -1 for a format it does not handle.
int print_format(char* out, std::size_t size, const char* format, std::va_list args);

}  // namespace vramcalc::web
