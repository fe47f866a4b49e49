// What the CLI writes reaches a terminal: a model name, a file name or a config key taken from the input
// may hold escape sequences (ESC [ ... moves the cursor, rewrites the title, hides text). TerminalSafe
// filters a stream for as long as it lives: C0 control bytes other than newline, tab and carriage return,
// DEL, and the C1 controls U+0080-U+009F (UTF-8 C2 80 - C2 9F, which some terminals act on) become '?'.
// JSON output is unchanged by it: nlohmann escapes control characters below 0x20 itself.
#pragma once

#include <ostream>
#include <streambuf>

namespace vramcalc::cli {

class TerminalSafeBuf : public std::streambuf {
public:
    explicit TerminalSafeBuf(std::streambuf* out) : out_(out) {}

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    bool put(unsigned char c);
    std::streambuf* out_;
    bool pending_c2_ = false;  // a UTF-8 lead byte 0xC2 waiting for the next byte
};

class TerminalSafe {
public:
    explicit TerminalSafe(std::ostream& os) : os_(os), buf_(os.rdbuf()), old_(os.rdbuf(&buf_)) {}
    ~TerminalSafe() {
        os_.flush();
        os_.rdbuf(old_);
    }
    TerminalSafe(const TerminalSafe&) = delete;
    TerminalSafe& operator=(const TerminalSafe&) = delete;

private:
    std::ostream& os_;
    TerminalSafeBuf buf_;
    std::streambuf* old_;
};

}  // namespace vramcalc::cli
