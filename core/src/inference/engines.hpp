// Internal: the inference engines. Each fills one GPU's bill for a scenario (weights placed by the
// engine, its KV cache and working memory) and closes it (peak figures, device bytes, verdict).
#pragma once

#include "formats/weight_formats.hpp"
#include "vramcalc/bill.hpp"
#include "vramcalc/scenario.hpp"

namespace vramcalc::detail {

// transformers generate, LitGPT and torchtune (and DeepSpeed/Megatron run as transformers).
void torch_engine(const Scenario& s, Bill& b, const WeightBytes& w);
// vLLM: weights + profiled activation peak; the rest of gpu_memory_utilization is the KV block pool.
void vllm_engine(const Scenario& s, Bill& b, const WeightBytes& w);
// llama.cpp: ggml buffers for the GPU layers, KV for n_ctx cells, the compute buffer; CPU layers to cpu_bytes.
void llamacpp_engine(const Scenario& s, Bill& b, const WeightBytes& w);

// A layer-stack model (ModelSpec::stack) in plain PyTorch: weights + the forward's live tensors x batch.
void stack_engine(const Scenario& s, Bill& b);

// Working memory of one layer's forward over `T` tokens with no autograd (prompt: tokens per sequence).
double layer_forward_bytes(const Scenario& s, double T, double prompt, double c, double tp);

}  // namespace vramcalc::detail
