#include "fonts.hpp"

#include <imgui.h>

#include "vramcalc_ui/app.hpp"

namespace vramcalc::ui {
// The generated ui_font.cpp: the font's bytes, or a size of 0 when VRAMCALC_UI_FONT was empty.
extern const unsigned char kUiFontData[];
extern const unsigned int kUiFontSize;
}  // namespace vramcalc::ui

namespace vramcalc::desktop {

void add_fonts(float scale) {
    using namespace vramcalc::ui;
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    if (kUiFontSize > 0) {
        ImFontConfig cfg;
        cfg.FontDataOwnedByAtlas = false;  // the data is a static array
        void* data = const_cast<unsigned char*>(kUiFontData);
        io.Fonts->AddFontFromMemoryTTF(data, static_cast<int>(kUiFontSize), kBodyFontPx * scale, &cfg);
        io.Fonts->AddFontFromMemoryTTF(data, static_cast<int>(kUiFontSize), kHeadingFontPx * scale, &cfg);
        return;
    }
    ImFontConfig def;  // ImGui's ProggyClean is a 13 px bitmap font: its own sizes
    def.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&def);
    def.SizePixels = 20.0f * scale;
    io.Fonts->AddFontDefault(&def);
}

}  // namespace vramcalc::desktop
