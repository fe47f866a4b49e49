// The page's fonts, rasterised by the browser (browser_fonts.cpp).
#pragma once

namespace vramcalc::web {

// Replaces ImGui's fonts by the UI's body and heading fonts at `scale` device pixels per CSS pixel,
// built (on the backend's first texture upload) from glyphs the browser draws.
void add_browser_fonts(float scale);

}  // namespace vramcalc::web
