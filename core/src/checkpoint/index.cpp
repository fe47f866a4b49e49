// model.safetensors.index.json (transformers' sharded checkpoints, modeling_utils save_pretrained):
// {"metadata": {"total_size": <bytes of all tensors>}, "weight_map": {"<tensor>": "<shard file>"}}.
#include <nlohmann/json.hpp>
#include <set>

#include "vramcalc/checkpoint.hpp"

namespace vramcalc {

Result<SafetensorsIndex> read_safetensors_index(std::string_view text) {
    Result<SafetensorsIndex> r;
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        r.errors.push_back({"index", "not a JSON object (expected model.safetensors.index.json)"});
        return r;
    }
    if (!j.contains("weight_map") || !j["weight_map"].is_object() || j["weight_map"].empty()) {
        r.errors.push_back({"index.weight_map", "missing or empty: an index maps each tensor name to its shard file"});
        return r;
    }
    SafetensorsIndex ix;
    std::set<std::string> seen;
    for (const auto& [tensor, file] : j["weight_map"].items()) {
        if (!file.is_string() || file.get<std::string>().empty() || file.get<std::string>().find('/') != std::string::npos) {
            r.errors.push_back({"index.weight_map." + tensor, "must name a shard file in the same folder, got " + file.dump()});
            return r;
        }
        if (seen.insert(file.get<std::string>()).second) ix.shards.push_back(file.get<std::string>());
    }
    if (j.contains("metadata") && j["metadata"].is_object() && j["metadata"].contains("total_size")) {
        const auto& t = j["metadata"]["total_size"];
        if (t.is_number_unsigned()) ix.total_size = t.get<std::int64_t>();
        else if (t.is_number_float() && t.get<double>() >= 0 && t.get<double>() < 9e18) ix.total_size = static_cast<std::int64_t>(t.get<double>());
        else r.warnings.push_back("index.metadata.total_size is not a byte count (" + t.dump() + "): ignored");
    }
    r.value = std::move(ix);
    return r;
}

}  // namespace vramcalc
