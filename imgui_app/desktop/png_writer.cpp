// The PNG is written by stb_image_write (Debian's libstb-dev: /usr/include/stb/stb_image_write.h, the
// implementation compiled here), which picks each row's filter and deflates with its own zlib.
#include "png_writer.hpp"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace vramcalc::desktop {

bool write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba) {
    std::vector<unsigned char> rgb;  // the framebuffer's alpha is no part of the screenshot
    rgb.reserve(rgba.size() / 4 * 3);
    for (std::size_t i = 0; i + 3 < rgba.size(); i += 4) rgb.insert(rgb.end(), &rgba[i], &rgba[i] + 3);
    stbi_flip_vertically_on_write(1);  // GL rows are bottom-up
    stbi_write_png_compression_level = 9;
    return stbi_write_png(path.c_str(), width, height, 3, rgb.data(), width * 3) != 0;
}

}  // namespace vramcalc::desktop
