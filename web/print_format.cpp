// The page's printf formatter: see print_format.hpp. The field layout (which flag pads with what, where the
// sign goes, when '#' and precision matter) follows C17 7.21.6.1 as musl's printf_core and fmt_fp implement
// it (musl 1.2.2, src/stdio/vfprintf.c, the copy Emscripten 3.1.6 ships); the digits are exact (ExactDecimal).
#include "print_format.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace vramcalc::web {
namespace {

enum Flag : unsigned { kLeft = 1,
                       kPlus = 2,
                       kSpace = 4,
                       kAlt = 8,
                       kZero = 16 };
enum class Length { none,
                    hh,
                    h,
                    l,
                    ll,
                    j,
                    z,
                    t };

struct Spec {
    unsigned flags = 0;
    int width = 0;
    int precision = -1;  // none given
    Length length = Length::none;
    char conversion = 0;
};

// Where the text goes: the caller's buffer up to its size, and the count of every byte the text has.
struct Sink {
    char* out;
    std::size_t size;
    std::size_t length = 0;
    void put(char c) {
        if (length + 1 < size) out[length] = c;
        ++length;
    }
    void put(const char* s, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) put(s[i]);
    }
    void repeat(char c, int n) {
        for (; n > 0; --n) put(c);
    }
};

// The spaces or zeros before a field's body and its prefix (sign, "0x"): `body` counts the body's bytes.
// Zeros go between the prefix and the body; a left-adjusted field pads after it (close_field).
void open_field(Sink& s, const Spec& f, const char* prefix, int body) {
    const int n = static_cast<int>(std::strlen(prefix)) + body;
    if (!(f.flags & (kLeft | kZero))) s.repeat(' ', f.width - n);
    s.put(prefix, std::strlen(prefix));
    if (f.flags & kZero) s.repeat('0', f.width - n);
}
void close_field(Sink& s, const Spec& f, int n) {
    if (f.flags & kLeft) s.repeat(' ', f.width - n);
}

// ---- integers ----

int digits_of(std::uint64_t v, unsigned base, bool upper, char* end) {
    const char* const set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char* p = end;
    for (; v; v /= base) *--p = set[v % base];
    return static_cast<int>(end - p);
}

void format_integer(Sink& s, Spec f, std::uint64_t v, bool negative) {
    char buf[24];
    char* const end = buf + sizeof buf;
    const char c = f.conversion;
    const unsigned base = c == 'o' ? 8 : (c == 'x' || c == 'X') ? 16
                                                                : 10;
    int n = digits_of(v, base, c == 'X', end);
    const char* prefix = "";
    if (c == 'd' || c == 'i') prefix = negative ? "-" : (f.flags & kPlus) ? "+"
                                                    : (f.flags & kSpace)  ? " "
                                                                          : "";
    if (base == 16 && v && (f.flags & kAlt)) prefix = c == 'X' ? "0X" : "0x";
    int precision = f.precision;
    if (base == 8 && (f.flags & kAlt) && precision < n + 1) precision = n + 1;  // a leading 0
    if (f.precision >= 0) f.flags &= ~kZero;
    if (v || precision != 0) precision = precision > n + !v ? precision : n + !v;  // "%.0d" of 0: no digit
    const int body = precision;
    open_field(s, f, prefix, body);
    s.repeat('0', precision - n);
    s.put(end - n, static_cast<std::size_t>(n));
    close_field(s, f, static_cast<int>(std::strlen(prefix)) + body);
}

// ---- floating point ----

// A finite double's exact decimal expansion: digits d[0..n) with no trailing zero, the point after `point`
// of them (point <= 0: zeros first). A double is m x 2^e; for e >= 0 that is an integer, for e < 0 it is
// m x 5^-e / 10^-e. Both are built in base-10^9 limbs (at most 767 digits, for the smallest subnormal).
struct ExactDecimal {
    char d[800];
    int n = 0;
    int point = 1;

    explicit ExactDecimal(double x) {
        std::uint64_t bits;
        std::memcpy(&bits, &x, sizeof bits);
        const int biased = static_cast<int>(bits >> 52 & 0x7ff);
        std::uint64_t m = bits & ((std::uint64_t{1} << 52) - 1);
        int e = biased ? biased - 1075 : -1074;
        if (biased) m |= std::uint64_t{1} << 52;
        if (!m) return;  // zero
        for (; !(m & 1); m >>= 1) ++e;
        std::uint32_t limb[96] = {static_cast<std::uint32_t>(m % kBase), static_cast<std::uint32_t>(m / kBase)};
        int limbs = limb[1] ? 2 : 1;
        for (int k = e; k > 0; k -= 29) multiply(limb, limbs, std::uint32_t{1} << (k < 29 ? k : 29));
        for (int k = -e; k > 0; k -= 13) multiply(limb, limbs, power_of_five(k < 13 ? k : 13));
        write_digits(limb, limbs);
        point = n - (e < 0 ? -e : 0);
        while (n > 0 && d[n - 1] == '0') --n;
    }

    char digit(int i) const { return i >= 0 && i < n ? d[i] : '0'; }

    // Keeps the first `keep` digits, rounding half to even on the exact value (what the default rounding
    // mode makes of musl's and glibc's conversions).
    void round_to(int keep) {
        if (keep >= n) return;
        const bool up = keep >= 0 && (d[keep] > '5' || (d[keep] == '5' && (n > keep + 1 || (keep > 0 && (d[keep - 1] - '0') % 2))));
        n = keep < 0 ? 0 : keep;
        if (up) {
            while (n > 0 && d[n - 1] == '9') --n;
            if (n == 0) {  // 9.99 -> 10.0
                d[0] = '1';
                n = 1;
                ++point;
                return;
            }
            ++d[n - 1];
        }
        while (n > 0 && d[n - 1] == '0') --n;
        if (n == 0) point = 1;
    }

private:
    static constexpr std::uint32_t kBase = 1000000000;
    static std::uint32_t power_of_five(int k) {
        std::uint32_t p = 1;
        while (k--) p *= 5;
        return p;
    }
    static void multiply(std::uint32_t* limb, int& limbs, std::uint32_t k) {
        std::uint64_t carry = 0;
        for (int i = 0; i < limbs; ++i) {
            const std::uint64_t t = std::uint64_t{limb[i]} * k + carry;
            limb[i] = static_cast<std::uint32_t>(t % kBase);
            carry = t / kBase;
        }
        for (; carry; carry /= kBase) limb[limbs++] = static_cast<std::uint32_t>(carry % kBase);
    }
    void write_digits(const std::uint32_t* limb, int limbs) {
        char top[10];
        const int t = digits_of(limb[limbs - 1], 10, false, top + sizeof top);
        std::memcpy(d, top + sizeof top - t, static_cast<std::size_t>(t));
        n = t;
        for (int i = limbs - 2; i >= 0; --i, n += 9) {
            std::uint32_t v = limb[i];
            for (int j = 8; j >= 0; --j, v /= 10) d[n + j] = static_cast<char>('0' + v % 10);
        }
    }
};

// The body of %f (fraction digits after the point) or of %e (exponent form) and its length.
int fixed_length(const ExactDecimal& x, int fraction, bool alt) {
    return (x.point > 0 ? x.point : 1) + (fraction || alt ? 1 + fraction : 0);
}
void put_fixed(Sink& s, const ExactDecimal& x, int fraction, bool alt) {
    if (x.point <= 0) s.put('0');
    for (int i = 0; i < x.point; ++i) s.put(x.digit(i));
    if (fraction || alt) s.put('.');
    for (int j = 0; j < fraction; ++j) s.put(x.digit(x.point + j));
}
int exponent_of(const ExactDecimal& x) { return x.n ? x.point - 1 : 0; }
int exponent_length(int e) {
    int digits = 0;
    for (int v = e < 0 ? -e : e; v; v /= 10) ++digits;
    return 2 + (digits < 2 ? 2 : digits);
}
void put_exponent_form(Sink& s, const ExactDecimal& x, int fraction, bool alt, bool upper) {
    s.put(x.digit(0));
    if (fraction || alt) s.put('.');
    for (int j = 1; j <= fraction; ++j) s.put(x.digit(j));
    const int e = exponent_of(x);
    s.put(upper ? 'E' : 'e');
    s.put(e < 0 ? '-' : '+');
    char buf[8];
    int n = digits_of(static_cast<std::uint64_t>(e < 0 ? -e : e), 10, false, buf + sizeof buf);
    if (n < 2) s.repeat('0', 2 - n);
    s.put(buf + sizeof buf - n, static_cast<std::size_t>(n));
}

void format_double(Sink& s, Spec f, double v) {
    const bool negative = std::signbit(v);
    const char* const prefix = negative ? "-" : (f.flags & kPlus) ? "+"
                                            : (f.flags & kSpace)  ? " "
                                                                  : "";
    const int pl = static_cast<int>(std::strlen(prefix));
    const char c = f.conversion;
    const bool upper = c == 'F' || c == 'E' || c == 'G', alt = (f.flags & kAlt) != 0;
    if (v != v || v - v != 0) {  // nan, inf: no zero padding
        f.flags &= ~kZero;
        open_field(s, f, prefix, 3);
        s.put(v != v ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"), 3);
        close_field(s, f, pl + 3);
        return;
    }
    ExactDecimal x(negative ? -v : v);
    int p = f.precision < 0 ? 6 : f.precision;
    bool exponent_form = c == 'e' || c == 'E';
    if (c == 'g' || c == 'G') {
        if (p == 0) p = 1;
        x.round_to(p);  // p significant digits decide the form
        const int e = exponent_of(x);
        exponent_form = !(p > e && e >= -4);
        p = exponent_form ? p - 1 : p - 1 - e;
        if (!alt) {  // no trailing zeros (x has none)
            const int kept = exponent_form ? x.n - 1 : x.n - x.point;
            p = p < kept ? p : (kept > 0 ? kept : 0);
        }
    } else {
        x.round_to(exponent_form ? p + 1 : x.point + p);
    }
    const int body = exponent_form ? 1 + (p || alt ? 1 + p : 0) + exponent_length(exponent_of(x)) : fixed_length(x, p, alt);
    open_field(s, f, prefix, body);
    if (exponent_form) put_exponent_form(s, x, p, alt, upper);
    else put_fixed(s, x, p, alt);
    close_field(s, f, pl + body);
}

// ---- the format string ----

// Reads flags, width, precision and length at `p` (after the '%'); returns the position after them.
const char* read_spec(const char* p, Spec& f, std::va_list* ap) {
    for (;; ++p) {
        if (*p == '-') f.flags |= kLeft;
        else if (*p == '+') f.flags |= kPlus;
        else if (*p == ' ') f.flags |= kSpace;
        else if (*p == '#') f.flags |= kAlt;
        else if (*p == '0') f.flags |= kZero;
        else break;
    }
    if (*p == '*') {
        f.width = va_arg(*ap, int);
        if (f.width < 0) f.flags |= kLeft, f.width = -f.width;
        ++p;
    }
    for (; *p >= '0' && *p <= '9'; ++p) f.width = f.width * 10 + (*p - '0');
    if (*p == '.') {
        f.precision = 0;
        if (*++p == '*') {
            f.precision = va_arg(*ap, int);
            if (f.precision < 0) f.precision = -1;  // as if none was given
            ++p;
        }
        for (; *p >= '0' && *p <= '9'; ++p) f.precision = f.precision * 10 + (*p - '0');
    }
    if (f.flags & kLeft) f.flags &= ~kZero;
    if (p[0] == 'h' || p[0] == 'l') {  // h, hh, l, ll
        const bool twice = p[1] == p[0];
        f.length = p[0] == 'h' ? (twice ? Length::hh : Length::h) : (twice ? Length::ll : Length::l);
        p += twice ? 2 : 1;
    } else if (p[0] == 'j' || p[0] == 'z' || p[0] == 't') {
        f.length = p[0] == 'j' ? Length::j : p[0] == 'z' ? Length::z
                                                         : Length::t;
        ++p;
    }
    f.conversion = *p;
    return *p ? p + 1 : p;
}

std::int64_t signed_argument(Length length, std::va_list* ap) {
    switch (length) {
        case Length::hh:
            return static_cast<signed char>(va_arg(*ap, int));
        case Length::h:
            return static_cast<short>(va_arg(*ap, int));
        case Length::l:
            return va_arg(*ap, long);
        case Length::ll:
            return va_arg(*ap, long long);
        case Length::j:
            return va_arg(*ap, std::intmax_t);
        case Length::z:
        case Length::t:
            return va_arg(*ap, std::ptrdiff_t);
        default:
            return va_arg(*ap, int);
    }
}
std::uint64_t unsigned_argument(Length length, std::va_list* ap) {
    switch (length) {
        case Length::hh:
            return static_cast<unsigned char>(va_arg(*ap, unsigned));
        case Length::h:
            return static_cast<unsigned short>(va_arg(*ap, unsigned));
        case Length::l:
            return va_arg(*ap, unsigned long);
        case Length::ll:
            return va_arg(*ap, unsigned long long);
        case Length::j:
            return va_arg(*ap, std::uintmax_t);
        case Length::z:
        case Length::t:
            return va_arg(*ap, std::size_t);
        default:
            return va_arg(*ap, unsigned);
    }
}

// One conversion; false for one this formatter does not handle.
bool convert(Sink& s, Spec f, std::va_list* ap) {
    switch (f.conversion) {
        case 'd':
        case 'i': {
            const std::int64_t v = signed_argument(f.length, ap);
            format_integer(s, f, v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v), v < 0);
            return true;
        }
        case 'u':
        case 'o':
        case 'x':
        case 'X':
            format_integer(s, f, unsigned_argument(f.length, ap), false);
            return true;
        case 'p':
            // As the page's libc (Emscripten 3.1.6's musl) writes it, which the wasm unit test compares: %#x, no
            // minimum of 2 x sizeof(void*) digits (0 -> "0", 0x1234 -> "0x1234").
            f.conversion = 'x', f.flags |= kAlt;
            format_integer(s, f, reinterpret_cast<std::uintptr_t>(va_arg(*ap, void*)), false);
            return true;
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
            format_double(s, f, va_arg(*ap, double));
            return true;
        case 'c': {
            const char ch = static_cast<char>(va_arg(*ap, int));
            open_field(s, f, "", 1);  // read_spec's caller clears '0' for c and s
            s.put(ch);
            close_field(s, f, 1);
            return true;
        }
        case 's': {
            const char* text = va_arg(*ap, const char*);
            if (!text) text = "(null)";
            std::size_t n = 0;
            while ((f.precision < 0 || n < static_cast<std::size_t>(f.precision)) && text[n]) ++n;
            open_field(s, f, "", static_cast<int>(n));
            s.put(text, n);
            close_field(s, f, static_cast<int>(n));
            return true;
        }
        default:
            return false;
    }
}

}  // namespace

int print_format(char* out, std::size_t size, const char* format, std::va_list args) {
    Sink s{out, size};
    std::va_list ap;
    va_copy(ap, args);
    bool ok = true;
    for (const char* p = format; *p && ok;) {
        if (*p != '%') {
            s.put(*p++);
        } else if (p[1] == '%') {
            s.put('%');
            p += 2;
        } else {
            Spec f;
            p = read_spec(p + 1, f, &ap);
            if (f.conversion == 'c' || f.conversion == 's') f.flags &= ~kZero;
            ok = convert(s, f, &ap);
        }
    }
    va_end(ap);
    if (size) out[s.length < size ? s.length : size - 1] = '\0';
    return ok && s.length <= 0x7fffffff ? static_cast<int>(s.length) : -1;
}

}  // namespace vramcalc::web
