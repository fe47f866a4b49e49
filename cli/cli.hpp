// What every command of the CLI shares: reading its inputs (files, stdin, flags) with the core's limits,
// printing problems and warnings, the catalog, and the command table main.cpp dispatches on.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/catalog.hpp"
#include "vramcalc/diagnostics.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::cli {

using json = nlohmann::json;

constexpr int kOk = 0;
constexpr int kBadInput = 2;

// Bad input from the command line: main() prints "error: <what>" and exits with kBadInput.
struct BadInput : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string read_file(const std::string& path);  // a file or "-" (stdin), at most kMaxInputBytes
bool file_exists(const std::string& path);
json parse_json_file(const std::string& path);    // through parse_json_text: says what is wrong
std::string dump(const json& j, int indent = 2);  // JSON out, user strings even when not UTF-8
const Catalog& catalog();
json resolve_model_arg(const json& model);  // a preset id stays; a path becomes its config

// At most this many warnings and errors are printed, then "and K more" (1 M unknown keys printed 48 MB).
constexpr std::size_t kMaxPrinted = 20;
template <class List, class Text>
void print_capped(const List& list, const char* label, Text text) {
    const std::size_t shown = std::min(list.size(), kMaxPrinted);
    for (std::size_t i = 0; i < shown; ++i) std::cerr << label << ": " << text(list[i]) << "\n";
    if (list.size() > shown) std::cerr << label << ": ... and " << list.size() - shown << " more\n";
}
void print_warnings(const std::vector<std::string>& warnings);
void print_problems(const std::vector<Problem>& errors);

// The scenario of `estimate` and `plan` (scenario_args.cpp): a SCENARIO.json, --from FILE (imported), or
// --KEY VALUE flags, flags overriding a file's keys. Warnings go to stderr; problems are printed and give
// std::nullopt. `read` receives the scenario JSON as read.
json scenario_from_flags(const std::vector<std::string>& args);
std::optional<Scenario> scenario_from_args(const std::vector<std::string>& args, const std::string& command, json* read = nullptr);

// The command table: main.cpp builds the usage text, the dispatch and the "allowed" list from it.
struct Options {
    bool json = false;      // --json
    bool markdown = false;  // --markdown (validate only)
};
using CommandFn = int (*)(const std::vector<std::string>& args, const Options& o);
struct Command {
    const char* name;
    const char* usage;  // the lines of the usage text for this command
    CommandFn run;
    bool markdown = false;  // takes --markdown
};
const std::vector<Command>& commands();

int cmd_inspect(const std::vector<std::string>& args, const Options& o);   // cmd_inspect.cpp
int cmd_presets(const std::vector<std::string>& args, const Options& o);   // cmd_inspect.cpp
int cmd_estimate(const std::vector<std::string>& args, const Options& o);  // cmd_estimate.cpp
int cmd_import(const std::vector<std::string>& args, const Options& o);    // cmd_estimate.cpp
int cmd_plan(const std::vector<std::string>& args, const Options& o);      // cmd_plan.cpp
int cmd_validate(const std::vector<std::string>& args, const Options& o);  // cmd_validate.cpp
int cmd_bench(const std::vector<std::string>& args, const Options& o);     // cmd_bench.cpp
int cmd_weights(const std::vector<std::string>& args, const Options& o);   // weights.cpp

}  // namespace vramcalc::cli
