// read_model_config where the program carries the config.json reader (config_reader.hpp).
#include "model/config_reader.hpp"

#include "vramcalc/hf_config.hpp"

namespace vramcalc::detail {

Result<ModelSpec> read_model_config(const nlohmann::json& config, const std::string& name, const std::string& field_prefix) {
    return model_from_config(config, name, field_prefix);
}

}  // namespace vramcalc::detail
