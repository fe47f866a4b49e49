// The inference bill. One GPU's share of weights (weight_formats.cpp) and KV cache, plus the working
// memory of the engine that runs them:
//  - hf (transformers generate, DynamicCache), litgpt and torchtune (static caches): PyTorch tensors,
//    peak = max(prefill, last decode step), then the caching allocator and the CUDA context;
//  - vllm: weights + profiled activation peak, the rest of gpu_memory_utilization x memory becomes the
//    KV block pool, CUDA graphs on top;
//  - llama.cpp: ggml buffers (no caching allocator): GPU layers, KV for n_ctx cells, compute buffer;
//    the layers left on the CPU go to cpu_bytes.
// Sources next to each rule and in docs/methodology.md ("Inference").
#include "inference/inference.hpp"

#include <string>

#include "bill/lines.hpp"
#include "common/format.hpp"
#include "formats/weight_formats.hpp"
#include "inference/engines.hpp"
#include "runtime/runtime.hpp"

namespace vramcalc::detail {

void inference(const Scenario& s, Bill& b) {
    const ModelSpec& m = s.model;
    if (m.count_only) {
        const double bytes = static_cast<double>(count_parameters(m).total) * nominal_bytes_per_param(s.weights);
        add_line(b, "weights", bytes, "parameter count x " + whole(nominal_bytes_per_param(s.weights) * 8) + " bits");
        b.warnings.push_back("the KV cache and activations need the model's shapes: give a config.json");
        close_torch_bill(b);
        return;
    }
    if (m.stack) {
        stack_engine(s, b);
        return;
    }
    bool ok = true;
    const WeightBytes w = weight_bytes(m, s.weights, s.group_size, &ok);
    if (!ok) b.warnings.push_back("weights format \"" + s.weights + "\" has no byte rule: counted at 16 bit");
    if (is_gguf(s.weights) && s.framework != Framework::llamacpp)
        b.warnings.push_back("GGUF files are llama.cpp's format: set framework \"llama.cpp\"");
    if (m.arch == Arch::encoder_decoder)
        b.warnings.push_back("encoder-decoder inference: the cross-attention cache is not modelled yet");
    if (s.framework == Framework::vllm) vllm_engine(s, b, w);
    else if (s.framework == Framework::llamacpp) llamacpp_engine(s, b, w);
    else torch_engine(s, b, w);
}

}  // namespace vramcalc::detail
