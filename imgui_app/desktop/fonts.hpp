// The desktop app's fonts: Karla cut down to the UI's characters, embedded at build time
// (imgui_app/CMakeLists.txt, cmake/embed_font.cmake), or ImGui's own when none was embedded.
#pragma once

namespace vramcalc::desktop {

void add_fonts(float scale);  // body and heading sizes (vramcalc_ui/app.hpp) times the UI scale

}  // namespace vramcalc::desktop
