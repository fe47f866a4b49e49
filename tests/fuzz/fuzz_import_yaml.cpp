// Fuzz target: any text -> import_config (YAML/JSON settings files; a text that names vllm, sglang or llama.cpp
// goes to the command-line importer, fuzz_command_line). Any input must give a scenario or errors within the
// node, depth and size limits (never a crash, a throw, UB, or a walk that expands aliases without bound), and
// an import's report accounts for every key it read or ignored.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    vramcalc::fuzz::check_import(vramcalc::import_config(text, vramcalc::fuzz::catalog()));
    return 0;
}
