// LitGPT's LLaMA-Adapter and Adapter-v2 (method "llama-adapter" / "adapter-v2"): the trainable counts the
// LitGPT resource table prints (tutorials/resource-tables.md @8641822) and the bytes the adapters add; and
// PEFT's DoRA (lora.use_dora): its magnitudes and the tensors it keeps.
#include <catch2/catch.hpp>

#include "test_data.hpp"
#include "training/activations.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_adapter {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {
Bill bill(const std::string& text) { return estimate(test::scenario(nlohmann::json::parse(text))); }
std::string litgpt(const std::string& model, const std::string& method, const std::string& more = "") {
    return R"({"model": ")" + model + R"(", "framework": "litgpt", "precision": "bf16", "gpu": "a100-40gb", "method": ")" +
           method + R"(", "micro_batch": 1, "seq_len": 1034, "checkpointing": "none")" + more + "}";
}
}  // namespace

TEST_CASE("adapter: trainable parameters match LitGPT's printed counts") {
    // StableLM-alpha-3B: 16 layers, n_embd 4096, 32 heads; from layer 2: 14 x (10 x 4096 + 32).
    CHECK(bill(litgpt("stablelm-base-alpha-3b", "llama-adapter")).trainable_parameters == 573888);
    // Llama-2-7B: 32 layers, 30 adapted x (10 x 4096 + 32).
    CHECK(bill(litgpt("llama-2-7b", "llama-adapter")).trainable_parameters == 1229760);
    // Adapter-v2 adds a bias and a scale per output of every linear (lm_head too) and the norms.
    CHECK(bill(litgpt("stablelm-base-alpha-3b", "adapter-v2")).trainable_parameters == 2125248);
    CHECK(bill(litgpt("llama-2-7b", "adapter-v2")).trainable_parameters == 4279744);
}

TEST_CASE("adapter: states are bf16 adapters, gradients and AdamW moments") {
    const Bill b = bill(litgpt("llama-2-7b", "llama-adapter"));
    CHECK(b.component("lora") == 1229760 * 2);
    CHECK(b.component("optimizer") == 1229760 * 2 * 2);
}

TEST_CASE("adapter: the prompt attention keeps ay and its logsumexp in every adapted layer") {
    // LoRA that matches no module runs the same frozen layers (no norms trained, every layer recorded);
    // llama-adapter from layer 0 adds per token and layer 2 B x hidden (ay) + 4 B x heads (logsumexp).
    const Bill none = bill(litgpt("llama-2-7b", "lora", R"(, "lora": {"targets": ["no_such_module"]})"));
    const Bill ad = bill(litgpt("llama-2-7b", "llama-adapter", R"(, "adapter_start_layer": 0)"));
    const double tokens = 1034, layers = 32;
    CHECK(static_cast<double>(ad.component("activations") - none.component("activations")) ==
          Approx(layers * tokens * (2.0 * 4096 + 4.0 * 32)).epsilon(1e-9));
}

TEST_CASE("DoRA: magnitude vectors, the two kept outputs per adapted linear, the merged-weight transient") {
    // Qwen2.5-0.5B (hidden 896, 14 heads of 64, 2 KV heads, 24 layers) with LoRA r8 on q_proj and v_proj:
    // DoRA adds one trainable magnitude per output row, 24 x (896 + 128), fp32 in PEFT.
    const std::string base = R"({"model": "qwen2.5-0.5b", "method": "lora", "precision": "bf16", "gpu": "a100-80gb",
        "micro_batch": 1, "seq_len": 512, "lora": {"rank": 8, "targets": ["q_proj", "v_proj"])";
    const Bill lora = bill(base + "}}");
    const Bill dora = bill(base + R"(, "use_dora": true}})");
    CHECK(dora.component("lora") - lora.component("lora") == 24LL * (896 + 128) * 4);
    CHECK(dora.trainable_parameters - lora.trainable_parameters == 24LL * (896 + 128));
    // Per token and layer: the base output (bf16) and the adapter output (fp32) of each adapted linear.
    detail::ActivationSetup a;
    a.lora = true;
    a.adapter_bytes = 4;
    a.lora_setup.targets = {"q_proj", "v_proj"};
    a.lora_setup.rank = 8;
    a.train_linears = false;
    a.train_norms = false;
    const ModelSpec m = test::preset("qwen2.5-0.5b");
    const double before = detail::layer_bytes(detail::layer_saved_tensors(m, a), 1, 1, false);
    a.lora_setup.use_dora = true;
    CHECK(detail::layer_bytes(detail::layer_saved_tensors(m, a), 1, 1, false) - before == (2.0 + 4.0) * (896 + 128));
    // A scenario round-trips use_dora, and leaves it out when false.
    CHECK(scenario_to_json(test::scenario(nlohmann::json::parse(base + R"(, "use_dora": true}})")))["lora"]["use_dora"] == true);
    CHECK_FALSE(scenario_to_json(test::scenario(nlohmann::json::parse(base + "}}")))["lora"].contains("use_dora"));
}

}  // namespace unit_adapter
}  // namespace
