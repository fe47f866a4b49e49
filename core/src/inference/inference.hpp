// Internal: the inference bill (weights in their stored format, KV cache, engine working memory) for
// transformers `generate`, LitGPT/torchtune static caches, vLLM's block pool and llama.cpp's offload,
// with tensor and layer parallelism. Formulas and sources: docs/methodology.md, "Inference".
#pragma once

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// Fills `b` (components, peaks, device bytes, fits, KV pool) for an inference scenario.
void inference(const Scenario& s, Bill& b);

}  // namespace vramcalc::detail
