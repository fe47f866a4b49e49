// What backward materialises layer by layer: the attention core that selective recomputation runs again, and
// the gradients that appear one layer at a time (an encoder-decoder's two stacks included).
#include <catch2/catch.hpp>

#include <string>

#include "test_data.hpp"
#include "training/activations.hpp"
#include "vramcalc/estimate.hpp"

namespace {
namespace unit_backward {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using namespace vramcalc::detail;

namespace {

using test::bill;

// StableLM-Base-Alpha 3B, LoRA on a frozen bf16 base, eager attention, one sequence of 4096 tokens on a V100-16GB.
std::string stablelm_eager(const char* checkpointing) {
    return std::string(R"({"model": "stablelm-base-alpha-3b", "gpu": "v100-16gb", "method": "lora", "precision": "bf16",
        "attention": "eager", "micro_batch": 1, "seq_len": 4096, "checkpointing": ")") +
           checkpointing + "\"}";
}

}  // namespace

TEST_CASE("backward: selective recomputation bills one layer's attention core again in backward") {
    const ModelSpec m = test::preset("stablelm-base-alpha-3b");
    ActivationSetup a;  // bf16 compute and residual stream, eager attention (the attention core does not depend on LoRA)
    a.attention = Attention::eager;
    const double b = 1, s = 4096, L = 16;
    REQUIRE(m.layers == 16);
    const double core = attention_core_bytes(layer_saved_tensors(m, a), b, s);
    // GPT-NeoX eager attention, 32 heads of 128, one fused query_key_value with rotary embeddings and as many KV
    // heads as query heads: per token the fused output's q and k parts kept alive by the saved v view (2 x 8192 B),
    // q and k for the scores matmul (2 x 8192 B), v (2 x 4096 B); per token and key the fp32 softmax output and its
    // bf16 cast for probs @ v (32 x (4 + 2) B). activations.cpp Layer::attention.
    const double per_token = 2 * 8192 + 2 * 8192 + 2 * 4096, per_key = 32 * (4 + 2);
    CHECK(core == (per_token + per_key * s) * b * s);
    CHECK(core == 3388997632.0);  // 3.16 GiB: the scores dominate at 4096 tokens

    const Bill none = bill(stablelm_eager("none"));
    const Bill selective = bill(stablelm_eager("selective"));
    const Bill full = bill(stablelm_eager("full"));
    // While the last layer runs backward every layer's saved tensors are still held. Selective keeps no attention
    // core but rebuilds that layer's there (Korthikanti et al. 2022, Sec. 5), so at that point of the step it is
    // below no checkpointing by exactly the other L - 1 layers' cores, never by all L of them. (Before the
    // recomputed core was billed, selective showed 14.93 GiB on this card: "fits".)
    auto last_layer_backward = [](const Bill& x) {
        std::size_t i = 0;
        while (i < x.timeline.size() && x.timeline[i].phase != "backward") ++i;  // the loss's backward
        REQUIRE(i + 1 < x.timeline.size());
        REQUIRE(x.timeline[i + 1].phase == "backward");
        return static_cast<double>(x.timeline[i + 1].bytes);
    };
    CHECK(last_layer_backward(none) - last_layer_backward(selective) == Approx((L - 1) * core).margin(2));
    REQUIRE(selective.peak_phase == "backward");
    CHECK(static_cast<double>(selective.component("temporaries")) >= core);
    // Full checkpointing keeps only each layer's input and recomputes one whole layer (its core included), so it
    // can never need more than selective, which keeps more of every layer and recomputes only the core.
    CHECK(full.peak_allocated_bytes <= selective.peak_allocated_bytes);
    // 16 layers' non-core tensors + one recomputed core + the 3.6B frozen bf16 weights: 13.96 GiB allocated, and with
    // the V100's eager CUDA context (1.31 GiB) 15.33 GiB of the card's 15.78 GiB needed: it runs, above the target.
    // Before the recomputed core was billed it showed 1.3 GiB less. Full checkpointing needs less still.
    CHECK(static_cast<double>(selective.peak_allocated_bytes) / (1 << 30) == Approx(13.96).margin(0.01));
    CHECK(static_cast<double>(selective.needed_bytes) / (1 << 30) == Approx(15.33).margin(0.01));
    CHECK(verdict_of(selective) == Verdict::fits_above_target);
    CHECK(full.needed_bytes < selective.needed_bytes);
}

TEST_CASE("backward: an encoder-decoder's gradients never exceed its parameters' worth") {
    // mT0-XXL: 24 encoder + 24 decoder layers. The step walks both stacks in backward; each layer adds its share
    // of the stacks' gradients, so with grad_accum 1 and zero_grad(set_to_none) they reach all trainable
    // parameters' gradients at the end of backward (PyTorch autograd accumulates .grad per parameter as the
    // layer's backward runs), never more. fp32 model under autocast: 4 B per gradient.
    const char* base = R"({"model": "mt0-xxl", "gpu": "a100-80gb", "precision": "bf16-mixed", "micro_batch": 8,
        "seq_len": 64)";
    const char* variants[] = {R"(, "method": "full")", R"(, "method": "full", "adamw_impl": "fused")",
                              R"(, "method": "full", "optimizer": "sgd")", R"(, "method": "lora")",
                              R"(, "method": "freeze", "trainable_layers": 2)"};
    for (const char* v : variants) {
        const Bill one = bill(std::string(base) + v + R"(, "grad_accum": 1})");
        const Bill four = bill(std::string(base) + v + R"(, "grad_accum": 4})");
        INFO(v << ": grad_accum 1 " << one.component("gradients") << " B of gradients, " << one.peak_allocated_bytes
               << " B allocated; grad_accum 4 " << four.peak_allocated_bytes << " B");
        // 4 B per trainable parameter: fp32 gradients of the autocast model, PEFT's fp32 adapters.
        CHECK(static_cast<double>(one.component("gradients")) <= static_cast<double>(one.trainable_parameters) * 4 + 1);
        // Accumulation keeps the gradients through the next forward: it can only add memory.
        CHECK(one.peak_allocated_bytes <= four.peak_allocated_bytes);
        for (std::size_t i = 0; i < one.timeline.size() && i < four.timeline.size(); ++i)
            CHECK(one.timeline[i].bytes <= four.timeline[i].bytes);
    }
    // At the optimizer step every gradient exists: exactly 4 B per parameter (it was 95.2 GB, the decoder's
    // per-layer share counted over both stacks).
    // foreach AdamW (transformers 4's Trainer): its transient makes the step the peak.
    const Bill step = bill(std::string(base) + R"(, "method": "full", "grad_accum": 1, "adamw_impl": "foreach"})");
    REQUIRE(step.peak_phase == "optimizer");
    CHECK(step.component("gradients") == 4 * step.trainable_parameters);
    CHECK(step.trainable_parameters == 12921057280);  // presets/models/mt0-xxl.json
}

TEST_CASE("backward: a hand-written loop keeps the outputs' logits to the end of the step (keep_outputs)") {
    // Llama-3.2-1B LoRA at 16k tokens with checkpointing, as the H200 run that kept its outputs: the peak is in
    // backward, where the Trainer's way has dropped the logits and the hand-written loop still holds them.
    const std::string base = R"({"model": "llama-3.2-1b", "gpu": "h200", "method": "lora", "precision": "bf16",
        "micro_batch": 1, "seq_len": 16384, "checkpointing": "full")";
    const Bill trainer = bill(base + "}");
    const Bill manual = bill(base + R"(, "keep_outputs": true})");
    const double logits = 16384.0 * 128256.0 * 2.0;  // tokens x vocabulary x bf16
    const double kept = static_cast<double>(manual.peak_allocated_bytes - trainer.peak_allocated_bytes);
    CHECK(kept > 0.9 * logits);
    CHECK(kept <= logits + 1.0);
    // A fused loss never builds the full logits: there is nothing to keep.
    const Bill fused = bill(base + R"(, "loss": "fused"})");
    const Bill fused_manual = bill(base + R"(, "loss": "fused", "keep_outputs": true})");
    CHECK(fused_manual.peak_allocated_bytes == fused.peak_allocated_bytes);
}

}  // namespace unit_backward
}  // namespace
