// The Unsloth framework profile: its defaults, what its Triton kernels keep per layer, the backward's
// working set, and Cut Cross-Entropy (core/src/training/activations.cpp, loss.cpp, scenario/defaults.cpp).
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "training/activations.hpp"
#include "training/loss.hpp"

namespace {
namespace unit_unsloth {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using namespace vramcalc::detail;

namespace {
ActivationSetup unsloth_setup() {
    ActivationSetup a;
    a.compute = 2;
    a.residual = 2;  // no fp32 upcast of the embeddings
    a.attention = Attention::flash;
    a.repeat_kv = false;
    a.train_linears = false;
    a.train_norms = false;
    a.lora = true;
    a.lora_setup.all_linear = true;
    a.lora_setup.rank = 32;
    a.lora_setup.dropout = 0;
    a.unsloth_norms = true;
    a.unsloth_kernels = true;
    return a;
}
}  // namespace

TEST_CASE("unsloth: defaults are its notebooks' QLoRA with offloaded checkpointing and Cut Cross-Entropy") {
    const Scenario s = default_scenario(Framework::unsloth, Workload::train);
    CHECK(s.method == Method::qlora);
    CHECK(s.quantization == Quantization::nf4_dq);
    CHECK(s.checkpointing == Checkpointing::offload);
    CHECK(s.loss == Loss::cce);
    CHECK(s.attention == Attention::flash);
    CHECK(s.optimizer == Optimizer::adamw_8bit);
    CHECK(s.lora.rank == 16);
    CHECK(s.lora.all_linear);
    CHECK(s.lora.dropout == 0);
    // A JSON scenario that sets only the framework gets them too.
    const Scenario j = test::scenario({{"model", "llama-3.1-8b"}, {"framework", "unsloth"}});
    CHECK(j.quantization == Quantization::nf4_dq);
    CHECK(j.loss == Loss::cce);
}

TEST_CASE("unsloth: a Llama layer keeps what its kernels save, per token") {
    // Llama-3.1-8B: h 4096, q 4096, k = v 1024 (8 KV heads, not expanded by flash-attn), 32 heads, I 14336.
    // Fast_RMS_Layernorm: input + fp32 rstd, twice; LoRA_QKV: the normed input; flash-attn: q, k, v, the
    // output (which LoRA_W shares) and an fp32 log-sum-exp per head; LoRA_MLP: its input, e and g.
    const ModelSpec m = test::preset("llama-3.1-8b");
    const ActivationSetup a = unsloth_setup();
    const double expected = 2 * (2 * 4096.0 + 4) + 2 * 4096.0 + 2 * (4096.0 + 1024 + 1024) + 2 * 4096.0 + 4 * 32.0 +
                            2 * 4096.0 + 2 * 2 * 14336.0;
    CHECK(layer_bytes(layer_saved_tensors(m, a), 1, 1, false) == expected);
    // Backward: dY W_down^T and one LoRA product (I wide each), the incoming gradient and the recomputed
    // layer's output (h each, 16-bit).
    CHECK(layer_backward_transient_per_token(m, a) == 2 * 2 * 14336.0 + 2 * 2 * 4096.0);
    // With dropout Unsloth falls back to PEFT's modules: the adapters keep their inputs again.
    ActivationSetup peft = a;
    peft.unsloth_kernels = false;
    CHECK(layer_bytes(layer_saved_tensors(m, peft), 1, 1, false) > expected);
}

TEST_CASE("unsloth: Cut Cross-Entropy keeps no logits, below 1024 tokens Unsloth's own kernel keeps them") {
    const ModelSpec m = test::preset("llama-3.1-8b");
    Scenario s = default_scenario(Framework::unsloth, Workload::train);
    s.model = m;
    const double V = static_cast<double>(m.vocab), h = static_cast<double>(m.hidden);
    const LossMemory big = loss_memory(s, m, 2, 4096, false);
    CHECK(big.saved == 2 * h * 4096 + 4 * 4096 + 4 * V);  // the hidden states, fp32 lse, fp32 logit_avg
    CHECK(big.forward_peak == 0);
    CHECK(big.backward_peak == 2 * h * 4096);  // de; dc only for a trained output weight (CCE >= 25.1.1)
    CHECK(loss_memory(s, m, 2, 4096, true).backward_peak == 2 * h * 4096 + 2 * V * h);
    const LossMemory small = loss_memory(s, m, 2, 1000, false);
    CHECK(small.saved == 2 * V * 1000 + 8 * 1000);  // 16-bit logits, the gradient written into them
    CHECK(small.backward_peak == 0);
    // Outside Unsloth, `cce` is Cut Cross-Entropy at any length.
    s.framework = Framework::hf;
    CHECK(loss_memory(s, m, 2, 1000, false).saved == 2 * h * 1000 + 4 * 1000 + 4 * V);
}

}  // namespace unit_unsloth
}  // namespace
