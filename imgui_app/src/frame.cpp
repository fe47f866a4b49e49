// draw_frame(): the page, top to bottom (or two columns when wide), and its look.
#include <algorithm>

#include "ui.hpp"

namespace vramcalc::ui {

// The UI font, embedded at build time (imgui_app/CMakeLists.txt); size 0 when none was found.
extern const unsigned char kUiFontData[];
extern const unsigned int kUiFontSize;

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
    if (Section("Memory curves and the training step")) GuiCharts(st);
    if (Section("What to change")) GuiAdvisor(st);
}

void Page(AppState& st) {
    const float fs = ImGui::GetFontSize();
    GuiHeader(st);
    ImGui::Separator();
    const float footer = ImGui::GetFrameHeightWithSpacing() * 2.2f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (avail.x > fs * 62) {
        const float left = std::min(fs * 28, avail.x * 0.4f);
        ImGui::BeginChild("inputs", ImVec2(left, avail.y - footer), false);
        Inputs(st);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("answers", ImVec2(0, avail.y - footer), false);
        Answers(st);
        ImGui::EndChild();
    } else {
        ImGui::BeginChild("all", ImVec2(0, avail.y - footer), false);
        GuiVerdict(st);  // narrow windows: the answer first, then the question, then the details
        Inputs(st);
        Answers(st, false);
        ImGui::EndChild();
    }
    GuiFooter(st);
}

// ?embed=1: what a docs page needs — the verdict, the bill, the GPU choice, a way to the full page.
void Embedded(AppState& st) {
    GuiHardware(st);
    GuiVerdict(st);
    if (st.results.ok) GuiBill(st);
    if (ImGui::Button("Open the full calculator")) st.platform->open_url(st.platform->share_link(encode_state(st)));
    ImGui::SameLine();
    ImGui::TextDisabled("vramcalc: GiB = 2^30 bytes");
}

}  // namespace

void App::draw_frame() {
    update();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus;
    ImGui::Begin("vramcalc", nullptr, flags);
    if (st_.embed) Embedded(st_);
    else Page(st_);
    ImGui::End();
}

void setup_style(float scale) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;  // the data is a static array
    if (kUiFontSize > 0) {
        void* data = const_cast<unsigned char*>(kUiFontData);
        io.Fonts->AddFontFromMemoryTTF(data, static_cast<int>(kUiFontSize), 17.0f * scale, &cfg);
        io.Fonts->AddFontFromMemoryTTF(data, static_cast<int>(kUiFontSize), 24.0f * scale, &cfg);
    } else {
        ImFontConfig def;
        def.SizePixels = 13.0f * scale;
        io.Fonts->AddFontDefault(&def);
        def.SizePixels = 20.0f * scale;
        io.Fonts->AddFontDefault(&def);
    }
    io.FontGlobalScale = 1.0f;

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
    c[ImGuiCol_TextDisabled] = ImVec4(0.42f, 0.45f, 0.50f, 1);
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
}

}  // namespace vramcalc::ui
