// The page's snprintf and its relatives (musl's are left out of the link, as strtod_web.cpp does for
// strtod): web/print_format.cpp, which writes musl's text for every double without musl's printf_core,
// fmt_fp and the 128-bit long double that its vsnprintf reads each floating argument as. The page's one
// number formatter (core/src/common/format.cpp), its other snprintf calls and Dear ImGui's ImFormatString
// come here. Each musl file defines three entry points (the plain one, clang's integer-only `i` variant and
// Emscripten's `__small_` one): all three are defined here, so that no call pulls musl's file in beside these.
// fprintf too: its only callers in the page are the OpenGL backend's shader and link errors, written to
// stderr, which the page shows in the browser's console (console.error, as Emscripten's stderr does); with
// musl's fprintf the page also carried printf_core and the stdio stream code (2.4 KB gzip with fmt_fp).
#include <emscripten.h>

#include <climits>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "print_format.hpp"

using vramcalc::web::print_format;

// clang-format off
EM_JS(void, vramcalc_js_console_error, (const char* text), { console.error(UTF8ToString(text)); });
// clang-format on

namespace {

// The text of one fprintf, in the console as one line (a trailing newline dropped, as Emscripten's
// line-buffered stderr drops it).
int print_to_console(const char* format, va_list args) {
    char line[256];
    va_list again;
    va_copy(again, args);
    int n = print_format(line, sizeof line, format, args);
    char* text = line;
    if (n >= static_cast<int>(sizeof line)) {  // a long shader log: format it again at full length
        text = static_cast<char*>(std::malloc(static_cast<std::size_t>(n) + 1));
        if (text) n = print_format(text, static_cast<std::size_t>(n) + 1, format, again);
        else text = line;
    }
    va_end(again);
    const int shown = text == line && n >= static_cast<int>(sizeof line) ? static_cast<int>(sizeof line) - 1 : n;
    if (shown > 0 && text[shown - 1] == '\n') text[shown - 1] = '\0';
    if (n >= 0) vramcalc_js_console_error(text);
    if (text != line) std::free(text);
    return n;
}

}  // namespace

extern "C" {

int fprintf(FILE*, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = print_to_console(format, args);
    va_end(args);
    return n;
}
int fiprintf(FILE*, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = print_to_console(format, args);
    va_end(args);
    return n;
}
int __small_fprintf(FILE*, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = print_to_console(format, args);
    va_end(args);
    return n;
}

int vsnprintf(char* out, std::size_t size, const char* format, va_list args) { return print_format(out, size, format, args); }
int vsniprintf(char* out, std::size_t size, const char* format, va_list args) { return print_format(out, size, format, args); }
int __small_vsnprintf(char* out, std::size_t size, const char* format, va_list args) { return print_format(out, size, format, args); }

int vsprintf(char* out, const char* format, va_list args) { return print_format(out, INT_MAX, format, args); }
int vsiprintf(char* out, const char* format, va_list args) { return print_format(out, INT_MAX, format, args); }
int __small_vsprintf(char* out, const char* format, va_list args) { return print_format(out, INT_MAX, format, args); }

int snprintf(char* out, std::size_t size, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = print_format(out, size, format, args);
    va_end(args);
    return n;
}

int sprintf(char* out, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = print_format(out, INT_MAX, format, args);
    va_end(args);
    return n;
}
int siprintf(char* out, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = print_format(out, INT_MAX, format, args);
    va_end(args);
    return n;
}
int __small_sprintf(char* out, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = print_format(out, INT_MAX, format, args);
    va_end(args);
    return n;
}

}  // extern "C"
