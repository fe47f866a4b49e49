// Test-side helpers: reading tests/data (file I/O stays out of the core).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "vramcalc/estimate.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc/scenario_json.hpp"

namespace vramcalc::test {

inline std::string data_path(const std::string& name) { return std::string(VRAMCALC_TEST_DATA) + "/" + name; }

inline nlohmann::json load_json(const std::string& name) {
    std::ifstream f(data_path(name), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return nlohmann::json::parse(ss.str(), nullptr, false);
}

inline const Catalog& catalog() { return *builtin_catalog().value; }

// A model preset's spec (the test fails when the id is unknown).
inline ModelSpec preset(const char* id) {
    const ModelPreset* p = catalog().find_model(id);
    REQUIRE(p);
    return p->spec;
}

// A scenario the test expects to be valid (the problems are printed when it is not).
inline Scenario scenario(const nlohmann::json& j) {
    auto r = scenario_from_json(j, catalog());
    INFO(r.error_text());
    REQUIRE(r.ok());
    return *r.value;
}

// The bill of a scenario given as JSON text the test expects to be valid.
inline Bill bill(const std::string& text) {
    auto r = scenario_from_text(text, catalog());
    INFO(r.error_text());
    REQUIRE(r.ok());
    return estimate(*r);
}

}  // namespace vramcalc::test
