// Memory against the batch and against the sequence length, for the charts of the page and the desktop
// app: each point is the estimator's device bytes for the scenario with that one value changed.
#pragma once

#include <cstdint>
#include <vector>

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc {

struct CurvePoint {
    std::int64_t x = 0;             // micro_batch / batch, or seq_len / prompt_len
    std::int64_t device_bytes = 0;  // per GPU
    bool past_model_limit = false;  // a length beyond the model's max_position_embeddings
};

struct MemoryCurves {
    std::vector<CurvePoint> by_batch;   // doubling from 1, with the scenario's own value
    std::vector<CurvePoint> by_length;  // doubling from 256 up to the model's position limit, own value included
    bool train = true;                  // x is micro_batch / seq_len (train) or batch / prompt_len (infer)
};

// `bill`: the scenario's own bill (its solver answers size the batch axis).
MemoryCurves memory_curves(const Scenario& s, const Bill& bill);

}  // namespace vramcalc
