#include "grid.hpp"

#include <algorithm>

#include <imgui_internal.h>

namespace vramcalc::ui {

// A cell is a group placed at its column's left edge (its lines start there, Indent works inside it) whose
// window work rectangle ends at the column's right edge, so PushTextWrapPos(0) and TextWrapped wrap inside
// the cell. Backgrounds and rules go to a draw channel below the items, drawn once a row's height is known.

Grid::Grid(const char* id, std::span<const GridColumn> columns, float width) : columns_(columns.begin(), columns.end()) {
    ImGui::PushID(id);
    const float pad = ImGui::GetStyle().CellPadding.x;
    x0_ = ImGui::GetCursorScreenPos().x;
    x1_ = x0_ + (width > 0 ? width : ImGui::GetContentRegionAvail().x);
    float fixed = 0;
    int sharing = 0;
    for (const auto& c : columns_) {
        if (c.width > 0) fixed += c.width + 2 * pad;
        else ++sharing;
    }
    const float share = sharing ? std::max(ImGui::GetFontSize() * 3, (x1_ - x0_ - fixed) / static_cast<float>(sharing)) : 0;
    float x = x0_;
    for (const auto& c : columns_) {
        left_.push_back(x);
        x += c.width > 0 ? c.width + 2 * pad : share;
    }
    left_.push_back(std::max(x, x1_));
    x1_ = left_.back();
    saved_work_max_x_ = ImGui::GetCurrentWindow()->WorkRect.Max.x;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->ChannelsSplit(2);
    dl->ChannelsSetCurrent(1);
}

Grid::~Grid() {
    end_row();
    ImGui::GetWindowDrawList()->ChannelsMerge();
    ImGui::SetCursorScreenPos(ImVec2(x0_, row_bottom_ + ImGui::GetStyle().CellPadding.y));
    ImGui::Dummy(ImVec2(x1_ - x0_, 0));  // the grid's extent, for the window's layout and scrolling
    ImGui::PopID();
}

void Grid::header(GridSort* sort) {
    row();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->ChannelsSetCurrent(0);
    dl->AddRectFilled(ImVec2(x0_, row_top_), ImVec2(x1_, row_top_ + ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y),
                      ImGui::GetColorU32(ImGuiCol_TableHeaderBg));
    dl->ChannelsSetCurrent(1);
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        next_cell();
        const GridColumn& c = columns_[i];
        if (!sort) {
            ImGui::TextUnformatted(c.label);
            continue;
        }
        const bool sorted = sort->column == static_cast<int>(i);
        const float w = left_[i + 1] - left_[i] - 2 * ImGui::GetStyle().CellPadding.x;
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::Selectable(c.label, false, 0, ImVec2(w, 0))) {
            sort->ascending = sorted ? !sort->ascending : !c.descending_first;
            sort->column = static_cast<int>(i);
        }
        ImGui::PopID();
        if (sorted) {
            const ImVec2 at(ImGui::GetItemRectMin().x + ImGui::CalcTextSize(c.label, nullptr, true).x + ImGui::GetStyle().ItemInnerSpacing.x,
                            ImGui::GetItemRectMin().y);
            ImGui::RenderArrow(dl, at, ImGui::GetColorU32(ImGuiCol_Text), sort->ascending ? ImGuiDir_Up : ImGuiDir_Down, 0.65f);
        }
    }
    end_row();
    rows_ = 0;  // the header does not count for the alternate backgrounds
}

void Grid::row() {
    end_row();
    row_top_ = ImGui::GetCursorScreenPos().y;
    row_bottom_ = row_top_;
    in_row_ = true;
    cell_ = -1;
}

void Grid::next_cell(bool spans) {
    end_cell();
    ++cell_;
    const ImVec2 pad = ImGui::GetStyle().CellPadding;
    ImGui::GetCurrentWindow()->WorkRect.Max.x = cell_right();
    clipped_ = !spans;
    if (clipped_) ImGui::PushClipRect(ImVec2(left_[cell_], -1e30f), ImVec2(left_[cell_ + 1], 1e30f), true);
    ImGui::SetCursorScreenPos(ImVec2(left_[cell_] + pad.x, row_top_ + pad.y));
    ImGui::BeginGroup();
    in_cell_ = true;
}

float Grid::cell_right() const { return left_[cell_ + 1] - ImGui::GetStyle().CellPadding.x; }

float Grid::rest_of_row() const { return x1_ - left_[cell_] - 2 * ImGui::GetStyle().CellPadding.x; }

void Grid::end_cell() {
    if (!in_cell_) return;
    in_cell_ = false;
    ImGui::EndGroup();
    if (clipped_) ImGui::PopClipRect();
    row_bottom_ = std::max(row_bottom_, ImGui::GetItemRectMax().y + ImGui::GetStyle().CellPadding.y);
    ImGui::GetCurrentWindow()->WorkRect.Max.x = saved_work_max_x_;
}

void Grid::end_row() {
    if (!in_row_) return;
    end_cell();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->ChannelsSetCurrent(0);
    if (rows_ % 2 == 1) dl->AddRectFilled(ImVec2(x0_, row_top_), ImVec2(x1_, row_bottom_), ImGui::GetColorU32(ImGuiCol_TableRowBgAlt));
    dl->AddLine(ImVec2(x0_, row_bottom_), ImVec2(x1_, row_bottom_), ImGui::GetColorU32(ImGuiCol_TableBorderLight));
    dl->ChannelsSetCurrent(1);
    ImGui::SetCursorScreenPos(ImVec2(x0_, row_bottom_));
    ++rows_;
    in_row_ = false;
}

}  // namespace vramcalc::ui
