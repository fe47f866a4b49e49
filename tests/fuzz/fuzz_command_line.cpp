// Fuzz target: a launch script -> the command-line importers (vllm, sglang, llama.cpp). The input is put after
// one of the three programs, so that every input reaches the shell splitter and a flag table: quotes, escapes,
// continuations, separators and repeated or out-of-range flags must give a scenario or errors, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const char* const kPrograms[] = {"vllm serve ", "python -m sglang.launch_server ", "llama-server "};
    const std::string program = size == 0 ? kPrograms[0] : kPrograms[data[0] % 3];
    const std::string text = program + std::string(reinterpret_cast<const char*>(data) + (size ? 1 : 0), size ? size - 1 : 0);
    const auto r = vramcalc::import_config(text, vramcalc::fuzz::catalog());
    vramcalc::fuzz::check_import(r);
    return 0;
}
