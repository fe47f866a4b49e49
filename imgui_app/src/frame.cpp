// draw_frame(): the page, top to bottom (or two columns when wide), and its look.
#include <algorithm>

#include <imgui_internal.h>

#include "ui.hpp"

namespace vramcalc::ui {

namespace {

bool Section(const char* title) { return ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen); }

void Inputs(AppState& st) {
    if (Section("Model")) GuiModel(st);
    if (Section("Workload")) GuiWorkload(st);
    if (Section("Hardware")) GuiHardware(st);
    if (ImGui::CollapsingHeader("Scenario JSON (every key)")) GuiScenarioJson(st);
}

// The bill and what follows from it; the verdict leads unless the caller already drew it.
void Answers(AppState& st, bool with_verdict = true) {
    if (with_verdict) GuiVerdict(st);
    if (!st.results.ok) return;
    if (Section("Memory bill per GPU")) GuiBill(st);
    if (Section("Largest batch and context")) GuiFit(st);
    if (!st.results.serving.empty() && Section("Serving: context x concurrency")) GuiServing(st);
    if (Section("Memory curves and the training step")) GuiCharts(st);
    if (Section("What to change")) GuiAdvisor(st);
}

void Page(AppState& st) {
    const float fs = ImGui::GetFontSize();
    GuiHeader(st);
    ImGui::Separator();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (!st.narrow && avail.x > fs * 62) {
        const float footer = ImGui::GetFrameHeightWithSpacing() * 2.2f;
        const float left = std::min(fs * 28, avail.x * 0.4f);
        ImGui::BeginChild("inputs", ImVec2(left, avail.y - footer), false);
        Inputs(st);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("answers", ImVec2(0, avail.y - footer), false);
        Answers(st);
        ImGui::EndChild();
        GuiFooter(st);
    } else {
        // Narrow windows and phones: one column, the answer first, then the question, then the details;
        // the footer scrolls with the rest (it wraps, so its height is not known beforehand).
        ImGui::BeginChild("all", ImVec2(0, avail.y), false);
        GuiVerdict(st);
        Inputs(st);
        Answers(st, false);
        GuiFooter(st);
        ImGui::EndChild();
    }
}

// ?embed=1: what a docs page needs. The verdict, its bar and a compact bill first, the controls last, in
// a region that scrolls (the host page scrolls once it is at an end); the way to the full calculator is
// always on screen below it. The content's height is reported so that the host can size the frame.
void Embedded(AppState& st) {
    const float link_row = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y;
    const float top = ImGui::GetCursorPosY();
    ImGui::BeginChild("embed", ImVec2(0, ImGui::GetContentRegionAvail().y - link_row), false);
    GuiVerdict(st);
    if (st.results.ok) GuiBill(st);
    ImGui::Spacing();
    GuiHardware(st);
    const float inner = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
    ImGui::EndChild();
    ImGui::Separator();
    if (ImGui::Button("Open the full calculator")) st.platform->open_url(st.platform->share_link(encode_state(st)));
    ImGui::SameLine();
    ImGui::TextDisabled("vramcalc; GiB = 2^30 bytes");
    st.content_height = top + inner + link_row + ImGui::GetStyle().WindowPadding.y * 2;
}

}  // namespace

void App::draw_frame() {
    update();
    keyboard_tab(st_);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    st_.narrow = vp->WorkSize.x < ImGui::GetFontSize() * 35;  // about 600 CSS pixels
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollWithMouse;
    ImGui::Begin("vramcalc", nullptr, flags);
    if (st_.embed) Embedded(st_);
    else Page(st_);
    ImGui::End();
}

bool App::busy() const {
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    // A held button or slider, a popup that is still sizing itself; a text field being edited is not
    // busy (the caret does not blink, so it needs no frames until the next key).
    return ImGui::IsAnyMouseDown() || (g.ActiveId != 0 && !g.IO.WantTextInput);
}

void setup_style(float scale) {
    ImGuiIO& io = ImGui::GetIO();
    // The fonts are the platform's (desktop/fonts.cpp, web/browser_fonts.cpp), added after this.
    io.FontGlobalScale = 1.0f;
    io.ConfigInputTextCursorBlink = false;  // a blinking caret would need frames while idle

    ImGuiStyle style;
    ImGui::StyleColorsLight(&style);
    style.WindowPadding = ImVec2(14, 10);
    style.FramePadding = ImVec2(7, 4);
    style.ItemSpacing = ImVec2(8, 6);
    style.FrameRounding = 4;
    style.GrabRounding = 4;
    style.ChildRounding = 4;
    style.PopupRounding = 4;
    style.WindowBorderSize = 0;
    style.FrameBorderSize = 1;
    ImVec4* c = style.Colors;
    c[ImGuiCol_WindowBg] = ImVec4(1, 1, 1, 1);
    c[ImGuiCol_ChildBg] = ImVec4(1, 1, 1, 0);
    c[ImGuiCol_Header] = ImVec4(0.90f, 0.93f, 0.98f, 1);
    c[ImGuiCol_HeaderHovered] = ImVec4(0.82f, 0.88f, 0.98f, 1);
    c[ImGuiCol_HeaderActive] = ImVec4(0.74f, 0.83f, 0.97f, 1);
    c[ImGuiCol_Button] = ImVec4(0.91f, 0.93f, 0.96f, 1);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.80f, 0.87f, 0.98f, 1);
    c[ImGuiCol_FrameBg] = ImVec4(0.96f, 0.97f, 0.98f, 1);
    c[ImGuiCol_TableRowBgAlt] = ImVec4(0.97f, 0.975f, 0.985f, 1);
    c[ImGuiCol_Text] = ImVec4(0.11f, 0.13f, 0.16f, 1);
    c[ImGuiCol_TextDisabled] = ImVec4(0.36f, 0.39f, 0.44f, 1);  // contrast 6.0:1 on white, 5.1:1 on selected rows
    c[ImGuiCol_NavHighlight] = ImVec4(0.10f, 0.40f, 0.90f, 1);
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
}

}  // namespace vramcalc::ui
