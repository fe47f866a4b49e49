// `vramcalc weights FILE...`: exact weight bytes from checkpoint headers (core checkpoint.hpp).
#pragma once

#include <string>
#include <vector>

namespace vramcalc::cli {

// Safetensors files, a model.safetensors.index.json (its shards are read from the same folder), a folder
// holding either, or GGUF files. Prints bytes per dtype and the scenario's `checkpoint_bytes`. Returns the
// process exit code (0, or 2 with the error on stderr).
int cmd_weights(const std::vector<std::string>& paths, bool as_json);

}  // namespace vramcalc::cli
