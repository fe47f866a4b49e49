// The question: which model and which hardware (the workload: panel_workload.cpp).
#include <algorithm>
#include <cctype>
#include <map>

#include <imgui_internal.h>  // PushItemFlag (Tab stops)

#include "grid.hpp"
#include "ui.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/scenario_keys.hpp"

#include <misc/cpp/imgui_stdlib.h>  // after imgui.h (it does not include it)
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::ui {

using json = nlohmann::json;
namespace w = widgets;

namespace {

bool contains_ci(const std::string& hay, const std::string& needle) {
    auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
    return it != hay.end();
}

void breakdown_row(Grid& grid, const char* what, std::int64_t n, std::int64_t total) {
    if (n <= 0) return;
    grid.row();
    grid.next_cell();
    ImGui::TextUnformatted(what);
    grid.next_cell();
    ImGui::Text("%s", format_count(n).c_str());
    grid.next_cell();
    ImGui::Text("%.1f %%", 100.0 * static_cast<double>(n) / static_cast<double>(std::max<std::int64_t>(1, total)));
}

void model_breakdown(const AppState& st) {
    if (!st.results.ok) return;
    const ModelSpec& m = st.results.scenario.model;
    const ParamBreakdown p = count_parameters(m);
    if (m.count_only) {
        ImGui::Text("%s parameters (given as a count: no shapes, so no activations)", format_count(m.declared_parameters).c_str());
        return;
    }
    ImGui::PushTextWrapPos(0);
    if (m.stack) {
        std::string shape;
        for (i64 d : m.stack->input) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
        ImGui::TextDisabled("layer stack: %zu layers, input %s per sample", m.stack->layers.size(), shape.c_str());
    } else {
        ImGui::TextDisabled("%s: %lld layers, hidden %lld, %lld heads (%lld KV), vocab %lld", m.model_type.c_str(),
                            static_cast<long long>(m.layers), static_cast<long long>(m.hidden), static_cast<long long>(m.heads),
                            static_cast<long long>(m.kv_heads), static_cast<long long>(m.vocab));
    }
    ImGui::PopTextWrapPos();
    Grid grid("params", {{"parameters"}, {"count", ImGui::GetFontSize() * 7}, {"share", ImGui::GetFontSize() * 4}});
    grid.header();
    breakdown_row(grid, "total", p.total, p.total);
    if (p.active != p.total) breakdown_row(grid, "active per token", p.active, p.total);
    breakdown_row(grid, "embeddings", p.embeddings, p.total);
    breakdown_row(grid, "attention", p.attention, p.total);
    breakdown_row(grid, "MLP", p.mlp, p.total);
    breakdown_row(grid, "routed experts", p.experts, p.total);
    breakdown_row(grid, "router", p.router, p.total);
    breakdown_row(grid, "norms", p.norms, p.total);
    breakdown_row(grid, "LM head", p.lm_head, p.total);
    if (p.vision > 0) breakdown_row(grid, "vision tower", p.vision, p.total);
    if (p.mamba > 0) breakdown_row(grid, "Mamba mixers", p.mamba, p.total);
}

// Whether a key's weight-format list (the key table's `weights`, "gptq- awq-" for group_size) takes this
// `weights` value: the UI shows the key only then, as applies_to() reads it.
bool key_reads_weights(std::string_view key, const json& weights) {
    const ScenarioKey* k = find_scenario_key(key);
    if (!k || !weights.is_string()) return false;
    const std::string v = weights.get<std::string>();
    for (std::string_view list = k->weights; !list.empty();) {
        const auto sp = list.find(' ');
        if (v.rfind(list.substr(0, sp), 0) == 0) return true;
        if (sp == std::string_view::npos) break;
        list.remove_prefix(sp + 1);
    }
    return k->weights.empty();
}

}  // namespace

static void model_source(AppState& st);

void GuiModel(AppState& st) {
    const float fs = ImGui::GetFontSize();
    const json& model = st.scenario.contains("model") ? st.scenario["model"] : json();
    const std::string current = model.is_string() ? model.get<std::string>() : "";
    if (model.is_object() && model.contains("layers"))
        ImGui::TextWrapped("Model: your layer stack (%s, %zu layers listed)", w::text_at(model, "name", "unnamed").c_str(),
                           model["layers"].is_array() ? model["layers"].size() : std::size_t{0});
    else if (model.is_object())
        ImGui::TextWrapped("Model: your config.json (%s)", w::text_at(model, "model_type", "unknown type").c_str());
    else if (const ModelPreset* p = st.catalog->find_model(current))
        ImGui::TextWrapped("Model: %s  (%s parameters)", p->name.c_str(), format_params_short(p->params.total).c_str());

    // A phone shows the model list only when asked for (it is taller than the screen).
    if (st.narrow && !ImGui::TreeNode("Choose another model")) {
        model_source(st);
        model_breakdown(st);
        return;
    }
    ImGui::SetNextItemWidth(-1);
    // A tap or click selects the search's text (typing replaces it); Enter picks the only match.
    const bool enter = ImGui::InputTextWithHint("##filter", "search models (name, family, Hub id)", &st.model_filter,
                                                ImGuiInputTextFlags_AutoSelectAll | ImGuiInputTextFlags_EnterReturnsTrue);
    std::map<std::string, std::vector<const ModelPreset*>> by_family;
    const ModelPreset* only = nullptr;
    int matches = 0;
    for (const auto& m : st.catalog->models())
        if (st.model_filter.empty() || contains_ci(m.name, st.model_filter) || contains_ci(m.family, st.model_filter) ||
            contains_ci(m.hub_id, st.model_filter)) {
            by_family[m.family].push_back(&m);
            only = &m;
            ++matches;
        }
    if (enter && matches == 1 && only->id != current) w::set(st, "/model", only->id);
    if (ImGui::BeginChild("models", ImVec2(0, fs * 11), true)) {
        for (auto& [family, list] : by_family) {
            const bool has_current = std::any_of(list.begin(), list.end(), [&](const ModelPreset* m) { return m->id == current; });
            ImGui::SetNextItemOpen(!st.model_filter.empty() || has_current, st.model_filter.empty() ? ImGuiCond_Once : ImGuiCond_Always);
            // One Tab stop for the whole list (the chosen model); the arrow keys move inside it.
            ImGui::PushItemFlag(ImGuiItemFlags_NoTabStop, true);
            const bool open = ImGui::TreeNode(family.c_str());
            ImGui::PopItemFlag();
            if (open) {
                for (const ModelPreset* m : list) {
                    const std::string label = m->name + "##" + m->id;
                    ImGui::PushItemFlag(ImGuiItemFlags_NoTabStop, m->id != current);
                    if (ImGui::Selectable(label.c_str(), m->id == current)) w::set(st, "/model", m->id);
                    ImGui::PopItemFlag();
                    ImGui::SameLine(ImGui::GetContentRegionMax().x - fs * 4.5f);
                    ImGui::TextDisabled("%s", format_params_short(m->params.total).c_str());
                    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m->hub_id.c_str());
                }
                ImGui::TreePop();
            }
        }
        if (by_family.empty()) ImGui::TextDisabled("No preset matches; fetch or paste its config.json below.");
    }
    ImGui::EndChild();

    if (st.narrow) ImGui::TreePop();
    model_source(st);
    model_breakdown(st);
}

// A model that is not a preset: fetched from the Hub, pasted, or opened from a file.
static void model_source(AppState& st) {
    const float fs = ImGui::GetFontSize();
    // Another tool's config is the quickest way in for people who already run one: said where the model
    // is chosen, not only inside the folded node below.
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(
        "Import a config you run with: paste (Ctrl+V) or drop a vllm serve line, DeepSpeed, accelerate, "
        "LLaMA-Factory, axolotl, torchtune or Hugging Face config anywhere on the page.");
    ImGui::PopTextWrapPos();
    if (st.platform->can_open_file()) {
        if (ImGui::Button("Import a config file...")) st.platform->open_file_dialog();
        ImGui::SameLine();
    }
    if (ImGui::Button(st.show_importer ? "Hide the paste box" : "Paste a config...")) st.show_importer = !st.show_importer;
    ImGui::SetNextItemOpen(st.show_importer, ImGuiCond_Always);
    if (ImGui::TreeNode("Any Hugging Face model, or a config you run with")) {
        st.show_importer = true;
        if (st.platform->can_fetch()) {
            ImGui::SetNextItemWidth(-fs * 6.5f);
            const bool enter = ImGui::InputTextWithHint("##hub", "org/model on the Hub", &st.hub_id,
                                                        ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
            ImGui::SameLine();
            if (ImGui::Button("Fetch") || enter) {
                const std::string url = st.hub_base + "/" + st.hub_id + "/resolve/main/config.json";
                set_status(st, "Fetching " + url + " ...");
                st.platform->fetch_text(url);
            }
            ImGui::SetNextItemWidth(-fs * 6.5f);
            if (ImGui::InputText("Hub URL", &st.hub_base)) st.platform->save_setting("hub_base", st.hub_base);
            GuiCheckpoint(st);
        }
        ImGui::PushTextWrapPos(0);  // wrapped: cut off at the column's edge it hid the formats it names
        ImGui::TextDisabled("Or paste a config.json, or a config you run with (vllm serve ..., DeepSpeed, LLaMA-Factory, axolotl, torchtune YAML):");
        ImGui::PopTextWrapPos();
        ImGui::InputTextMultiline("##paste", &st.pasted_config, ImVec2(-1, fs * 5));
        if (ImGui::Button("Use pasted config")) {
            bool refused = false;
            auto j = read_json_input(st, "pasted text", st.pasted_config, refused);
            if (j && j->is_object() && j->contains("model_type")) w::set(st, "/model", std::move(*j));
            else if (!refused) import_into(st, "pasted text", st.pasted_config);
        }
        if (st.platform->can_open_file()) {
            ImGui::SameLine();
            if (ImGui::Button("Open file...")) st.platform->open_file_dialog();
        }
        ImGui::PushTextWrapPos(0);
        ImGui::TextDisabled("You can also drop a config.json, a scenario or another tool's config file on the window.");
        ImGui::PopTextWrapPos();
        ImGui::TreePop();
    } else {
        st.show_importer = false;
    }
    GuiLayerStack(st);
}

void GuiHardware(AppState& st) {
    const json gpu = w::current(st, "/gpu");
    const bool custom = gpu.is_object();
    const GpuSpec* preset = gpu.is_string() ? st.catalog->find_gpu(gpu.get<std::string>()) : nullptr;
    const std::string label = preset ? preset->name + "  (" + format_gib(preset->memory_bytes, 1) + ")" : std::string("Custom GPU");
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("GPU");
    w::Help("gpu");
    ImGui::SameLine(ImGui::GetFontSize() * 9.5f);
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 0.5f);
    // The list stays inside the window (its rows are wider than a phone's combo): no wider than the
    // viewport, as tall as 20 rows at most (ImGuiComboFlags_HeightLarge's count).
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float row = ImGui::GetFrameHeightWithSpacing();
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(vp->WorkSize.x - 2 * ImGui::GetStyle().WindowPadding.x, row * 20));
    const bool open = ImGui::BeginCombo("##gpu", label.c_str());
    if (!open) name_last_item(st, "GPU selector");
    if (open) {
        w::ComboTypeahead(st);
        std::string vendor;
        for (const auto& g : st.catalog->gpus()) {
            if (g.vendor != vendor) {
                vendor = g.vendor;
                ImGui::TextDisabled("%s", vendor.c_str());
            }
            const std::string item = g.name + "  (" + format_gib(g.memory_bytes, 1) + ")##" + g.id;
            if (w::ComboRow(st, item.c_str(), preset == &g)) w::set(st, "/gpu", g.id);
        }
        ImGui::Separator();
        if (ImGui::Selectable("Custom GPU...", custom))
            w::set(st, "/gpu", json{{"name", "custom GPU"}, {"memory_gib", preset ? static_cast<double>(preset->memory_bytes) / kGiB : 48.0}});
        ImGui::EndCombo();
    }
    if (custom) {
        std::string name = w::text_at(gpu, "name", "custom GPU");
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
        if (ImGui::InputText("name", &name, ImGuiInputTextFlags_AutoSelectAll)) w::set(st, "/gpu/name", name);
        ImGui::SameLine();
        double mem = gpu.contains("memory_gib") ? w::number_at(gpu, "memory_gib", 0) : w::number_at(gpu, "memory_bytes", 0) / kGiB;
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        if (ImGui::InputDouble("GiB", &mem, 0, 0, "%.1f", ImGuiInputTextFlags_CharsScientific)) {
            st.scenario["gpu"].erase("memory_bytes");
            w::set(st, "/gpu/memory_gib", mem);
        }
    }
    w::Int(st, "GPUs", "/num_gpus");
    w::Real(st, "Target use", "/target_utilization", "%.2f");
    // The time estimate's inputs (methodology "Time"): the bill's speed line answers with them.
    w::SectionTitle("Time");
    w::Real(st, "MFU (0: published)", "/mfu", "%.2f");
    const bool training = w::current(st, "/workload") != "infer";
    const bool stack = st.results.ok && st.results.scenario.model.stack;
    // The unit the speed counts (Speed::unit): images for an image model, samples for another layer stack.
    const char* unit = stack && st.results.bill.speed ? st.results.bill.speed->unit.c_str() : "tokens";
    const std::string dataset = training ? std::string("Dataset ") + unit
                                : stack  ? std::string(unit[0] == 'i' ? "Images" : "Samples") + " to run"
                                         : std::string("Tokens to generate");
    w::Number(st, dataset.c_str(), "/dataset_tokens", "%.4g");
    if (training) w::Number(st, "Epochs", "/epochs", "%.3g");
}

}  // namespace vramcalc::ui
