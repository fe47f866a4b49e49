// The model readers where the program carries them (config_reader.hpp).
#include "model/config_reader.hpp"

#include "vramcalc/hf_config.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc::detail {

Result<ModelSpec> read_model_config(const nlohmann::json& config, const std::string& name, const std::string& field_prefix) {
    return model_from_config(config, name, field_prefix);
}

Result<ModelSpec> read_layer_stack_model(const nlohmann::json& stack, const std::string& name, const std::string& field_prefix) {
    return model_from_layer_stack_json(stack, name, field_prefix);
}

Result<ModelSpec> read_layer_stack_text(std::string_view text, const std::string& name, const std::string& field_prefix) {
    return read_layer_stack_model(parse_json_or_discarded(text), name, field_prefix);
}

bool reads_models_itself() { return true; }

}  // namespace vramcalc::detail
