// Architectures of 2025 (docs/architectures.md): each config in tests/data/configs/ (sources in
// tests/data/README.md) gives our exact count, pinned here, and that count is checked against the published
// total: exactly where the publisher prints the exact number, else within the rounding of the printed one.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/weight_formats.hpp"
#include "inference/kv_cache.hpp"
#include "test_data.hpp"
#include "vramcalc/hf_config.hpp"
#include "vramcalc/json_text.hpp"

namespace {
namespace unit_arch_2025 {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using detail::weight_bytes;

namespace {

ModelSpec from_file(const std::string& file) {
    const auto j = test::load_json("configs/" + file);
    REQUIRE(j.is_object());
    auto r = model_from_config(j, file);
    INFO(file << ": " << r.error_text());
    REQUIRE(r.ok());
    CHECK(r.warnings.empty());
    return *r.value;
}

// |ours - published| <= half a unit of the published number's last printed digit.
void near_published(i64 ours, double published, double unit) {
    INFO("ours " << ours << ", published " << published << " (printed to " << unit << ")");
    CHECK(std::abs(static_cast<double>(ours) - published) <= unit / 2);
}

}  // namespace

TEST_CASE("arch: gpt-oss counts reproduce the model card's totals and active counts") {
    // gpt-oss-120b & gpt-oss-20b model card (OpenAI, arXiv 2508.10925) Table 1: 116.83B total, 5.13B active;
    // 20.91B total, 3.61B active. The card's active count leaves out the input embedding (its unembedding is in).
    const ModelSpec big = from_file("gpt-oss-120b.json");
    const ParamBreakdown b = count_parameters(big);
    CHECK(b.total == 116'829'156'672);
    near_published(b.total, 116.83e9, 0.01e9);
    near_published(b.active - b.embeddings, 5.13e9, 0.01e9);
    CHECK(big.traits.alternating_window);
    CHECK(big.sliding_window == 128);
    const ParamBreakdown s = count_parameters(from_file("gpt-oss-20b.json"));
    CHECK(s.total == 20'914'757'184);
    near_published(s.total, 20.91e9, 0.01e9);
    near_published(s.active - s.embeddings, 3.61e9, 0.01e9);
}

TEST_CASE("arch: Gemma 3 1B matches the technical report's embedding and non-embedding counts") {
    // Gemma 3 Technical Report (arXiv 2503.19786) Table 1, Gemma 3 1B: 302M embedding, 698M non-embedding
    // parameters, no vision encoder; the embedding is tied.
    const ModelSpec m = from_file("gemma-3-1b-it.json");
    const ParamBreakdown p = count_parameters(m);
    CHECK(p.total == 999'885'952);
    near_published(p.embeddings, 302e6, 1e6);
    near_published(p.total - p.embeddings, 698e6, 1e6);
    CHECK(m.traits.global_every == 6);  // 5 sliding layers, then a global one
    CHECK(m.sliding_window == 512);
}

TEST_CASE("arch: DeepSeek-V3.2 is DeepSeek-V3 plus one DSA indexer per layer") {
    // The indexer (DeepSeek-V3.2-Exp inference/model.py @6d8cb70d): wq_b 1536 -> 64 x 128, wk 7168 -> 128,
    // k_norm LayerNorm(128), weights_proj 7168 -> 64, in each of the 61 layers. V3's 671,026,419,200 is pinned
    // in tests/data/param_counts.json; the Hub's "685B" adds the MTP layer, which HF does not instantiate.
    const ParamBreakdown p = count_parameters(from_file("deepseek-v3.2.json"));
    const i64 indexer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64;
    CHECK(p.total == 671'026'419'200 + 61 * indexer);
}

TEST_CASE("arch: DeepSeek-V3.2 under vLLM keeps the indexer's fp8 keys beside the MLA latent") {
    // vllm/model_executor/models/deepseek_v2.py @002d6073: DeepseekV32IndexerCache holds index_head_dim fp8 bytes and
    // an fp32 scale per 128 (132 B) per token and layer beside the latent; an fp8 latent is "fp8_ds_mla", 656 B
    // (512 fp8 + 4 fp32 scales + 64 bf16 rope: FlashMLASparseBackend.get_kv_cache_shape). Replicated over tp.
    auto config = test::load_json("configs/deepseek-v3.2.json");
    nlohmann::json j = {{"model", config}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h200"}, {"num_gpus", 8}, {"tp", 8}, {"kv_dtype", "fp8"}};
    const Scenario fp8 = test::scenario(j);
    CHECK(fp8.model.mla.index_head_dim == 128);
    CHECK(detail::indexer_key_bytes(fp8) == 132);
    CHECK(detail::kv_layer_token_bytes(fp8, detail::kv_element_bytes(fp8)) == 656 + 132);
    j["kv_dtype"] = "bf16";
    const Scenario bf16 = test::scenario(j);
    CHECK(detail::kv_layer_token_bytes(bf16, detail::kv_element_bytes(bf16)) == 576 * 2 + 132);
    // DeepSeek-V3 (no indexer) keeps the plain latent: 576 elements.
    j["model"] = "deepseek-v3";
    const Scenario v3 = test::scenario(j);
    CHECK(detail::kv_layer_token_bytes(v3, detail::kv_element_bytes(v3)) == 576 * 2);
}

TEST_CASE("arch: DeepSeek-V4-Flash: compressed attention, hyper-connections, hash-routed and FP4 experts") {
    // deepseek-ai/DeepSeek-V4-Flash model card: 284B total, 13B activated (the 43 layers; the MTP block is apart).
    const ModelSpec m = from_file("deepseek-v4-flash.json");
    const ParamBreakdown p = count_parameters(m);
    CHECK(p.total == 284'334'567'511);
    near_published(p.total, 284e9, 1e9);
    near_published(p.active - p.embeddings, 13e9, 1e9);
    CHECK(m.attention == AttentionKind::compressed);
    CHECK(m.kv_heads == 1);
    CHECK(m.mla.compress_ratios.size() == 43);
    CHECK(m.mla.index_head_dim == 128);
    CHECK(m.mla.window == 128);
    // model.safetensors.index.json total_size 159,609,485,896 B is reproduced to 2 KB tensor by tensor from its
    // shapes and dtypes (fp4 experts with e8m0 per 32, fp8 blocks with e8m0 per 128 x 128, bf16 / fp32 / int64
    // rest); less the MTP block, 156,015,698,140 B. Ours stores the fp8 blocks' scales in fp32 and the fp32 / int64
    // tensors (ape, sinks, hyper-connections, tid2eid) in 16 bits.
    CHECK(m.quant.format == "fp8-block");
    const double ours = weight_bytes(m, "fp8-block", 128).total();
    INFO("ours " << ours);
    CHECK_THAT(ours, Catch::Matchers::WithinRel(156015698140.0, 0.005));
    // In fp8 throughout, the experts would be 1.9x their FP4 bytes: 284 GB, not 156.
    CHECK(weight_bytes(m, "fp8", 128).total() > 280e9);
}

TEST_CASE("arch: DeepSeek-V4's cache: a 128-token window, pooled entries and the indexer's keys per layer") {
    const nlohmann::json config = test::load_json("configs/deepseek-v4-flash.json");
    nlohmann::json j = {{"model", config}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", "h200"}, {"num_gpus", 4}, {"tp", 4}};
    const Scenario s = test::scenario(j);
    // vLLM's fp8_ds_mla entry for V4: 448 fp8 + 64 bf16 rope + 8 B of UE8M0 scales (attention.py @0484480b).
    CHECK(detail::compressed_entry_bytes(s) == 584);
    // 2 window-only layers, 21 ratio-4 layers (with the indexer's 132-B keys), 20 ratio-128 layers; exact, no paging.
    const double T = 1 << 20;
    const double expect = 43 * 128 * 584.0 + 21 * (T / 4) * (584 + 132) + 20 * (T / 128) * 584;
    CHECK(detail::kv_bytes_for_tokens(s, T) == expect);
    // A million-token sequence is under 5 GiB per GPU (V3.2's latent alone: 61 x 656 B per token, 39 GiB).
    CHECK(expect < 5.0 * (1 << 30));
    // DeepSeek's reference keeps bf16 rows: 1024 B an entry.
    j["framework"] = "hf";
    j.erase("tp");
    j["num_gpus"] = 1;
    CHECK(detail::compressed_entry_bytes(test::scenario(j)) == 1024);
}

TEST_CASE("arch: Kimi-K2 is read as DeepSeek-V3's layout") {
    // moonshotai/Kimi-K2-Instruct model card: 1T total, 32B activated (rounded to the trillion / billion).
    const ParamBreakdown p = count_parameters(from_file("kimi-k2-instruct.json"));
    CHECK(p.total == 1'026'408'232'448);
    near_published(p.total, 1.0e12, 0.1e12);
    near_published(p.active, 32e9, 2e9);  // 32.86B with the embedding and the head
}

TEST_CASE("arch: Kimi-K2.5 is Kimi-K2's text model with the MoonViT tower and its patch-merger projector") {
    // moonshotai/Kimi-K2.5 model card: "Vision Encoder: MoonViT, 400M parameters"; 1T total, 32B activated. The tower:
    // patch conv 1152 x 3 x 14 x 14 + bias, a 64 x 64 x 1152 position table, 27 blocks (LayerNorms, wqkv / wo, fc0 / fc1,
    // all biased), the final LayerNorm; the projector: LayerNorm(1152), linear_1 4608 -> 4608, linear_2 4608 -> 7168.
    const ModelSpec m = from_file("kimi-k2.5.json");
    const ParamBreakdown p = count_parameters(m);
    const i64 block = 4 * 1152 + (1152 * 3456 + 3456) + (1152 * 1152 + 1152) + (1152 * 4304 + 4304) + (4304 * 1152 + 1152);
    const i64 tower = 1152 * 588 + 1152 + 64 * 64 * 1152 + 27 * block + 2 * 1152;
    const i64 projector = 2 * 1152 + (4608 * 4608 + 4608) + (4608 * 7168 + 7168);
    CHECK(tower == 416'866'032);
    CHECK(p.vision == tower + projector);
    near_published(tower, 400e6, 100e6);
    CHECK(p.total == 1'026'408'232'448 + tower + projector);  // Kimi-K2's text model (below) + tower + projector
    near_published(p.active - p.vision, 32e9, 2e9);           // the card's activated count is the language model's
}

TEST_CASE("arch: GLM-4.5 and GLM-4.5-Air are within the cards' rounding") {
    // zai-org/GLM-4.5 README: GLM-4.5 355B total / 32B active, GLM-4.5-Air 106B / 12B, rounded to the billion;
    // the cards count the MTP layer (about 3.9B and 1.5B with its own embedding and head), HF loads without it.
    const ParamBreakdown big = count_parameters(from_file("glm-4.5.json"));
    CHECK(big.total == 352'797'829'024);
    CHECK(std::abs(static_cast<double>(big.total) / 355e9 - 1) < 0.01);
    const ParamBreakdown air = count_parameters(from_file("glm-4.5-air.json"));
    CHECK(air.total == 106'852'251'264);
    CHECK(std::abs(static_cast<double>(air.total) / 106e9 - 1) < 0.01);
    // Active counts without the embedding and the head, as the cards count them: 32.08B and 12.18B.
    near_published(big.active - big.embeddings - big.lm_head, 32e9, 1e9);
    near_published(air.active - air.embeddings - air.lm_head, 12e9, 1e9);
}

TEST_CASE("arch: MiniMax-M2.5 is within the M2 card's rounding") {
    // MiniMaxAI/MiniMax-M2 README: 230B total, 10B activated (rounded); M2.5 keeps the sizes (tests/data/README.md);
    // the MTP modules are not counted.
    const ParamBreakdown p = count_parameters(from_file("minimax-m2.5.json"));
    CHECK(p.total == 228'689'764'864);
    CHECK(std::abs(static_cast<double>(p.total) / 230e9 - 1) < 0.01);
    near_published(p.active - p.embeddings - p.lm_head, 10e9, 1e9);  // 9.80B without embedding and head
}

TEST_CASE("arch: Qwen3-Next-80B-A3B reads its DeltaNet and attention layers") {
    // Qwen/Qwen3-Next-80B-A3B model cards (Instruct and Thinking share the architecture): 80B total, 3B activated (rounded); 48 layers as
    // 12 x (3 x (Gated DeltaNet -> MoE) -> 1 x (Gated Attention -> MoE)).
    const ModelSpec m = from_file("qwen3-next-80b-a3b-thinking.json");
    const ParamBreakdown p = count_parameters(m);
    CHECK(p.total == 79'674'391'296);
    near_published(p.total, 80e9, 1e9);
    near_published(p.active - p.embeddings - p.lm_head, 3e9, 1e9);  // 3.25B without embedding and head
    CHECK(m.hybrid.blocks('M') == 36);
    CHECK(attention_layers(m) == 12);
    CHECK(layer_attends(m, 3));
    CHECK_FALSE(layer_attends(m, 0));
    // KV per token: 12 attention layers x K and V x 2 KV heads x 256 x 2 B.
    CHECK(kv_bytes_per_token(m, 2, false) == 12 * 2 * 2 * 256 * 2);
    // One DeltaNet layer's conv state (conv_dim 2 x 16 x 128 + 32 x 128) and recurrent state 32 x 128 x 128.
    CHECK(m.hybrid.conv_dim() == 8192);
    CHECK(m.hybrid.inner() * m.hybrid.ssm_state == 32 * 128 * 128);
}

TEST_CASE("arch: Qwen3.5 (dense and MoE, with the vision tower) is within the cards' rounding") {
    // Qwen/Qwen3.5-27B, -35B-A3B, -397B-A17B model cards: "27B", "35B in total and 3B activated", "397B in total
    // and 17B activated", each rounded to the billion and counting the vision encoder (the checkpoints hold
    // model.visual.*). The MTP layer (mtp_num_hidden_layers 1) is dropped on load by the HF class and not
    // counted here. Tolerance: half a unit of the printed number (0.5B); a wrong width or layer count misses by
    // several billion.
    const ParamBreakdown dense = count_parameters(from_file("qwen3.5-27b.json"));
    CHECK(dense.total == 27'356'728'560);
    near_published(dense.total, 27e9, 1e9);
    CHECK(dense.vision > 0);
    const ParamBreakdown a3b = count_parameters(from_file("qwen3.5-35b-a3b.json"));
    CHECK(a3b.total == 35'107'181'936);
    near_published(a3b.total, 35e9, 1e9);
    const ParamBreakdown big = count_parameters(from_file("qwen3.5-397b-a17b.json"));
    CHECK(big.total == 396'802'360'816);
    near_published(big.total, 397e9, 1e9);
    // The cards do not say which of embedding, head and tower their "activated" counts, so the active counts
    // (3.90B and 17.81B with all of them) are not pinned against them.
}

TEST_CASE("arch: Nemotron-3-Super's Hub config parses (Python's Infinity) and its LatentMoE experts run at moe_latent_size") {
    // The Hub file writes "time_step_limit": [0.0, Infinity] (Python's json.dumps); JSON has no Infinity, so the
    // reader takes it as null instead of refusing the file.
    std::ifstream f(test::data_path("configs/nemotron-3-super-120b-a12b-fp8.json"), std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    std::string why;
    const auto j = parse_json_text(text.str(), why);
    INFO(why);
    REQUIRE(j);
    CHECK((*j)["time_step_limit"][1].is_null());
    auto r = model_from_config(*j, "nemotron-3-super");
    INFO(r.error_text());
    REQUIRE(r.ok());
    const ParamBreakdown p = count_parameters(*r);
    // 40 MoE layers x 512 experts x (1024 -> 2688 -> 1024) plus one fc1/fc2_latent_proj pair (4096 <-> 1024) each.
    CHECK(p.experts == 40LL * 512 * 2 * 1024 * 2688);
    CHECK(p.total == 120'668'707'840);
    // The name's "120B-A12B": totals within 1 % (read at the full width the experts alone would be 451B, 3.8x).
    // The MTP block (mtp_hybrid_override_pattern) is not counted, as HF does not load it.
    CHECK(std::abs(static_cast<double>(p.total) / 120e9 - 1) < 0.01);
    // Active: 12.77B with embedding and head; the name's "A12B" does not say what it counts, so not pinned.
}

TEST_CASE("arch: ERNIE-4.5-21B-A3B counts its shared experts, fp32 router and dense first layer") {
    const ModelSpec m = from_file("ernie-4.5-21b-a3b.json");
    const ParamBreakdown p = count_parameters(m);
    // Layer 0 dense (moe_layer_start_index 1), 27 MoE layers of 64 experts at 1536, 2 shared experts (3072 wide),
    // tied embeddings, no biases.
    CHECK(m.moe.moe_layers == 27);
    CHECK(p.experts == 27LL * 64 * 3 * 2560 * 1536);
    CHECK(p.total == 21'825'437'888);
    // ERNIE 4.5's card: 21B total, 3B activated (it rounds down; the Hub's count is 21.8B). 3.35B active here.
    CHECK(std::abs(static_cast<double>(p.total) / 21.8e9 - 1) < 0.005);
    CHECK(p.active > 3.0e9);
    CHECK(p.active < 3.5e9);
}

TEST_CASE("arch: LFM2-1.2B's short-conv layers, and their fixed state per sequence") {
    const ModelSpec m = from_file("lfm2-1.2b.json");
    const ParamBreakdown p = count_parameters(m);
    // 10 conv layers (in_proj 2048 -> 6144, depthwise conv [2048, 1, 3], out_proj), 6 attention layers (q/k norms),
    // SwiGLU at int(2 x 12288 / 3) = 8192 in all 16, tied embeddings.
    CHECK(m.intermediate == 8192);
    CHECK(m.hybrid.blocks('M') == 10);
    CHECK(attention_layers(m) == 6);
    CHECK(p.mamba == 10 * (2048LL * 6144 + 2048 * 3 + 2048LL * 2048));
    // LiquidAI's LFM2-1.2B card: 1.17B parameters.
    CHECK(p.total == 1'170'340'608);
    near_published(p.total, 1.17e9, 0.01e9);
    // KV only in the 6 attention layers: K and V x 8 heads x 64 x 2 B.
    CHECK(kv_bytes_per_token(m, 2, false) == 6 * 2 * 8 * 64 * 2);
}

TEST_CASE("arch: Jamba-1.5-Mini's Mamba-1 mixers, attention every 8th layer and MoE every 2nd") {
    const ModelSpec m = from_file("jamba-1.5-mini.json");
    const ParamBreakdown p = count_parameters(m);
    CHECK(attention_layers(m) == 4);  // layers 4, 12, 20, 28
    CHECK(m.hybrid.blocks('M') == 28);
    CHECK(m.moe.moe_layers == 16);
    // One Mamba-1 mixer: in_proj [16384, 4096], conv1d [8192, 1, 4] + bias, x_proj [256 + 32, 8192], dt_proj
    // [8192, 256] + bias, A_log [8192, 16], D, out_proj [4096, 8192] (its three RMSNorms count under norms).
    CHECK(p.mamba == 28 * (16384LL * 4096 + 8192 * 4 + 8192 + 288LL * 8192 + 8192LL * 256 + 8192 + 8192 * 16 + 8192 + 4096LL * 8192));
    // AI21's cards: 52B total (the Hub: 51.6B), 12B active.
    CHECK(p.total == 51'570'323'328);
    near_published(p.total, 51.6e9, 0.1e9);
    near_published(p.active, 12e9, 1e9);
}

TEST_CASE("arch: Granite-4.0-H-Small: Mamba-2 or attention per layer, a shared MLP and 72 experts in every layer") {
    // An assembled config (tests/data/README.md): no complete copy of the Hub file was found; the attention
    // layers' positions are assumed, which the count does not depend on.
    const ModelSpec m = from_file("granite-4.0-h-small.assembled.json");
    const ParamBreakdown p = count_parameters(m);
    CHECK(m.hybrid.blocks('M') == 36);
    CHECK(attention_layers(m) == 4);
    // Experts: input_linear [72, 2 x 768, 4096] and output_linear [72, 4096, 768] in each of the 40 layers.
    CHECK(p.experts == 40LL * 72 * 3 * 768 * 4096);
    CHECK(p.total == 32'207'337'984);
    // IBM's card: 32B total, 9B active.
    near_published(p.total, 32e9, 1e9);
    near_published(p.active, 9e9, 1e9);
}

TEST_CASE("arch: Falcon-H1-0.5B: attention and a Mamba-2 mixer side by side in every layer") {
    // An assembled config (tests/data/README.md): a public copy with mamba_d_ssm restored.
    const ModelSpec m = from_file("falcon-h1-0.5b.assembled.json");
    const ParamBreakdown p = count_parameters(m);
    CHECK(attention_layers(m) == 36);
    CHECK(m.hybrid.state_blocks() == 36);
    CHECK(layer_attends(m, 0));
    // One mixer: in_proj [1536 + 1792 + 24, 1024], conv1d [1792, 1, 4] + bias, dt_bias / A_log / D [24], out_proj.
    CHECK(p.mamba == 36 * (3352LL * 1024 + 1792 * 4 + 1792 + 3 * 24 + 1536LL * 1024));
    CHECK(p.total == 521'411'104);
    // TII's Falcon-H1 release: 0.5B.
    near_published(p.total, 0.5e9, 0.1e9);
    // KV in all 36 layers (2 KV heads x 64), and each layer's Mamba state beside it.
    CHECK(kv_bytes_per_token(m, 2, false) == 36 * 2 * 2 * 64 * 2);
}

}  // namespace unit_arch_2025
}  // namespace
