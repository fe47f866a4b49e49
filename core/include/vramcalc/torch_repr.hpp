// A PyTorch module repr (the text `print(model)` prints) -> a layer-stack JSON (layer_stack.hpp), for
// sequential-style models, with a report of what the repr cannot tell (forward's residual adds and
// branches, functional calls, modules used twice, modules with no layer type here). A convenience: the
// stack it gives is meant to be checked and edited before use.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/diagnostics.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

struct ReprImport {
    nlohmann::json stack;            // {"input": input, "layers": [...]}, leaves in print order
    std::vector<std::string> notes;  // what could not be inferred (also the Result's warnings)
};

// `input`: the per-sample input shape (the repr does not say it), e.g. {3, 224, 224}.
Result<ReprImport> layer_stack_from_torch_repr(std::string_view text, const std::vector<i64>& input);

// The conversion as JSON, for a UI that gets it from another module (the page's importer):
// {"ok": true, "stack": {...}, "notes": [...]} or {"ok": false, "errors": [{"field", "message"}]}.
nlohmann::json repr_answer(const Result<ReprImport>& result);

}  // namespace vramcalc
