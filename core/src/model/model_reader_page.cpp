// The model readers on the page (config_reader.hpp): the answers of its model reader module, kept per
// config or stack text, name and field prefix (the same config read as an RLHF role names other fields in
// its errors). The module tells a stack from a config as the scenario reader does (is_layer_stack_json).
// An answer is a spec of a few hundred numbers (a stack's: each layer's); a page sees a handful of models.
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
    std::set<std::string> asked;       // asked for, not answered yet
    std::vector<ModelRequest> to_ask;  // not handed to the platform yet
};

Answers& answers() {
    static Answers a;
    return a;
}

// The kept answer for this text, or an error saying it is being read (and the request, the first time).
Result<ModelSpec> answer_for(std::string text, const std::string& name, const std::string& field_prefix) {
    std::string key = field_prefix + '\n' + name + '\n' + text;
    Answers& a = answers();
    if (auto it = a.answered.find(key); it != a.answered.end()) return it->second;
    if (a.asked.insert(key).second) a.to_ask.push_back({key, std::move(text), name, field_prefix});
    Result<ModelSpec> r;
    r.errors.push_back({field_prefix, std::string(kModelBeingRead)});
    return r;
}

std::string compact(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace

namespace detail {

Result<ModelSpec> read_model_config(const nlohmann::json& config, const std::string& name, const std::string& field_prefix) {
    return answer_for(compact(config), name, field_prefix);
}

Result<ModelSpec> read_layer_stack_model(const nlohmann::json& stack, const std::string& name, const std::string& field_prefix) {
    return answer_for(compact(stack), name, field_prefix);
}

Result<ModelSpec> read_layer_stack_text(std::string_view text, const std::string& name, const std::string& field_prefix) {
    return answer_for(std::string(text), name, field_prefix);
}

bool reads_models_itself() { return false; }

}  // namespace detail

std::vector<ModelRequest> take_model_requests() { return std::exchange(answers().to_ask, {}); }

void answer_model_request(const std::string& key, std::string_view answer) {
    Answers& a = answers();
    a.asked.erase(key);
    a.answered[key] = model_result_from_json(parse_json_or_discarded(answer));
}

}  // namespace vramcalc
