// PNG layout per the PNG specification (W3C, 2nd edition): signature, IHDR, one zlib IDAT, IEND;
// each row prefixed with filter type 0 (none) — or 2 (up) which compresses UI screenshots far better.
#include "png_writer.hpp"

#include <cstdint>
#include <cstdio>

#include <zlib.h>

namespace vramcalc::desktop {
namespace {

void put32(std::vector<unsigned char>& v, std::uint32_t x) {
    for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<unsigned char>(x >> s));
}

void chunk(std::FILE* f, const char* type, const std::vector<unsigned char>& data) {
    std::vector<unsigned char> buf;
    put32(buf, static_cast<std::uint32_t>(data.size()));
    buf.insert(buf.end(), type, type + 4);
    buf.insert(buf.end(), data.begin(), data.end());
    const uLong crc = crc32(crc32(0L, Z_NULL, 0), buf.data() + 4, static_cast<uInt>(buf.size() - 4));
    put32(buf, static_cast<std::uint32_t>(crc));
    std::fwrite(buf.data(), 1, buf.size(), f);
}

}  // namespace

bool write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba) {
    const std::size_t stride = static_cast<std::size_t>(width) * 3;
    std::vector<unsigned char> raw;
    raw.reserve((stride + 1) * static_cast<std::size_t>(height));
    std::vector<unsigned char> prev(stride, 0), row(stride);
    for (int y = 0; y < height; ++y) {
        const unsigned char* src = rgba.data() + static_cast<std::size_t>(height - 1 - y) * width * 4;  // GL rows are bottom-up
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c) row[static_cast<std::size_t>(x) * 3 + c] = src[x * 4 + c];
        raw.push_back(2);  // filter "up"
        for (std::size_t i = 0; i < stride; ++i) raw.push_back(static_cast<unsigned char>(row[i] - prev[i]));
        prev.swap(row);
    }
    uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
    std::vector<unsigned char> packed(packed_size);
    if (compress2(packed.data(), &packed_size, raw.data(), static_cast<uLong>(raw.size()), 9) != Z_OK) return false;
    packed.resize(packed_size);

    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    std::fwrite(sig, 1, 8, f);
    std::vector<unsigned char> ihdr;
    put32(ihdr, static_cast<std::uint32_t>(width));
    put32(ihdr, static_cast<std::uint32_t>(height));
    ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8-bit RGB, deflate, adaptive filtering, no interlace
    chunk(f, "IHDR", ihdr);
    chunk(f, "IDAT", packed);
    chunk(f, "IEND", {});
    return std::fclose(f) == 0;
}

}  // namespace vramcalc::desktop
