// The page's fonts, drawn by the browser: its canvas 2D text rasterises the UI's characters in the
// system's sans-serif font (shell/page.js rasterGlyphs) and this file turns the result into Dear ImGui's
// font atlas. The desktop app rasterises the bundled Karla with ImGui's stb_truetype instead; leaving
// stb_truetype and the font file out of the page saves about 17 KB of its gzip transfer (docs/architecture.md).
#include "browser_fonts.hpp"

#include <vector>

#include <emscripten/emscripten.h>
#define IMGUI_DEFINE_MATH_OPERATORS
#include <imgui.h>
#include <imgui_internal.h>  // ImFontAtlasBuildInit / Finish / SetupFont

#include "vramcalc_ui/app.hpp"

// sizes: n font sizes in pixels; codes: m code points. Writes per size {ascent, descent, pixel size drawn}
// to `metrics` and per (size, code point) {x, y, w, h, left, top, advance} to `glyphs`, and returns a
// malloc'ed width x height alpha bitmap (the caller owns it).
EM_JS(unsigned char*, js_raster_glyphs, (const float* sizes, int n, const int* codes, int m, float* metrics, float* glyphs, int* width, int* height), {
    var r = vramcalcPage.rasterGlyphs(Array.from(HEAPF32.subarray(sizes >> 2, (sizes >> 2) + n)),
                                      Array.from(HEAP32.subarray(codes >> 2, (codes >> 2) + m)));
    HEAPF32.set(r.metrics, metrics >> 2);
    HEAPF32.set(r.glyphs, glyphs >> 2);
    HEAP32[width >> 2] = r.width;
    HEAP32[height >> 2] = r.height;
    var p = _malloc(r.alpha.length);
    HEAPU8.set(r.alpha, p);
    return p;
});

namespace vramcalc::web {
namespace {

// The characters the UI's text uses: printable ASCII and ° ± ² µ · × é (imgui_app/fonts/README.md), plus
// the ellipsis ImGui draws for clipped text.
std::vector<int> ui_code_points() {
    std::vector<int> cps;
    for (int c = 0x20; c < 0x7F; ++c) cps.push_back(c);
    for (int c : {0xA0, 0xB0, 0xB1, 0xB2, 0xB5, 0xB7, 0xD7, 0xE9, 0x2026}) cps.push_back(c);
    return cps;
}

constexpr int kGlyphFields = 7;   // x, y, w, h, left, top, advance
constexpr int kMetricFields = 3;  // ascent, descent, pixel size

bool build(ImFontAtlas* atlas) {
    const std::vector<int> cps = ui_code_points();
    const int n = atlas->ConfigData.Size;
    std::vector<float> sizes(n), metrics(n * kMetricFields), glyphs(static_cast<std::size_t>(n) * cps.size() * kGlyphFields);
    for (int i = 0; i < n; ++i) sizes[i] = atlas->ConfigData[i].SizePixels;
    int w = 0, h = 0;
    unsigned char* alpha = js_raster_glyphs(sizes.data(), n, cps.data(), static_cast<int>(cps.size()), metrics.data(), glyphs.data(), &w, &h);
    if (!alpha || w <= 0 || h <= 0) return false;

    ImFontAtlasBuildInit(atlas);  // registers the white pixel's 2x2 rect (NoMouseCursors, NoBakedLines)
    atlas->TexWidth = w;
    atlas->TexHeight = h;
    atlas->TexUvScale = ImVec2(1.0f / static_cast<float>(w), 1.0f / static_cast<float>(h));
    atlas->TexPixelsAlpha8 = alpha;       // freed by ImGui (IM_FREE is free() here)
    for (auto& r : atlas->CustomRects) {  // page.js leaves the top-left 4x4 pixels empty for them
        r.X = 0;
        r.Y = 0;
    }
    for (int i = 0; i < n; ++i) {
        ImFontConfig& cfg = atlas->ConfigData[i];
        // The layout keeps the line height (FontSize) of the desktop's Karla; the glyphs sit on a baseline
        // that centres the browser font's ascent + descent in that line.
        const float ascent = metrics[i * kMetricFields], descent = metrics[i * kMetricFields + 1];
        const float baseline = ImFloor((cfg.SizePixels - (ascent + descent)) * 0.5f + ascent + 0.5f);
        ImFontAtlasBuildSetupFont(atlas, cfg.DstFont, &cfg, baseline, baseline - cfg.SizePixels);
        for (std::size_t k = 0; k < cps.size(); ++k) {
            const float* g = &glyphs[(i * cps.size() + k) * kGlyphFields];
            const float x0 = -g[4], y0 = baseline - g[5];
            const ImVec2 uv0 = ImVec2(g[0], g[1]) * atlas->TexUvScale, uv1 = ImVec2(g[0] + g[2], g[1] + g[3]) * atlas->TexUvScale;
            cfg.DstFont->AddGlyph(&cfg, static_cast<ImWchar>(cps[k]), x0, y0, x0 + g[2], y0 + g[3], uv0.x, uv0.y, uv1.x, uv1.y, g[6]);
        }
    }
    ImFontAtlasBuildFinish(atlas);
    return true;
}

const ImFontBuilderIO kBrowserBuilder = {build};

// ImFontAtlas::AddFont wants font bytes; the browser's builder reads none.
const unsigned char kNoFontData[1] = {0};

}  // namespace

void add_browser_fonts(float scale) {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    atlas->Clear();
    atlas->Flags |= ImFontAtlasFlags_NoMouseCursors | ImFontAtlasFlags_NoBakedLines;
    atlas->FontBuilderIO = &kBrowserBuilder;
    for (float px : {ui::kBodyFontPx, ui::kHeadingFontPx}) {
        ImFontConfig cfg;
        cfg.FontData = const_cast<unsigned char*>(kNoFontData);
        cfg.FontDataSize = 1;
        cfg.FontDataOwnedByAtlas = false;
        cfg.SizePixels = px * scale;
        atlas->AddFont(&cfg);
    }
}

}  // namespace vramcalc::web
