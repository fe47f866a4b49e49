// The model panel's layer-stack editor: a CNN, ViT or custom network as {"input", "layers"} JSON
// (core/include/vramcalc/layer_stack.hpp lists the layer types). It starts from the chosen layer-stack
// preset or the inline stack in use; "Use this stack" puts it in the scenario, whose reader reports a bad
// stack with the layer and the shapes.
#include "ui.hpp"
#include "vramcalc/json_text.hpp"

#include <algorithm>
#include <charconv>

#include <misc/cpp/imgui_stdlib.h>  // after imgui.h (it does not include it)

namespace vramcalc::ui {

using json = nlohmann::json;
namespace w = widgets;

namespace {

// "3, 224, 224" -> {3, 224, 224} (empty when a size is not a positive integer). No std::stringstream:
// it alone put the iostreams' locale machinery into the page (about 25 KB gzip of wasm).
std::vector<i64> shape_of(const std::string& text) {
    std::vector<i64> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        size_t a = start, b = comma;
        while (a < b && text[a] == ' ') ++a;
        while (b > a && text[b - 1] == ' ') --b;
        long long v = 0;
        const auto [end, ec] = std::from_chars(text.data() + a, text.data() + b, v);
        if (ec != std::errc() || end != text.data() + b || a == b || v < 1) return {};
        out.push_back(v);
        start = comma + 1;
    }
    return out;
}

// A pasted print(model) -> the editor's JSON, with what could not be inferred listed below it.
void repr_paste(AppState& st) {
    const float fs = ImGui::GetFontSize();
    ImGui::TextDisabled("Or paste a PyTorch print(model) (sequential-style models):");
    ImGui::InputTextMultiline("##repr", &st.repr_text, ImVec2(-1, fs * 5));
    ImGui::SetNextItemWidth(fs * 8);
    ImGui::InputText("input shape per sample", &st.repr_input);
    if (ImGui::Button("Convert to layers")) {
        const std::vector<i64> shape = shape_of(st.repr_input);
        if (shape.empty()) {
            set_status(st, "The input shape is a list of positive sizes, e.g. 3, 224, 224.", true);
        } else {
            set_status(st, "Converting (loading the converter)...");  // the desktop's answer replaces it at once
            if (!st.platform->convert_repr(st.repr_text, json(shape).dump()))
                set_status(st, "This build does not convert print(model) (the CLI's vramcalc does)", true);
        }
    }
    for (const auto& n : st.repr_notes) ImGui::TextWrapped("- %s", n.c_str());
}

}  // namespace

void repr_answered(AppState& st, const json& answer) {
    if (!answer.is_object() || !answer.value("ok", false)) {
        set_status(st, "print(model): " + answer_errors(answer, "the converter gave no answer"), true);
        return;
    }
    st.stack_text = answer["stack"].dump(1);
    st.repr_notes = answer.value("notes", std::vector<std::string>());
    set_status(st, "Converted: check the layers above, then \"Use this stack\".");
}

void GuiLayerStack(AppState& st) {
    const float fs = ImGui::GetFontSize();
    if (!ImGui::TreeNode("Layer stack (CNN, ViT, your own layers) as JSON")) return;
    const json& model = st.scenario.contains("model") ? st.scenario["model"] : json();
    const ModelPreset* preset = model.is_string() ? st.catalog->find_model(model.get<std::string>()) : nullptr;
    const bool preset_stack = preset && preset->layer_stack;
    const bool inline_stack = model.is_object() && model.contains("layers");
    if ((preset_stack || inline_stack) && ImGui::Button(preset_stack ? "Edit the chosen preset's layers" : "Edit the stack in use"))
        st.stack_text = (preset_stack ? parse_json_or_discarded(preset->config_json) : model).dump(1);
    ImGui::TextDisabled("{\"input\": [3, 224, 224], \"layers\": [{\"type\": \"conv2d\", \"out_channels\": 64, ...}, ...]}");
    ImGui::InputTextMultiline("##stack", &st.stack_text, ImVec2(-1, fs * 10));
    if (ImGui::Button("Use this stack")) {
        bool refused = false;
        auto j = read_json_input(st, "The layer stack", st.stack_text, refused);
        if (refused) {
            // read_json_input said why on the status line
        } else if (!j || !j->is_object() || !j->contains("layers"))
            set_status(st, "A layer stack is a JSON object with \"input\" (the per-sample shape) and \"layers\".", true);
        else w::set(st, "/model", std::move(*j));
    }
    repr_paste(st);
    ImGui::TreePop();
}

}  // namespace vramcalc::ui
