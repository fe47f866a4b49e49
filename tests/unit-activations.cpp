// Activation memory, op by op, pinned against hand-computed byte counts per token and layer.
#include <algorithm>
#include <catch2/catch.hpp>

#include "runtime/sdpa.hpp"
#include "training/activations.hpp"
#include "training/loss.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/hf_config.hpp"

namespace {
namespace unit_activations {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using namespace vramcalc::detail;

namespace {

using test::preset;

ActivationSetup bf16_full(Attention attn) {
    ActivationSetup a;
    a.compute = 2;
    a.residual = 2;
    a.autocast = false;
    a.attention = attn;
    a.repeat_kv = attn != Attention::flash;
    return a;
}

}  // namespace

TEST_CASE("activations: Korthikanti et al.'s sbh(34 + 5as/h) for a GPT block with eager attention") {
    // GPT-3 175B shapes (h = 12288, a = 96) in a GPT-2 layout with dropout 0.1, 16-bit, s = 2048, b = 1.
    auto r = model_from_config_text(R"({"model_type": "gpt2", "vocab_size": 50257, "n_embd": 12288, "n_layer": 96,
        "n_head": 96, "n_positions": 2048, "attn_pdrop": 0.1, "resid_pdrop": 0.1})");
    REQUIRE(r.ok());
    const auto t = layer_saved_tensors(*r, bf16_full(Attention::eager));
    const double s = 2048, b = 1, h = 12288, a = 96;
    // The paper neglects LayerNorm's per-row mean and rstd (2 norms x 8 bytes per token); we count them.
    const double layernorm_stats = 2 * 8 * s * b;
    CHECK(layer_bytes(t, b, s, false) == s * b * h * (34 + 5 * a * s / h) + layernorm_stats);
    CHECK(s * b * h * (34 + 5 * a * s / h) == 2868903936.0);  // formula_cases.json korthikanti-derived-GPT-3 "none"
    // Selective recomputation drops the attention core; Korthikanti's 34sbh keeps Q, K, V too, which
    // the SDPA-style selective recompute here also recomputes (so ours is lower by 6sbh).
    CHECK(layer_bytes(t, b, s, true) == s * b * h * (34 - 6) + layernorm_stats);
}

TEST_CASE("activations: one Llama-3.1-8B block, bf16, SDPA, full fine-tuning") {
    const ModelSpec m = preset("llama-3.1-8b");
    const auto t = layer_saved_tensors(m, bf16_full(Attention::sdpa));
    const double h = 4096, H = 32, I = 14336, q = 4096, kv = 4096;  // K and V expanded to 32 heads (repeat_kv)
    const double per_token = (4 * h + 2 * h)                        // input_layernorm: fp32 input copy + normalised (weight grad)
                             + 2 * h                                // q/k/v_proj share their bf16 input
                             + 2 * (q + kv + kv) + 2 * q + 4 * H    // SDPA: q, k, v, output, fp32 log-sum-exp
                             + 2 * q                                // o_proj input
                             + (4 * h + 2 * h)                      // post_attention_layernorm
                             + 2 * h                                // gate/up_proj input
                             + 2 * I + 2 * 2 * I                    // SiLU input; SiLU output and up for the product
                             + 2 * I;                               // down_proj input
    CHECK(per_token == 221312);
    CHECK(layer_bytes(t, 1, 1, false) == per_token);
    CHECK(layer_bytes(t, 2, 1024, false) == per_token * 2048);
}

TEST_CASE("activations: one LoRA layer (q_proj, v_proj, rank 8, dropout 0.05) on frozen bf16 Llama-3.1-8B") {
    const ModelSpec m = preset("llama-3.1-8b");
    ActivationSetup a = bf16_full(Attention::sdpa);
    a.train_linears = false;  // frozen base: linears do not keep their inputs
    a.train_norms = false;
    a.lora = true;
    a.lora_setup.rank = 8;
    a.lora_setup.dropout = 0.05;
    a.adapter_bytes = 4;  // PEFT adapters in fp32
    const double h = 4096, H = 32, I = 14336;
    const double lora_one = h /*dropout mask*/ + 4 * h /*fp32 A input*/ + 4 * 8 /*B input*/;
    const double per_token = 4 * h                                // input_layernorm fp32 input
                             + 2 * lora_one                       // q_proj and v_proj adapters
                             + 2 * (3 * 4096) + 2 * 4096 + 4 * H  // SDPA
                             + 4 * h                              // post_attention_layernorm
                             + 2 * I + 2 * 2 * I;                 // SiLU input, SiLU output and up
    CHECK(layer_bytes(layer_saved_tensors(m, a), 1, 1, false) == per_token);
}

TEST_CASE("activations: one Mixtral-8x7B MoE block, bf16, SDPA, full fine-tuning") {
    const ModelSpec m = preset("mixtral-8x7b-v0.1");
    const auto t = layer_saved_tensors(m, bf16_full(Attention::sdpa));
    const double h = 4096, H = 32, I = 14336, E = 8, K = 2;
    const double attention = 6 * h + 2 * h + 2 * (3 * 4096) + 2 * 4096 + 4 * H + 2 * 4096;
    const double moe = 6 * h                  // post_attention_layernorm
                       + 2 * h                // router input
                       + 4 * E                // fp32 router softmax
                       + K * 2 * h            // each token copied to its top-2 experts
                       + K * (2 * h + 8 * I)  // expert MLPs on the routed copies
                       + K * 2 * h;           // expert outputs scaled by routing weights
    CHECK(layer_bytes(t, 1, 1, false) == attention + moe);
}

TEST_CASE("activations: one GPT-2 (124M) block, bf16, SDPA, dropout 0.1, full fine-tuning") {
    const ModelSpec m = preset("gpt2");
    const auto t = layer_saved_tensors(m, bf16_full(Attention::sdpa));
    const double h = 768, H = 12, I = 3072;
    const double per_token = (2 * h + 8)                    // ln_1: bf16 input + per-row mean and rstd
                             + 2 * h                        // c_attn input (ln_1 output)
                             + 2 * (3 * h) + 2 * h + 4 * H  // SDPA: q, k, v (views of c_attn's output), output, lse
                             + 2 * h                        // attn c_proj input
                             + h                            // resid dropout mask
                             + (2 * h + 8)                  // ln_2
                             + 2 * h                        // c_fc input
                             + 2 * I                        // GeLU input
                             + 3 * 2 * I                    // gelu_new as eager ops: tanh output, 1 + tanh, 0.5 x
                             + 2 * I                        // mlp c_proj input (GeLU output)
                             + h;                           // resid dropout mask
    CHECK(per_token == 46144);
    CHECK(layer_bytes(t, 1, 1, false) == per_token);
    CHECK(layer_bytes(t, 8, 1024, false) == per_token * 8192);
}

TEST_CASE("activations: bitsandbytes 4-bit linears keep their inputs (QLoRA through PEFT or LitGPT)") {
    const ModelSpec m = preset("llama-3.1-8b");
    ActivationSetup a = bf16_full(Attention::sdpa);
    a.train_linears = false;
    a.train_norms = false;
    a.lora = true;
    a.lora_setup.rank = 8;
    a.lora_setup.dropout = 0;
    a.adapter_bytes = 2;
    const double frozen = layer_bytes(layer_saved_tensors(m, a), 1, 1, false);
    a.frozen_linears_save_input = true;  // MatMul4Bit: ctx.tensors = (A, B) when A needs a gradient
    const double bnb = layer_bytes(layer_saved_tensors(m, a), 1, 1, false);
    const double h = 4096, I = 14336;
    // q/k/v input, o_proj input, gate/up input, down_proj input: each once, bf16.
    CHECK(bnb - frozen == 2 * h + 2 * h + 2 * h + 2 * I);
}

TEST_CASE("activations: torch.compile keeps norm inputs, SDPA tensors and the gate/up outputs of a Llama block") {
    const ModelSpec m = preset("llama-3.1-8b");
    ActivationSetup a = bf16_full(Attention::sdpa);
    a.compiled = true;
    const double h = 4096, H = 32, I = 14336;
    const double per_token = 2 * (2 * h + 4)                      // two RMSNorms: bf16 input + fp32 rstd
                             + 2 * (3 * 4096) + 2 * 4096 + 4 * H  // SDPA q, k, v (repeat_kv), output, lse
                             + 2 * 2 * I;                         // gate and up outputs
    CHECK(layer_bytes(layer_saved_tensors(m, a), 1, 1, false) == per_token);
}

TEST_CASE("activations: LitGPT's fused qkv output stays alive through the saved v view (MHA with rope)") {
    const ModelSpec m = preset("llama-2-7b");  // 32 heads, 32 KV heads
    ActivationSetup a = bf16_full(Attention::sdpa);
    const double separate = layer_bytes(layer_saved_tensors(m, a), 1, 1, false);
    a.fused_qkv = true;
    const double fused = layer_bytes(layer_saved_tensors(m, a), 1, 1, false);
    CHECK(fused - separate == 2 * (4096 + 4096));  // the q and k parts of the fused output
    // GQA expands K/V with a copy, so no view keeps the fused output: no extra.
    const ModelSpec g = preset("llama-3.1-8b");
    ActivationSetup b = bf16_full(Attention::sdpa);
    const double g_sep = layer_bytes(layer_saved_tensors(g, b), 1, 1, false);
    b.fused_qkv = true;
    CHECK(layer_bytes(layer_saved_tensors(g, b), 1, 1, false) == g_sep);
}

TEST_CASE("activations: Gemma-2's soft-capping keeps the tanh outputs (scores and logits)") {
    // Gemma-2-2B: 8 heads, vocab 256000. Eager attention keeps cap x tanh(scores / cap)'s tanh output, one
    // 16-bit score per head and key; the final cap keeps a 16-bit tanh output per logit (and its division
    // output is a forward transient).
    ModelSpec m = preset("gemma-2-2b");
    REQUIRE(m.traits.attn_softcap);
    REQUIRE(m.traits.final_softcap);
    const double s = 512, b = 1;
    const double capped = layer_bytes(layer_saved_tensors(m, bf16_full(Attention::eager)), b, s, false);
    ModelSpec plain = m;
    plain.traits.attn_softcap = false;
    const double uncapped = layer_bytes(layer_saved_tensors(plain, bf16_full(Attention::eager)), b, s, false);
    CHECK(capped - uncapped == 2.0 * 8 * s * s * b);
    Scenario sc;
    sc.model = m;
    sc.loss = Loss::standard;
    const LossMemory with = loss_memory(sc, m, 2, s, false);
    plain.traits.final_softcap = false;
    const LossMemory without = loss_memory(sc, plain, 2, s, false);
    CHECK(with.saved - without.saved == 2.0 * 256000 * s);
    CHECK(with.forward_peak - without.forward_peak == 2.0 * 256000 * s);
}

TEST_CASE("activations: torchtitan's per-op checkpointing keeps every other matmul output and attention's") {
    // Llama-3.1-8B: the layer input, wq (4096), wv (1024), w1 (14336) and w2 (4096) outputs in bf16, the SDPA
    // output (4096) and its fp32 log-sum-exp (32 heads); wk, wo and w3 are run again in backward.
    const ModelSpec m = test::preset("llama-3.1-8b");
    ActivationSetup a;
    a.compute = 2;
    a.residual = 2;
    a.attention = Attention::sdpa;
    CHECK(layer_op_checkpoint_bytes_per_token(m, a) == 2 * (4096.0 + 4096 + 1024 + 14336 + 4096 + 4096) + 4 * 32.0);
    const double k = 4096.0 * 1024, o = 4096.0 * 4096, up = 4096.0 * 14336;
    CHECK(op_checkpoint_recompute_share(m) == Approx((k + o + up) / (o + 2 * k + o + 3 * up)));
    // A whole step keeps that per layer instead of the layer's activations, and recomputes the layer.
    Scenario s = test::scenario({{"model", "llama-3.1-8b"}, {"framework", "torchtune"}, {"method", "full"}, {"micro_batch", 2}, {"seq_len", 8192}, {"checkpointing", "selective-op"}, {"num_gpus", 8}, {"sharding", "fsdp-full"}});
    const Bill b = estimate(s);
    const double per_layer = (2 * (4096.0 + 4096 + 1024 + 14336 + 4096 + 4096) + 4 * 32.0) * 2 * 8192;
    CHECK(static_cast<double>(b.component("activations")) >= 32 * per_layer);
}

TEST_CASE("activations: torchao float8 adds its casts as transients and halves FSDP's gathered layers") {
    // torchao keeps the 16-bit input and weight for backward and casts in each matmul: backward of the largest
    // linear (gate/up_proj, 14336 x 4096) holds grad_output in float8 twice, the input and the weight once.
    // torchao's own table of torchtitan runs (8 x H100, Llama 3 8B, batch 1 x 8192, FSDP, compile, per-op SAC):
    // 47.65 GiB bf16, 47.77 tensorwise with float8 all-gather, 47.79 rowwise: under 1 % apart.
    nlohmann::json j = {{"model", "llama-3.1-8b"}, {"framework", "torchtune"}, {"method", "full"}, {"precision", "bf16-mixed"}, {"micro_batch", 1}, {"seq_len", 8192}, {"checkpointing", "selective-op"}, {"num_gpus", 8}, {"sharding", "fsdp-full"}, {"gpu", "h100-80gb"}};
    const Bill bf16 = estimate(test::scenario(j));
    j["float8"] = "tensorwise";
    const Bill tensorwise = estimate(test::scenario(j));
    // The peak is the loss's backward here, where no cast exists; with the fused loss it is a layer's backward.
    nlohmann::json f = j;
    f["loss"] = "fused";
    f.erase("float8");
    const Bill fused_bf16 = estimate(test::scenario(f));
    f["float8"] = "tensorwise";
    const Bill fused_fp8 = estimate(test::scenario(f));
    const double T = 8192, casts = 2 * T * 14336 + T * 4096 + 14336.0 * 4096;
    REQUIRE(fused_fp8.peak_phase == "backward");
    CHECK(static_cast<double>(fused_fp8.component("temporaries") - fused_bf16.component("temporaries")) == Approx(casts).margin(1));
    // float8 all-gather is recorded, not counted: the published peak moves by +0.25 %, not by the halved
    // gathered layers.
    j["float8_all_gather"] = true;
    const Bill gathered = estimate(test::scenario(j));
    CHECK(gathered.component("gathered_params") == bf16.component("gathered_params"));
    j.erase("float8_all_gather");
    j["float8"] = "rowwise";
    const Bill rowwise = estimate(test::scenario(j));
    for (const Bill* b : {&tensorwise, &gathered, &rowwise})
        CHECK(std::abs(static_cast<double>(b->peak_reserved_bytes) / static_cast<double>(bf16.peak_reserved_bytes) - 1) < 0.01);
}

TEST_CASE("activations: torchao mxfp8 casts carry one e8m0 scale byte per 32 elements") {
    // mx_mm saves the 16-bit input and weight and casts grad_output (dim 0 and dim 1), the weight and the input
    // in backward: the float8 casts of the largest linear times 33/32. On a B200 (Blackwell) no warning; on an
    // H100 a warning that the MX matmuls are emulated.
    nlohmann::json f = {{"model", "llama-3.1-8b"}, {"framework", "torchtitan"}, {"method", "full"}, {"precision", "bf16-mixed"}, {"micro_batch", 1}, {"seq_len", 8192}, {"checkpointing", "selective-op"}, {"num_gpus", 8}, {"sharding", "fsdp-full"}, {"gpu", "b200"}, {"loss", "fused"}};
    const Bill bf16 = estimate(test::scenario(f));
    f["float8"] = "mxfp8";
    const Bill mx = estimate(test::scenario(f));
    const double T = 8192, casts = (2 * T * 14336 + T * 4096 + 14336.0 * 4096) * 33.0 / 32.0;
    REQUIRE(mx.peak_phase == "backward");
    CHECK(static_cast<double>(mx.component("temporaries") - bf16.component("temporaries")) == Approx(casts).margin(1));
    const auto mentions_mx = [](const Bill& b) {
        return std::any_of(b.warnings.begin(), b.warnings.end(), [](const std::string& w) { return w.find("mxfp8") != std::string::npos; });
    };
    CHECK_FALSE(mentions_mx(mx));
    f["gpu"] = "h100-80gb";
    CHECK(mentions_mx(estimate(test::scenario(f))));
}

TEST_CASE("activations: SDPA's kernel as PyTorch picks it (sdp_utils.cpp select_sdp_backend)") {
    using detail::SdpaBackend;
    GpuSpec h200, a100, v100, mi300;
    h200.arch = "hopper";
    a100.arch = "ampere";
    v100.arch = "volta";
    mi300.arch = "cdna3";
    mi300.vendor = "amd";
    detail::SdpaCall bf16;  // bf16, head_dim 128, no mask, training
    // Hopper with CUDA 13 and cuDNN > 9.15 puts cuDNN first; Ampere keeps flash first.
    CHECK(detail::sdpa_backend(h200, bf16) == SdpaBackend::cudnn);
    CHECK(detail::sdpa_backend(a100, bf16) == SdpaBackend::flash);
    // A mask rules flash out, not the memory-efficient kernel.
    detail::SdpaCall masked = bf16;
    masked.mask = true;
    CHECK(detail::sdpa_backend(a100, masked) == SdpaBackend::efficient);
    // fp32: neither cuDNN nor flash; the memory-efficient kernel takes it.
    detail::SdpaCall fp32 = bf16;
    fp32.dtype_bytes = 4;
    CHECK(detail::sdpa_backend(h200, fp32) == SdpaBackend::efficient);
    // cuDNN's backward takes head_dim <= 128, 192/128 or 256: 160 falls to flash.
    detail::SdpaCall d160 = bf16;
    d160.head_dim = d160.v_head_dim = 160;
    CHECK(detail::sdpa_backend(h200, d160) == SdpaBackend::flash);
    // bf16 before sm80: no fused kernel takes it, the math path runs.
    CHECK(detail::sdpa_backend(v100, bf16) == SdpaBackend::math);
    detail::SdpaCall fp16 = bf16;
    fp16.bf16 = false;
    CHECK(detail::sdpa_backend(v100, fp16) == SdpaBackend::efficient);
    // 16-bit head dimensions must be multiples of 8 for the memory-efficient kernel.
    detail::SdpaCall d100 = masked;
    d100.head_dim = d100.v_head_dim = 100;
    CHECK(detail::sdpa_backend(a100, d100) == SdpaBackend::math);
    CHECK(detail::sdpa_backend(mi300, bf16) == SdpaBackend::flash);
    // The math path keeps fp32 probabilities per head and key (plus dropout's mask and output).
    CHECK(detail::sdpa_math_scores_per_token_key(bf16, 32) == 32 * 4.0);
    detail::SdpaCall drop = bf16;
    drop.dropout = 0.1;
    CHECK(detail::sdpa_math_scores_per_token_key(drop, 32) == 32 * 9.0);
}

TEST_CASE("activations: the math SDPA kernel keeps the scores, the fused kernels do not") {
    // A layer's saved bytes at 2048 tokens with bf16 on a V100 (math) against an A100 (flash).
    const std::string base = R"({"model": "llama-3.2-1b", "method": "full", "precision": "bf16", "micro_batch": 1, "seq_len": 2048, "gpu": ")";
    const Bill fused = test::bill(base + R"(a100-80gb"})");
    const Bill math = test::bill(base + R"(v100-32gb"})");
    // 32 heads x 2048 keys x 4 B per token of the probabilities alone, in each of 16 layers.
    CHECK(math.component("activations") - fused.component("activations") > 16.0 * 2048 * 32 * 2048 * 4);
}

}  // namespace unit_activations
}  // namespace
