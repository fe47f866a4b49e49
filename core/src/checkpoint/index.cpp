// model.safetensors.index.json (transformers' sharded checkpoints, modeling_utils save_pretrained):
// {"metadata": {"total_size": <bytes of all tensors>}, "weight_map": {"<tensor>": "<shard file>"}}.
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "vramcalc/checkpoint.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc {
namespace {

// A shard is a file beside the index: transformers names them "model-00001-of-00004.safetensors"
// (modeling_utils.py save_pretrained, SAFE_WEIGHTS_PATTERN). Letters, digits and "._-+" only, not starting
// with a dot: a slash or a backslash would leave the folder (the page resolved a backslashed name to
// another Hub repository), ":", "?", "#" and "%" change what a URL names. Another index is no shard: it would be read
// in its place, and an index naming itself was read forever (issue 42).
std::string shard_name_error(const std::string& f) {
    if (f.empty()) return "is empty";
    if (f.size() > 255) return "is longer than 255 characters";
    if (f.front() == '.') return "starts with a dot";
    for (char c : f) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                        c == '-' || c == '+';
        if (!ok) return "holds a character other than letters, digits and . _ - + (a shard is a file in the index's own folder)";
    }
    if (f.size() >= 11 && f.ends_with(".index.json")) return "names an index, not a shard (an index lists .safetensors files)";
    return "";
}

}  // namespace

Result<SafetensorsIndex> read_safetensors_index(std::string_view text) {
    Result<SafetensorsIndex> r;
    const auto j = parse_json_or_discarded(text);
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
        const std::string why = file.is_string() ? shard_name_error(file.get<std::string>()) : "is not a string";
        if (!why.empty()) {
            r.errors.push_back({"index.weight_map." + tensor, "must name a shard file in the same folder; " +
                                                                  file.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + " " + why});
            return r;
        }
        if (seen.insert(file.get<std::string>()).second) ix.shards.push_back(file.get<std::string>());
    }
    if (j.contains("metadata") && j["metadata"].is_object() && j["metadata"].contains("total_size")) {
        // Bounded at 2^53 B (8 PiB): 2^63 and 2^64 - 1 read as negative through int64 (issue 42).
        constexpr double kMaxTotal = 9007199254740992.0;
        const auto& t = j["metadata"]["total_size"];
        if (t.is_number_unsigned() && t.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxTotal))
            ix.total_size = static_cast<std::int64_t>(t.get<std::uint64_t>());
        else if (t.is_number_float() && t.get<double>() >= 0 && t.get<double>() <= kMaxTotal)
            ix.total_size = static_cast<std::int64_t>(t.get<double>());
        else r.warnings.push_back("index.metadata.total_size is not a byte count up to 2^53 (" + t.dump() + "): ignored");
    }
    r.value = std::move(ix);
    return r;
}

}  // namespace vramcalc
