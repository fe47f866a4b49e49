// A PNG file from RGBA pixels (for --screenshot). Returns false on I/O error.
#pragma once

#include <string>
#include <vector>

namespace vramcalc::desktop {

bool write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba_bottom_up);

}  // namespace vramcalc::desktop
