// The page's side of its model reader module (model/config_reader.hpp says why the page has one): each
// config.json or layer stack a scenario names is read by the module once, and the page keeps the answer.
// Until it has arrived, reading the scenario reports the model as being read (an error of the "model" field
// that says so), and the platform asks the module (web/main_web.cpp, shell/page.js).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vramcalc {

// The message of the "model" field while the module reads it: the UI shows it as progress, not as an error.
inline constexpr std::string_view kModelBeingRead = "reading this model (the model reader is loading)...";

struct ModelRequest {
    std::string key;     // names the answer (answer_model_request)
    std::string config;  // the config.json or layer stack, compact
    std::string name;    // model_from_config's arguments
    std::string field_prefix;
};

// The configs asked for since the last call, each once.
std::vector<ModelRequest> take_model_requests();
// `answer`: model_result_to_json's text (model_spec_json.hpp); a module that did not load answers with its
// errors only (the config then reads as that error until the page is reloaded).
void answer_model_request(const std::string& key, std::string_view answer);

}  // namespace vramcalc
