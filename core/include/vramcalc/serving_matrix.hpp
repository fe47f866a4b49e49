// Serving: context length x concurrency. For each context length (1k, 2k, 4k, ... up to the model's
// limit) the most sequences of that length the engine serves at once on the scenario's GPU, and for a
// row of concurrencies (1, 2, 4, ... 256) whether they fit. vLLM: sequences its KV pool holds (capped by
// max_num_seqs) with max_model_len = the context; llama.cpp: slots of n_ctx = concurrency x context cells;
// the torch engines: the batch within target_utilization. See docs/methodology.md, "Serving matrix".
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vramcalc/scenario.hpp"

namespace vramcalc {

struct ServingMatrix {
    std::vector<std::int64_t> contexts;         // tokens per sequence (prompt + generated)
    std::vector<std::int64_t> concurrency;      // the columns: 1, 2, 4, ... 256
    std::vector<std::int64_t> max_concurrency;  // per context: the most sequences at once (0: not even one)
    bool empty() const { return contexts.empty(); }
};

// Empty for training scenarios and models known only by their parameter count.
ServingMatrix serving_matrix(const Scenario& s);

// {"contexts": [...], "concurrency": [...], "max_concurrency": [...], "fits": [[bool per concurrency] per context]}
nlohmann::json serving_matrix_to_json(const ServingMatrix& m);

}  // namespace vramcalc
