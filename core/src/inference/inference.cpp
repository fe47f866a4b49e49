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
#include "model/framework_layout.hpp"
#include "runtime/runtime.hpp"

namespace vramcalc::detail {
namespace {

// The checkpoint's own byte count (its safetensors or GGUF headers, checkpoint/) replaces the count from
// the config; where the bytes sit (embedding, each layer, head) keeps the shares of that count, which the
// engines need to place layers.
void from_checkpoint(WeightBytes& w, double bytes, Bill& b) {
    const double counted = w.total();
    const double k = counted > 0 ? bytes / counted : 0;
    if (counted > 0 && (k < 0.5 || k > 2))
        b.warnings.push_back("the checkpoint holds " + gib(bytes) + " of weights but the config and weights format count " + gib(counted) +
                             ": is it the same model and format?");
    w.input *= k;
    w.output *= k;
    for (double& l : w.layers) l *= k;
    w.detail = "as the checkpoint's headers state (" + gib(bytes) + "; the config counts " + gib(counted) + ")";
}

}  // namespace

void inference(const Scenario& s, Bill& b) {
    const ModelSpec& m = s.model;
    if (m.count_only) {
        const double bytes = s.checkpoint_bytes > 0 ? static_cast<double>(s.checkpoint_bytes)
                                                    : static_cast<double>(count_parameters(m).total) * nominal_bytes_per_param(s.weights);
        add_line(b, "weights", bytes, s.checkpoint_bytes > 0 ? "as the checkpoint's headers state" : "parameter count x " + whole(nominal_bytes_per_param(s.weights) * 8) + " bits");
        b.warnings.push_back("the KV cache and activations need the model's shapes: give a config.json");
        close_torch_bill(b);
        return;
    }
    if (m.stack) {
        stack_engine(s, b);
        return;
    }
    bool ok = true;
    // LitGPT builds its own layout (an lm_head of its own even where the checkpoint ties it,
    // model/framework_layout.cpp), and Lightning's BitsandbytesPrecision, as LitGPT's generate scripts
    // create it (no ignore_modules), quantises every nn.Linear, lm_head included.
    const bool litgpt = s.framework == Framework::litgpt;
    WeightBytes w = litgpt ? weight_bytes(litgpt_layout(m), s.weights, s.group_size, &ok, is_bnb(s.weights))
                           : weight_bytes(m, s.weights, s.group_size, &ok);
    if (!ok && s.checkpoint_bytes == 0) b.warnings.push_back("weights format \"" + s.weights + "\" has no byte rule: counted at 16 bit");
    if (s.checkpoint_bytes > 0) from_checkpoint(w, static_cast<double>(s.checkpoint_bytes), b);
    if (is_gguf(s.weights) && s.framework != Framework::llamacpp)
        b.warnings.push_back("GGUF files are llama.cpp's format: set framework \"llama.cpp\"");
    if (m.arch == Arch::encoder_decoder)
        b.warnings.push_back("encoder-decoder inference: the cross-attention cache is not modelled yet");
    if (s.framework == Framework::vllm) vllm_engine(s, b, w);
    else if (s.framework == Framework::llamacpp) llamacpp_engine(s, b, w);
    else torch_engine(s, b, w);
}

}  // namespace vramcalc::detail
