// Serving: the context x concurrency grid of the core's serving matrix (vramcalc/serving_matrix.hpp), for
// vLLM and llama.cpp scenarios. One row per context length (1k ... the model's limit), one column per
// concurrency (1, 2, 4, ... 256); a filled cell fits, the last column is the most sequences that fit.
// Drawn as one item, so it stays a few font units wide per cell on a 390 px phone.
#include <algorithm>
#include <cstdio>

#include "ui.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::ui {

namespace {

std::string tokens_label(std::int64_t n) {  // 1024 -> "1k", 131072 -> "128k", 40960 -> "40k", 1000 -> "1000"
    char buf[24];
    if (n >= (1 << 20) && n % (1 << 20) == 0) std::snprintf(buf, sizeof buf, "%lldM", static_cast<long long>(n >> 20));
    else if (n % 1024 == 0) std::snprintf(buf, sizeof buf, "%lldk", static_cast<long long>(n >> 10));
    else std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(n));
    return buf;
}

}  // namespace

std::string serving_summary(const ServingMatrix& m) {
    if (m.empty()) return "";
    std::string s = "\nServing, the most concurrent sequences per context:";
    for (std::size_t i = 0; i < m.contexts.size(); ++i)
        s += (i ? ", " : " ") + tokens_label(m.contexts[i]) + " " + std::to_string(m.max_concurrency[i]);
    return s;
}

void GuiServing(AppState& st) {
    const ServingMatrix& m = st.results.serving;
    if (m.empty()) return;
    const float fs = ImGui::GetFontSize();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(
        "Sequences served at once on the %s for each context length (prompt + generated tokens): a filled "
        "cell fits, the right column is the most that fit.",
        st.results.bill.gpu.name.c_str());
    ImGui::PopTextWrapPos();

    const auto cols = static_cast<int>(m.concurrency.size());
    const float label_w = fs * 2.6f, most_w = fs * 3.2f, row_h = ImGui::GetTextLineHeightWithSpacing();
    const float cell = std::clamp((ImGui::GetContentRegionAvail().x - label_w - most_w) / static_cast<float>(cols), fs * 1.2f, fs * 2.6f);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const auto rows = static_cast<int>(m.contexts.size());
    ImGui::InvisibleButton("serving matrix", ImVec2(label_w + cell * static_cast<float>(cols) + most_w, row_h * static_cast<float>(rows + 1)));
    name_last_item(st, "serving matrix");  // its Tab stop's label (tests find the grid by it)
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const ImU32 yes = ImGui::GetColorU32(fit_color(Fit::within_target)), no = IM_COL32(232, 235, 240, 255);
    auto centred = [&](float x, float y, ImU32 colour, const std::string& s) {
        dl->AddText(ImVec2(x - ImGui::CalcTextSize(s.c_str()).x * 0.5f, y), colour, s.c_str());
    };
    // The header: concurrency per column (every other one where "256" is wider than a cell), then "most".
    const bool every = ImGui::CalcTextSize("256").x < cell * 0.95f;
    for (int j = 0; j < cols; ++j)
        if (every || j % 2 == 0) centred(o.x + label_w + cell * (static_cast<float>(j) + 0.5f), o.y, dim, std::to_string(m.concurrency[j]));
    centred(o.x + label_w + cell * static_cast<float>(cols) + most_w * 0.5f, o.y, dim, "most");
    for (int i = 0; i < rows; ++i) {
        const float y = o.y + row_h * static_cast<float>(i + 1);
        dl->AddText(ImVec2(o.x, y), dim, tokens_label(m.contexts[i]).c_str());
        for (int j = 0; j < cols; ++j) {
            const ImVec2 a(o.x + label_w + cell * static_cast<float>(j) + 1, y + 1);
            dl->AddRectFilled(a, ImVec2(a.x + cell - 2, a.y + row_h - 2), m.concurrency[j] <= m.max_concurrency[i] ? yes : no, 2);
        }
        centred(o.x + label_w + cell * static_cast<float>(cols) + most_w * 0.5f, y, m.max_concurrency[i] > 0 ? text : ImGui::GetColorU32(fit_color(Fit::no)),
                std::to_string(m.max_concurrency[i]));
    }
    if (ImGui::IsItemHovered()) {  // the row under the pointer, in words
        const int i = static_cast<int>((ImGui::GetIO().MousePos.y - o.y) / row_h) - 1;
        if (i >= 0 && i < rows)
            ImGui::SetTooltip("%s tokens per sequence: at most %lld sequences at once", format_count(m.contexts[i]).c_str(),
                              static_cast<long long>(m.max_concurrency[i]));
    }
}

}  // namespace vramcalc::ui
