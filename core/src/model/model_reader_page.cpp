// read_model_config on the page (config_reader.hpp): the answers of its model reader module, kept per
// config text, name and field prefix (the same config read as an RLHF role names other fields in its
// errors). An answer is small (a spec of a few hundred numbers); a page sees a handful of configs.
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "model/config_reader.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/model_reader_page.hpp"
#include "vramcalc/model_spec_json.hpp"

namespace vramcalc {
namespace {

struct Answers {
    std::map<std::string, Result<ModelSpec>> answered;
    std::set<std::string> asked;            // asked for, not answered yet
    std::vector<ModelRequest> to_ask;       // not handed to the platform yet
};

Answers& answers() {
    static Answers a;
    return a;
}

}  // namespace

namespace detail {

Result<ModelSpec> read_model_config(const nlohmann::json& config, const std::string& name, const std::string& field_prefix) {
    std::string text = config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string key = field_prefix + '\n' + name + '\n' + text;
    Answers& a = answers();
    if (auto it = a.answered.find(key); it != a.answered.end()) return it->second;
    if (a.asked.insert(key).second) a.to_ask.push_back({key, std::move(text), name, field_prefix});
    Result<ModelSpec> r;
    r.errors.push_back({field_prefix, "reading this config.json (the model reader is loading)..."});
    return r;
}

}  // namespace detail

std::vector<ModelRequest> take_model_requests() { return std::exchange(answers().to_ask, {}); }

void answer_model_request(const std::string& key, std::string_view answer) {
    Answers& a = answers();
    a.asked.erase(key);
    a.answered[key] = model_result_from_json(parse_json_or_discarded(answer));
}

bool model_requests_pending() { return !answers().asked.empty(); }

}  // namespace vramcalc
