// Tensor roles: the estimator reads what a tensor does (q, v, gate, up, gate_up, down, ...), never its
// module name or the model_type, so a renamed or fused projection costs what its role costs.
#include <catch2/catch.hpp>

#include "training/activations.hpp"
#include "model/lora_targets.hpp"
#include "test_data.hpp"
#include "vramcalc/estimate.hpp"

namespace {
namespace unit_roles {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using namespace vramcalc::detail;

namespace {

using test::preset;

ActivationSetup lora_setup(std::vector<std::string> targets) {
    ActivationSetup a;
    a.compute = 2;
    a.residual = 2;
    a.train_linears = false;
    a.train_norms = false;
    a.lora = true;
    a.lora_setup.rank = 16;
    a.lora_setup.dropout = 0;
    a.lora_setup.targets = std::move(targets);
    a.adapter_bytes = 2;
    return a;
}

double per_token(const ModelSpec& m, const ActivationSetup& a) { return layer_bytes(layer_saved_tensors(m, a), 1, 1, false); }

// The same model with its MLP (or expert) projections renamed to Llama's gate_proj / up_proj / down_proj.
ModelSpec llama_names(ModelSpec m) {
    for (auto& g : m.params) {
        if (g.role == Role::gate) g.name = "gate_proj";
        if (g.role == Role::up) g.name = "up_proj";
        if (g.role == Role::down) g.name = "down_proj";
    }
    return m;
}

Scenario train(const char* model, const nlohmann::json& lora) {
    return test::scenario({{"model", model}, {"method", "lora"}, {"lora", lora}, {"micro_batch", 1}, {"seq_len", 512}});
}

}  // namespace

TEST_CASE("roles: renamed MLP projections (Mixtral w1/w3, Qwen-1 w1/w2, gated T5 wi_0/wi_1) cost what gate/up cost") {
    struct Case {
        const char* preset;
        std::vector<std::string> own;  // the family's names of its gate and up projections
    };
    const Case cases[] = {{"mixtral-8x7b-v0.1", {"w1", "w3"}}, {"qwen-7b", {"w1", "w2"}}, {"mt5-base", {"wi_0", "wi_1"}}};
    for (const auto& c : cases) {
        INFO(c.preset);
        const ModelSpec m = preset(c.preset);
        const ModelSpec renamed = llama_names(m);
        const double own = per_token(m, lora_setup(c.own));
        const double llama = per_token(renamed, lora_setup({"gate_proj", "up_proj"}));
        const double none = per_token(m, lora_setup({"no_such_module"}));
        CHECK(own == llama);
        CHECK(own > none);  // the adapters' saved inputs are there
        // Adapter parameters follow the same rule.
        LoraSetup l;
        l.targets = c.own;
        LoraSetup ll;
        ll.targets = {"gate_proj", "up_proj"};
        double a = 0, b = 0;
        for (const auto& g : m.params) a += lora_targets(l, g) ? static_cast<double>(g.count) : 0;
        for (const auto& g : renamed.params) b += lora_targets(ll, g) ? static_cast<double>(g.count) : 0;
        CHECK(a == b);
        CHECK(a > 0);
    }
}

TEST_CASE("roles: a LoRA on Phi-3's fused gate_up_proj saves one adapter's input and rank-r intermediate") {
    const ModelSpec m = preset("phi-3-mini-4k-instruct");
    const double h = static_cast<double>(m.hidden), r = 16, bytes = 2;
    const double fused = per_token(m, lora_setup({"gate_up_proj"}));
    const double none = per_token(m, lora_setup({"no_such_module"}));
    CHECK(fused - none == bytes * (h + r));  // lora_A reads the h-wide input, lora_B the r-wide intermediate

    // Split into gate_proj and up_proj (what LitGPT builds from the same checkpoint), two adapters save twice.
    ModelSpec split = m;
    split.params.clear();
    for (const auto& g : m.params) {
        if (g.role != Role::gate_up) {
            split.params.push_back(g);
            continue;
        }
        ParamGroup gate = g, up = g;
        gate.name = "gate_proj", gate.role = Role::gate, gate.rows = g.rows / 2;
        up.name = "up_proj", up.role = Role::up, up.rows = g.rows / 2;
        split.params.push_back(gate);
        split.params.push_back(up);
    }
    CHECK(per_token(split, lora_setup({"gate_proj", "up_proj"})) - none == 2 * bytes * (h + r));
}

TEST_CASE("roles: the default LoRA targets are the model's query and value projections (PEFT's mapping)") {
    struct Case {
        const char* preset;
        const char* names;  // PEFT TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING for the model type
    };
    const Case cases[] = {{"llama-3.1-8b", "q_proj, v_proj"}, {"gpt2", "c_attn"}, {"falcon-7b", "query_key_value"}, {"bert-base-uncased", "query, value"}, {"mt5-base", "q, v"}, {"baichuan-7b", "W_pack"}, {"phi-3-mini-4k-instruct", "qkv_proj"}, {"qwen-7b", "c_attn"}, {"pythia-1b", "query_key_value"}};
    for (const auto& c : cases) {
        INFO(c.preset);
        LoraSetup l;
        l.targets.clear();
        CHECK(lora_target_names(l, preset(c.preset)) == c.names);
    }
}

TEST_CASE("roles: tensor parallelism keeps column-parallel inputs whole by role, whatever the module is called") {
    // Mixtral's experts read their input through w1/w3: those LoRA A inputs are replicated like gate/up.
    const ModelSpec m = preset("mixtral-8x7b-v0.1");
    for (const auto& t : layer_saved_tensors(m, lora_setup({"w1", "w3", "w2"}))) {
        INFO(t.op);
        if (t.op.find("A input") == std::string::npos) continue;
        CHECK(t.tp_replicated == (t.op.find("w2") == std::string::npos));
    }
}

TEST_CASE("roles: the estimator reads no module names: a Mixtral bill with renamed experts is the same bill") {
    Scenario a = train("mixtral-8x7b-v0.1", {{"rank", 8}, {"targets", {"w1", "w3"}}});
    Scenario b = a;
    b.model = llama_names(a.model);
    b.lora.targets = {"gate_proj", "up_proj"};
    const Bill x = estimate_peak(a), y = estimate_peak(b);
    CHECK(x.device_bytes == y.device_bytes);
    CHECK(x.component("activations") == y.component("activations"));
    CHECK(x.component("lora") == y.component("lora"));
    CHECK(x.component("lora") > 0);
}

}  // namespace unit_roles
}  // namespace
