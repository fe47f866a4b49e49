#include "converters.hpp"

#include <nlohmann/json.hpp>

#include "vramcalc/torch_repr.hpp"

namespace vramcalc::desktop {

std::string convert_repr_answer(const std::string& text, const std::string& input_json) {
    const nlohmann::json in = nlohmann::json::parse(input_json, nullptr, false);
    std::vector<i64> shape;
    if (in.is_array())
        for (const auto& d : in)
            if (d.is_number_integer()) shape.push_back(d.get<i64>());
    return repr_answer(layer_stack_from_torch_repr(text, shape)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vramcalc::desktop
