// The model panel's layer-stack editor: a CNN, ViT or custom network as {"input", "layers"} JSON
// (core/include/vramcalc/layer_stack.hpp lists the layer types). It starts from the chosen layer-stack
// preset or the inline stack in use; "Use this stack" puts it in the scenario, whose reader reports a bad
// stack with the layer and the shapes.
#include "ui.hpp"

#include <misc/cpp/imgui_stdlib.h>  // after imgui.h (it does not include it)

namespace vramcalc::ui {

using json = nlohmann::json;
namespace w = widgets;

void GuiLayerStack(AppState& st) {
    const float fs = ImGui::GetFontSize();
    if (!ImGui::TreeNode("Layer stack (CNN, ViT, your own layers) as JSON")) return;
    const json& model = st.scenario.contains("model") ? st.scenario["model"] : json();
    const ModelPreset* preset = model.is_string() ? st.catalog->find_model(model.get<std::string>()) : nullptr;
    const bool preset_stack = preset && preset->spec.stack;
    const bool inline_stack = model.is_object() && model.contains("layers");
    if ((preset_stack || inline_stack) && ImGui::Button(preset_stack ? "Edit the chosen preset's layers" : "Edit the stack in use"))
        st.stack_text = (preset_stack ? json::parse(preset->config_json) : model).dump(1);
    ImGui::TextDisabled("{\"input\": [3, 224, 224], \"layers\": [{\"type\": \"conv2d\", \"out_channels\": 64, ...}, ...]}");
    ImGui::InputTextMultiline("##stack", &st.stack_text, ImVec2(-1, fs * 10));
    if (ImGui::Button("Use this stack")) {
        json j = json::parse(st.stack_text, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("layers"))
            set_status(st, "A layer stack is a JSON object with \"input\" (the per-sample shape) and \"layers\".", true);
        else w::set(st, "/model", std::move(j));
    }
    ImGui::TreePop();
}

}  // namespace vramcalc::ui
