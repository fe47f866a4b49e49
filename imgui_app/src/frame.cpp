// draw_frame(): the page, top to bottom (or two columns when wide), and its look.
#include <algorithm>
#include <cstdio>

#include <imgui_internal.h>

#include "ui.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::ui {

namespace {

bool Section(const char* title) { return ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen); }

void Inputs(AppState& st) {
    // Model and GPU first: the two choices every question starts with (and the GPU a few Tabs away).
    if (Section("Model")) GuiModel(st);
    if (Section("Hardware")) GuiHardware(st);
    if (Section("Workload")) GuiWorkload(st);
    if (ImGui::CollapsingHeader("Scenario JSON (every key)")) GuiScenarioJson(st);
}

// The bill and what follows from it; the verdict leads unless the caller already drew it.
void Answers(AppState& st, bool with_verdict = true) {
    if (with_verdict) GuiVerdict(st);
    if (!st.results.ok) return;
    if (Section("Memory bill per GPU")) GuiBill(st);
    if (Section("Largest batch and context")) GuiFit(st);
    if (!st.results.serving.empty() && Section("Serving: context x concurrency")) GuiServing(st);
    const bool train = st.results.scenario.workload == Workload::train;
    if (Section(train ? "Memory curves and the training step###curves" : "Memory curves###curves")) GuiCharts(st);
    if (Section("What to change")) GuiAdvisor(st);
}

// A phone scrolled past the verdict: one line of it pinned over the top of the page, which scrolls back
// to the whole verdict when tapped (an edit further down still shows its effect).
void VerdictStrip(AppState& st, ImVec2 at, float width) {
    const Bill& b = st.results.bill;
    const Fit fit = fit_of_verdict(verdict_of(b));
    const char* word = fit == Fit::within_target ? "Fits" : fit == Fit::above_target ? "Tight"
                                                                                     : "Does not fit";
    char figures[64];
    std::snprintf(figures, sizeof figures, ": %.1f of %.1f GiB. See the verdict###verdict-strip", static_cast<double>(b.device_bytes) / kGiB,
                  static_cast<double>(b.gpu.memory_bytes) / kGiB);
    const std::string line = word + std::string(figures);
    ImGui::SetNextWindowPos(at);
    ImGui::SetNextWindowSize(ImVec2(width, 0));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_AlwaysAutoResize;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetStyle().ItemSpacing.y, ImGui::GetStyle().ItemSpacing.y));
    ImGui::Begin("##verdict", nullptr, flags);
    ImGui::PushStyleColor(ImGuiCol_Text, fit_color(fit));
    ImGui::PushStyleVar(ImGuiStyleVar_ButtonTextAlign, ImVec2(0, 0.5f));
    if (ImGui::Button(line.c_str(), ImVec2(-1, ImGui::GetFrameHeight() * 1.4f))) st.back_to_verdict = true;
    name_last_item(st, "verdict strip");
    ImGui::PopStyleVar();
    ImGui::PopStyleColor();
    ImGui::End();
    ImGui::PopStyleVar();
}

void Page(AppState& st) {
    GuiHeader(st);
    ImGui::Separator();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (!st.narrow && avail.x > ImGui::GetFontSize() * 62) {
        // The footer's room is its height as last drawn (its status line comes and goes): no blank band.
        const float footer = st.footer_height > 0 ? st.footer_height : ImGui::GetFrameHeightWithSpacing() * 2.2f;
        const float left = std::min(ImGui::GetFontSize() * 28, avail.x * 0.4f);
        ImGui::BeginChild("inputs", ImVec2(left, avail.y - footer), false);
        Inputs(st);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("answers", ImVec2(0, avail.y - footer), false);
        Answers(st);
        ImGui::EndChild();
        const float y0 = ImGui::GetCursorPosY();
        GuiFooter(st);
        st.footer_height = ImGui::GetCursorPosY() - y0;
    } else {
        // Narrow windows and phones: one column, the answer first, then the question, then the details;
        // the footer scrolls with the rest (it wraps, so its height is not known beforehand).
        ImGui::BeginChild("all", ImVec2(0, avail.y), false);
        if (st.back_to_verdict) ImGui::SetScrollY(0);
        st.back_to_verdict = false;
        GuiVerdict(st);
        const float verdict_end = ImGui::GetCursorPosY();  // content coordinates
        Inputs(st);
        Answers(st, false);
        GuiFooter(st);
        const bool past = ImGui::GetScrollY() > verdict_end;
        const ImVec2 at = ImGui::GetWindowPos();
        const float width = ImGui::GetWindowWidth();
        ImGui::EndChild();
        if (past && st.results.ok) VerdictStrip(st, at, width);
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
    anchor_scroll(st_);
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
    c[ImGuiCol_PopupBg] = ImVec4(1, 1, 1, 1);  // opaque: the form under a combo's list no longer shows through
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
