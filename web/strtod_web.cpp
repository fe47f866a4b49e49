// The page's strtod (musl's is left out of the link): the decimal number at the start of the text, read
// by JavaScript's Number(), which rounds correctly as musl's strtod does. musl scans in 128-bit long
// double: __floatscan and the soft-float routines it needs, with the sscanf that ImGui and its OpenGL
// backend called (replaced in imgui_app/CMakeLists.txt), were 8.8 KB gzip of the page. What the page
// reads with strtod is decimal text only: numbers in JSON (nlohmann's lexer hands over the text it has
// already checked) and in number fields (ImGui's filters let through digits, the sign, '.', 'e' and the
// operators + * /), so hexadecimal floats, "inf" and "nan", which musl would also take, never reach it.
#include <emscripten.h>

// clang-format off
EM_JS(double, vramcalc_js_number, (const char* text, int length), { return Number(UTF8ToString(text, length)); });
// clang-format on

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
const char* skip_digits(const char* p) {
    while (is_digit(*p)) ++p;
    return p;
}
}  // namespace

extern "C" double strtod(const char* text, char** end) {
    const char* p = text;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r')) ++p;  // isspace() in the C locale
    const char* const start = p;
    if (*p == '+' || *p == '-') ++p;
    const char* const whole = p;
    p = skip_digits(p);
    bool digits = p > whole;
    if (*p == '.') {
        const char* const fraction = p + 1;
        p = skip_digits(fraction);
        digits = digits || p > fraction;
    }
    if (!digits) {  // no number: nothing read
        if (end) *end = const_cast<char*>(text);
        return 0.0;
    }
    if (*p == 'e' || *p == 'E') {  // an exponent only where digits follow, as strtod reads it
        const char* e = p + 1;
        if (*e == '+' || *e == '-') ++e;
        if (is_digit(*e)) p = skip_digits(e);
    }
    if (end) *end = const_cast<char*>(p);
    return vramcalc_js_number(start, static_cast<int>(p - start));
}

// libc++'s string.o (std::to_string, which the page uses) also refers to strtof and strtold for
// std::stof/std::stold, which the page never calls; defined here, they keep musl's strtod.o (which
// defines all three) out of the link.
extern "C" float strtof(const char* text, char** end) { return static_cast<float>(strtod(text, end)); }
extern "C" long double strtold(const char* text, char** end) { return strtod(text, end); }
