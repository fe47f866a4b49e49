// What fits where: the largest batch and context on the chosen GPU, and the catalog of GPUs with each
// one's answer (a row chooses that GPU).
#include <algorithm>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <imgui_internal.h>  // PushItemFlag (Tab stops), RenderTextEllipsis

#include "grid.hpp"
#include "ui.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::ui {

namespace {

// One cell of the GPU catalog: the GPU (a row that chooses it when clicked), its memory, whether the
// scenario fits, what it needs, and the largest batch and sequence.
void catalog_cell(AppState& st, const CatalogFit& f, int field, const Grid& grid) {
    const Scenario& sc = st.results.scenario;
    const bool train = sc.workload == Workload::train;
    switch (field) {
        case 0: {
            const bool chosen = f.gpu.id == st.results.bill.gpu.id;
            ImGui::PushItemFlag(ImGuiItemFlags_NoTabStop, !chosen);  // one Tab stop: the chosen GPU
            const ImVec2 at = ImGui::GetCursorScreenPos(), size = ImGui::CalcTextSize(f.gpu.name.c_str());
            if (ImGui::Selectable(("##" + f.gpu.id).c_str(), chosen, 0, ImVec2(grid.rest_of_row(), 0))) widgets::set(st, "/gpu", f.gpu.id);
            ImGui::PopItemFlag();
            name_last_item(st, f.gpu.name.c_str());
            // the name cut with an ellipsis at its column's edge, in full on hover
            const float right = grid.cell_right();
            ImGui::RenderTextEllipsis(ImGui::GetWindowDrawList(), at, ImVec2(right, at.y + size.y), right, right, f.gpu.name.c_str(), nullptr, &size);
            if (at.x + size.x > right && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.gpu.name.c_str());
            break;
        }
        case 1:
            ImGui::Text("%.1f", static_cast<double>(f.gpu.memory_bytes) / kGiB);
            break;
        case 2: {
            const Fit fit = fit_of_verdict(f.verdict);  // the GPU's own bill's verdict, as the verdict line's
            ImGui::TextColored(fit_color(fit), "%s", fit_word(fit));
            break;
        }
        case 3:
            ImGui::Text("%.1f", static_cast<double>(f.device_bytes) / kGiB);
            break;
        case 4:
            if (f.max_batch > 0) ImGui::Text("%lld", static_cast<long long>(f.max_batch));
            else ImGui::TextDisabled("none");  // not even 1
            break;
        default:
            if (sc.model.stack) ImGui::TextDisabled("-");  // a layer stack: a fixed input shape
            else if ((train ? f.max_seq_len : f.max_context) <= 0) ImGui::TextDisabled("none");
            else ImGui::Text("%lld", static_cast<long long>(train ? f.max_seq_len : f.max_context));
    }
}

}  // namespace

// The answers on the chosen GPU above the table: the largest batch and the longest sequence or context, each
// count said plainly ("none, not even 1", never "largest batch 0"). The page's summary carries the same lines.
std::vector<std::string> fit_lines(const Results& r) {
    const Bill& b = r.bill;
    const Scenario& sc = r.scenario;
    const bool train = sc.workload == Workload::train;
    const double util = sc.target_utilization * 100;
    const char* gpu = b.gpu.name.c_str();
    std::vector<std::string> out;
    auto add = [&](const char* fmt, auto... args) {
        char buf[512];
        std::snprintf(buf, sizeof buf, fmt, args...);
        out.emplace_back(buf);
    };
    const auto tokens = [](std::optional<std::int64_t> n) {
        if (!n) return std::string("more than 16,777,216 tokens");  // the solvers' cap (estimate.cpp)
        return *n > 0 ? std::to_string(*n) + " tokens" : std::string("none fits, not even 1 token");
    };
    if (sc.model.count_only) {  // {"name", "parameters"}: nothing grows with the batch or the length
        out.emplace_back(
            "No largest batch or longest sequence: a model known only by its parameter count has no layers to size "
            "activations or a KV cache by.");
    } else if (sc.model.stack) {  // a layer stack: no sequence to solve for
        add("Largest %s on the %s at %.0f %%: %s", train ? "micro-batch" : "batch", gpu, util,
            train ? max_micro_batch_text(b).c_str() : count_text(b.max_batch.value_or(0)).c_str());
        out.emplace_back("No longest sequence: a layer stack has a fixed input shape.");
    } else if (train) {
        add("Largest micro-batch on the %s at %.0f %%: %s", gpu, util, max_micro_batch_text(b).c_str());
        if (b.max_micro_batch_runs && b.max_micro_batch && *b.max_micro_batch_runs != *b.max_micro_batch)
            add("Largest that runs at all (100 %% of the GPU): %s", count_text(*b.max_micro_batch_runs).c_str());
        add("Longest sequence at micro-batch %lld: %s", static_cast<long long>(sc.micro_batch), tokens(b.max_seq_len).c_str());
    } else {
        if (b.serving_budget)  // vLLM fills its own budget: its pool's sequences, capped at max_num_seqs
            add("Most concurrent sequences vLLM runs on the %s: %s (its KV pool at gpu_memory_utilization %.0f %%, at most max_num_seqs)",
                gpu, count_text(b.max_concurrent_sequences.value_or(0)).c_str(), b.serving_budget->fraction * 100);
        else
            add("Most concurrent sequences on the %s at %.0f %%: %s", gpu, util,
                count_text(b.max_concurrent_sequences.value_or(b.max_batch.value_or(0))).c_str());
        add("Longest context at batch %lld: %s", static_cast<long long>(sc.batch), tokens(b.max_context).c_str());
    }
    return out;
}

namespace {

void fit_headline(const AppState& st) {
    ImGui::PushTextWrapPos(0);
    const std::vector<std::string> lines = fit_lines(st.results);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const ModelSpec& m = st.results.scenario.model;
        if ((m.stack && i == 1) || m.count_only) ImGui::TextDisabled("%s", lines[i].c_str());
        else ImGui::TextUnformatted(lines[i].c_str());
    }
    ImGui::PopTextWrapPos();
}

}  // namespace

// The catalog's rows in the order of the chosen column; ties keep the catalog's order.
static std::vector<std::size_t> catalog_order(const AppState& st, bool train) {
    const auto& rows = st.results.catalog;
    auto key = [&](const CatalogFit& f) -> double {
        switch (st.catalog_sort_column) {
            case 1:
                return static_cast<double>(f.gpu.memory_bytes);
            case 2:
                return f.verdict == Verdict::fits ? 2 : f.verdict == Verdict::fits_above_target ? 1
                                                                                                : 0;
            case 3:
                return static_cast<double>(f.device_bytes);
            case 5:
                return static_cast<double>(train ? f.max_seq_len : f.max_context);
            default:
                return static_cast<double>(f.max_batch);
        }
    };
    // A plain sort on an index: smaller code than stable_sort.
    std::vector<std::size_t> order(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
        const CatalogFit &x = rows[i], &y = rows[j];
        if (st.catalog_sort_column == 0 && x.gpu.name != y.gpu.name)
            return st.catalog_sort_ascending ? x.gpu.name < y.gpu.name : x.gpu.name > y.gpu.name;
        if (st.catalog_sort_column != 0 && key(x) != key(y)) return st.catalog_sort_ascending ? key(x) < key(y) : key(x) > key(y);
        return i < j;
    });
    return order;
}

void GuiFit(AppState& st) {
    if (!st.results.ok) return;
    const Bill& b = st.results.bill;
    const bool train = st.results.scenario.workload == Workload::train;
    const double util = st.results.scenario.target_utilization;
    fit_headline(st);
    const auto& rows = st.results.catalog;
    const float fs = ImGui::GetFontSize();
    // The catalog's fields; narrow: the GPU's name, whether it fits and the largest batch.
    const GridColumn all[6] = {{"GPU"},
                               {"memory GiB", fs * 6.5f},
                               {"fits", fs * 3},
                               {"needs GiB", fs * 5},
                               {train ? (st.narrow ? "max batch" : "max micro-batch") : "max batch", fs * (st.narrow ? 5 : 7.5f), true},
                               {train ? "max seq" : "max context", fs * 5.5f, true}};
    static constexpr int kWide[] = {0, 1, 2, 3, 4, 5}, kNarrow[] = {0, 2, 4};
    const std::span<const int> shown = st.narrow ? std::span<const int>(kNarrow) : std::span<const int>(kWide);
    std::vector<GridColumn> columns;
    GridSort sort{-1, st.catalog_sort_ascending};
    for (int f : shown) {
        if (f == st.catalog_sort_column) sort.column = static_cast<int>(columns.size());
        columns.push_back(all[f]);
    }
    // The header stays put above the rows, which scroll in a child as tall as 14 lines; both lay out the
    // columns over the child's width less its scrollbar.
    const float width = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
    {
        Grid head("catalog_head", columns, width);
        head.header(&sort);
    }
    if (sort.column >= 0) {
        st.catalog_sort_column = shown[static_cast<std::size_t>(sort.column)];
        st.catalog_sort_ascending = sort.ascending;
    }
    const std::vector<std::size_t> order = catalog_order(st, train);
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y);  // the rows right under the header
    ImGui::BeginChild("catalog_rows", ImVec2(0, fs * 13), false, ImGuiWindowFlags_AlwaysVerticalScrollbar);
    {
        Grid grid("catalog", columns, width);
        for (std::size_t i : order) {
            grid.row();
            for (int field : shown) {
                grid.next_cell(field == 0);
                catalog_cell(st, rows[i], field, grid);
            }
        }
    }
    ImGui::EndChild();
    ImGui::PushTextWrapPos(0);
    if (b.serving_budget)
        ImGui::TextDisabled(
            "Click a GPU to choose it. Fits: yes when vLLM's KV pool holds the batch, tight when it holds fewer "
            "(the rest wait), no when vLLM cannot start. Needs GiB: its budget (gpu_memory_utilization) and "
            "what lies outside it; max: the sequences its pool holds.");
    else
        ImGui::TextDisabled(
            "Click a GPU to choose it. Fits: yes within the %.0f %% target, tight above it. Needs GiB: at this "
            "scenario's batch; max: within the target utilisation.",
            util * 100);
    ImGui::PopTextWrapPos();
}

}  // namespace vramcalc::ui
