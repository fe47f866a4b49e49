// Drawing: the stacked bill bar against the GPU, line charts of memory against batch and length,
// and the training-step timeline. Plain ImDrawList, sized in font units.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui.hpp"

namespace vramcalc::ui {

std::string gib(std::int64_t bytes, int decimals) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f GiB", decimals, static_cast<double>(bytes) / 1073741824.0);
    return buf;
}

ImU32 component_color(const std::string& id) {
    if (const BillLine* l = find_bill_line(id))  // the core's registry owns each line's colour
        return IM_COL32((l->color >> 16) & 0xFF, (l->color >> 8) & 0xFF, l->color & 0xFF, 255);
    // Stable colour for ids added later (quant_buffers, role-prefixed lines, ...).
    unsigned h = 2166136261u;
    for (char ch : id) h = (h ^ static_cast<unsigned char>(ch)) * 16777619u;
    return IM_COL32(80 + h % 150, 80 + (h >> 8) % 150, 80 + (h >> 16) % 150, 255);
}

std::string component_label(const std::string& id) {
    const BillLine* l = find_bill_line(id);  // the core's registry names each line ("allocator overhead")
    if (!l) return id;
    const auto dot = id.rfind('.');
    return dot == std::string::npos ? l->label : id.substr(0, dot) + ": " + l->label;  // RLHF roles: "critic: weights"
}

void StackedBar(const Bill& bill, double target_utilization, float height) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const double cap = static_cast<double>(bill.gpu.memory_bytes);
    const double scale_max = std::max(cap, static_cast<double>(bill.device_bytes)) * 1.02;
    auto x_at = [&](double bytes) { return p0.x + static_cast<float>(bytes / scale_max) * width; };

    dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
    double acc = 0;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const Component* hovered = nullptr;
    for (const auto& c : bill.components) {
        if (c.bytes <= 0) continue;
        const float x0 = x_at(acc), x1 = x_at(acc + static_cast<double>(c.bytes));
        dl->AddRectFilled(ImVec2(x0, p0.y), ImVec2(x1, p0.y + height), component_color(c.id));
        if (x1 - x0 > 2) dl->AddLine(ImVec2(x1, p0.y), ImVec2(x1, p0.y + height), IM_COL32(255, 255, 255, 160));
        if (mouse.x >= x0 && mouse.x < x1 && mouse.y >= p0.y && mouse.y < p0.y + height) hovered = &c;
        acc += static_cast<double>(c.bytes);
    }
    // Capacity (solid) and the planning target (dashed look: short segments).
    const float xc = x_at(cap), xt = x_at(cap * target_utilization);
    const ImU32 line = ImGui::GetColorU32(ImGuiCol_Text);
    dl->AddLine(ImVec2(xc, p0.y - 4), ImVec2(xc, p0.y + height + 4), line, 2.5f);
    for (float y = p0.y - 4; y < p0.y + height + 4; y += 6) dl->AddLine(ImVec2(xt, y), ImVec2(xt, y + 3), line, 1.5f);
    ImGui::Dummy(ImVec2(width, height + 6));
    if (hovered) {
        ImGui::BeginTooltip();
        ImGui::Text("%s: %s (%.1f %%)", component_label(hovered->id).c_str(), gib(hovered->bytes).c_str(),
                    100.0 * static_cast<double>(hovered->bytes) / std::max<double>(1, static_cast<double>(bill.device_bytes)));
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
        ImGui::TextDisabled("%s", hovered->detail.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
    ImGui::PushTextWrapPos(0);
    // A no-break space (U+00A0, in the UI font) keeps "90 %" on one line when it wraps.
    ImGui::TextDisabled("solid line: GPU capacity %s; dashed: target %.0f\u00a0%%", gib(bill.gpu.memory_bytes).c_str(),
                        target_utilization * 100);
    ImGui::PopTextWrapPos();
}

void LineChart(const char* id, const Series& s, const char* x_label, double capacity_gib, double target_gib, bool log2_x,
               float height, double marker_x) {
    ImGui::PushID(id);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const float left = fs * 3.2f, bottom = fs * 1.4f;
    const ImVec2 p0(origin.x + left, origin.y), p1(origin.x + width - fs * 0.5f, origin.y + height - bottom);
    dl->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg));
    if (s.x.size() < 2) {
        ImGui::Dummy(ImVec2(width, height));
        ImGui::PopID();
        return;
    }
    // float log2 for a pixel position: the page then links no double log2 (its table is 2 KB of the wasm)
    auto fx = [&](double x) { return log2_x ? static_cast<double>(std::log2(static_cast<float>(x))) : x; };
    const double x0 = fx(s.x.front()), x1 = fx(s.x.back());
    double ymax = capacity_gib * 1.15;
    for (double y : s.y) ymax = std::max(ymax, y);
    ymax = std::min(ymax, capacity_gib * 4);  // keep the capacity line readable when a curve explodes
    auto px = [&](double x) { return p0.x + static_cast<float>((fx(x) - x0) / std::max(1e-9, x1 - x0)) * (p1.x - p0.x); };
    auto py = [&](double y) { return p1.y - static_cast<float>(std::min(y, ymax) / ymax) * (p1.y - p0.y); };

    const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border), text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    for (int i = 0; i <= 4; ++i) {
        const double y = ymax * i / 4.0;
        dl->AddLine(ImVec2(p0.x, py(y)), ImVec2(p1.x, py(y)), grid);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", y);
        dl->AddText(ImVec2(origin.x, py(y) - fs * 0.5f), text, buf);
    }
    for (double x : s.x) {
        char buf[32];
        if (x >= 1024 && std::fmod(x, 1024) == 0) std::snprintf(buf, sizeof buf, "%gk", x / 1024);
        else std::snprintf(buf, sizeof buf, "%g", x);
        const float tx = px(x) - ImGui::CalcTextSize(buf).x * 0.5f;
        dl->AddText(ImVec2(std::max(p0.x, tx), p1.y + fs * 0.15f), text, buf);
    }
    dl->AddText(ImVec2(origin.x, p1.y + fs * 0.15f), text, "GiB");
    const ImU32 red = IM_COL32(229, 57, 53, 255);
    dl->AddLine(ImVec2(p0.x, py(capacity_gib)), ImVec2(p1.x, py(capacity_gib)), red, 2.0f);
    for (float x = p0.x; x < p1.x; x += 8) dl->AddLine(ImVec2(x, py(target_gib)), ImVec2(x + 4, py(target_gib)), red, 1.0f);
    const ImU32 curve = IM_COL32(66, 133, 244, 255);
    for (std::size_t i = 1; i < s.x.size(); ++i)
        dl->AddLine(ImVec2(px(s.x[i - 1]), py(s.y[i - 1])), ImVec2(px(s.x[i]), py(s.y[i])), curve, 2.0f);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    int hover = -1;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
        const bool mine = s.x[i] == marker_x;
        dl->AddCircleFilled(ImVec2(px(s.x[i]), py(s.y[i])), mine ? fs * 0.35f : fs * 0.2f, s.y[i] > capacity_gib ? red : curve);
        if (s.y[i] > ymax) {  // clamped: an arrow at the top edge says the point lies above the chart
            const float x = px(s.x[i]), y = p0.y + fs * 0.1f;
            dl->AddTriangleFilled(ImVec2(x, y), ImVec2(x - fs * 0.3f, y + fs * 0.45f), ImVec2(x + fs * 0.3f, y + fs * 0.45f), red);
        }
        if (std::fabs(mouse.x - px(s.x[i])) < fs * 0.6f && mouse.y > p0.y && mouse.y < p1.y) hover = static_cast<int>(i);
    }
    ImGui::Dummy(ImVec2(width, height));
    if (hover >= 0) {
        ImGui::BeginTooltip();
        ImGui::Text("%s %g: %.2f GiB (%s)%s", x_label, s.x[hover], s.y[hover], s.y[hover] > capacity_gib ? "does not fit" : "fits",
                    s.y[hover] > ymax ? ", above the chart (arrow)" : "");
        ImGui::EndTooltip();
    }
    ImGui::PopID();
}

void TimelineChart(const Bill& bill, float height) {
    if (bill.timeline.empty()) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const ImVec2 p1(p0.x + width, p0.y + height);
    dl->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg));
    std::int64_t top = 1;
    for (const auto& t : bill.timeline) top = std::max(top, t.bytes);
    const float step = width / static_cast<float>(bill.timeline.size());
    auto color = [](const std::string& phase) {
        if (phase == "forward") return IM_COL32(66, 133, 244, 220);
        if (phase == "loss") return IM_COL32(156, 204, 101, 220);
        if (phase == "backward") return IM_COL32(251, 140, 0, 220);
        return IM_COL32(229, 57, 53, 220);  // optimizer
    };
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    int hover = -1;
    for (std::size_t i = 0; i < bill.timeline.size(); ++i) {
        const auto& t = bill.timeline[i];
        const float x = p0.x + step * static_cast<float>(i);
        const float y = p1.y - static_cast<float>(static_cast<double>(t.bytes) / static_cast<double>(top)) * (height - fs * 0.2f);
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + std::max(1.0f, step), p1.y), color(t.phase));
        if (mouse.x >= x && mouse.x < x + step && mouse.y >= p0.y && mouse.y < p1.y) hover = static_cast<int>(i);
    }
    ImGui::Dummy(ImVec2(width, height));
    if (hover >= 0) {
        ImGui::BeginTooltip();
        ImGui::Text("%s: %s allocated", bill.timeline[hover].phase.c_str(), gib(bill.timeline[hover].bytes).c_str());
        ImGui::EndTooltip();
    }
    const char* phases[] = {"forward", "loss", "backward", "optimizer"};
    for (const char* ph : phases) {
        ImGui::ColorButton(ph, ImGui::ColorConvertU32ToFloat4(color(ph)), ImGuiColorEditFlags_NoTooltip, ImVec2(fs * 0.8f, fs * 0.8f));
        ImGui::SameLine();
        ImGui::TextUnformatted(ph);
        ImGui::SameLine(0, fs);
    }
    ImGui::Text("peak %s in %s", gib(bill.peak_allocated_bytes).c_str(), bill.peak_phase.c_str());
}

}  // namespace vramcalc::ui
