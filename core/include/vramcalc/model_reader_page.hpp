// The page's side of its model reader module (model/config_reader.hpp says why the page has one): each
// config.json a scenario names is read by the module once, and the page keeps the answer. Until it has
// arrived, reading the scenario reports the model as being read (an error of the "model" field that says
// so), and the platform asks the module (web/main_web.cpp, shell/page.js).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vramcalc {

struct ModelRequest {
    std::string key;     // names the answer (answer_model_request)
    std::string config;  // the config.json, compact
    std::string name;    // model_from_config's arguments
    std::string field_prefix;
};

// The configs asked for since the last call, each once.
std::vector<ModelRequest> take_model_requests();
// `answer`: model_result_to_json's text (model_spec_json.hpp); a module that did not load answers with its
// errors only (the config then reads as that error until the page is reloaded).
void answer_model_request(const std::string& key, std::string_view answer);
// Whether a config is still being read (the page shows that it waits).
bool model_requests_pending();

}  // namespace vramcalc
