// Internal: the inference bill (weights in their stored format, KV cache, engine working memory) for
// transformers `generate`, LitGPT/torchtune static caches, vLLM's block pool and llama.cpp's offload,
// with tensor and layer parallelism. Formulas and sources: docs/methodology.md, "Inference".
#pragma once

#include <cstdint>
#include <string>

#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// What PyTorch adds around the tensors it hands out (estimate.cpp owns these figures).
struct TorchOverheads {
    double (*reserved_from_allocated)(double allocated) = nullptr;
    double context_bytes = 0;
    std::string context_detail;
};

// Fills `b` (components, peaks, device bytes, fits, KV pool) for an inference scenario.
void inference(const Scenario& s, Bill& b, const TorchOverheads& o);

// KV-cache element bytes for the scenario's kv_dtype and engine (q8_0/q4_0: ggml blocks).
double kv_element_bytes(const Scenario& s);

// KV bytes one GPU holds per token of one sequence, summed over its layers, for `tokens` tokens
// (sliding-window layers stop at their window where the engine exploits it).
double kv_bytes_for_tokens(const Scenario& s, double tokens);

// The common rule of thumb for the scenario (both workloads).
void rule_of_thumb(const Scenario& s, Bill& b);

// Solvers: the most sequences of prompt_len + gen_len at once, and the longest prompt_len + gen_len at
// `batch`, on the scenario's GPU. `once` computes a bill without solvers.
struct InferenceLimits {
    std::int64_t max_concurrent_sequences = 0;
    std::int64_t max_context = 0;
};
InferenceLimits inference_limits(const Scenario& s, Bill (*once)(const Scenario&));

}  // namespace vramcalc::detail
