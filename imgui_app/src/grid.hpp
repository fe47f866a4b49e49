// Internal to the UI: a grid of rows and columns drawn with plain ImGui items, for the bill, the GPU
// catalog, the changes, the parameter breakdown and the checkpoint's dtypes. It does what those need and no
// more: fixed and sharing column widths, a header row that may sort, alternate row backgrounds and rules
// between rows, text wrapped at its cell's edge, a first cell that may span the row (a clickable row).
// Dear ImGui's tables do this and much more (resizing, reordering, hiding, saved settings) for 13 KB gzip
// of the page's wasm.
#pragma once

#include <initializer_list>
#include <span>
#include <vector>

#include <imgui.h>

namespace vramcalc::ui {

struct GridColumn {
    const char* label;
    float width = 0;                // pixels; 0 shares what the fixed columns leave
    bool descending_first = false;  // a sortable header's first click sorts from the largest
};

// How a sortable grid is sorted; the caller keeps it between frames.
struct GridSort {
    int column = 0;
    bool ascending = true;
};

class Grid {
public:
    // Lays the columns out across `width` (the content region's width when 0) from the cursor.
    Grid(const char* id, std::span<const GridColumn> columns, float width = 0);
    Grid(const char* id, std::initializer_list<GridColumn> columns, float width = 0)
        : Grid(id, std::span<const GridColumn>(columns.begin(), columns.size()), width) {}
    ~Grid();
    Grid(const Grid&) = delete;
    Grid& operator=(const Grid&) = delete;

    // The header row: the labels, or with `sort` buttons that sort by their column (again: the other way).
    void header(GridSort* sort = nullptr);
    // Starts a row; then next_cell() before each cell's items, in column order. A cell clips what it draws
    // to its column unless `spans` (a Selectable as wide as the row, which then clips its own label).
    void row();
    void next_cell(bool spans = false);
    // The current cell's right edge (screen x), and the width from its left edge to the end of the row.
    float cell_right() const;
    float rest_of_row() const;

private:
    void end_cell();
    void end_row();

    std::vector<GridColumn> columns_;
    std::vector<float> left_;  // each column's left edge, screen x
    float x0_ = 0, x1_ = 0;    // the grid's screen x extent
    float row_top_ = 0, row_bottom_ = 0;
    float saved_work_max_x_ = 0;
    int cell_ = -1, rows_ = 0;
    bool in_row_ = false, in_cell_ = false, clipped_ = false;
};

}  // namespace vramcalc::ui
