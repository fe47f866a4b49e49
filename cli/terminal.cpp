#include "terminal.hpp"

namespace vramcalc::cli {

bool TerminalSafeBuf::put(unsigned char c) {
    auto emit = [this](unsigned char b) { return out_->sputc(static_cast<char>(b)) != traits_type::eof(); };
    if (pending_c2_) {
        pending_c2_ = false;
        if (c >= 0x80 && c <= 0x9F) return emit('?');  // a C1 control written as UTF-8
        if (!emit(0xC2)) return false;
    }
    if (c == 0xC2) {
        pending_c2_ = true;
        return true;
    }
    const bool control = (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7F;
    return emit(control ? '?' : c);
}

TerminalSafeBuf::int_type TerminalSafeBuf::overflow(int_type ch) {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    return put(static_cast<unsigned char>(traits_type::to_char_type(ch))) ? ch : traits_type::eof();
}

std::streamsize TerminalSafeBuf::xsputn(const char* s, std::streamsize n) {
    for (std::streamsize i = 0; i < n; ++i)
        if (!put(static_cast<unsigned char>(s[i]))) return i;
    return n;
}

int TerminalSafeBuf::sync() {
    if (pending_c2_) {  // a lone 0xC2 at the end: not a C1 control, pass it on
        pending_c2_ = false;
        out_->sputc(static_cast<char>(0xC2));
    }
    return out_->pubsync();
}

}  // namespace vramcalc::cli
