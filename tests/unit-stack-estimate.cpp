// Layer stacks in the estimator: the training bill reads the stack's own numbers (saved bytes per sample
// x micro_batch in the recipe's activation dtype, per-batch statistics, autocast weight copies), the solver
// gives a max micro-batch and no sequence length, inference keeps the forward's live tensors, and the
// settings a stack cannot run with are errors that say why.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/curves.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/url_state.hpp"

namespace {
namespace unit_stack_estimate {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using Catch::Matchers::WithinRel;
using nlohmann::json;

namespace {

// conv(3 -> 16, 3x3, pad 1) -> relu_ -> conv(16 -> 16) -> flatten -> linear(1024 -> 10) on [3, 8, 8].
json small_stack() {
    return json::parse(R"({"input": [3, 8, 8], "layers": [
        {"type": "conv2d", "name": "c1", "out_channels": 16, "kernel_size": 3, "padding": 1, "bias": false},
        {"type": "relu", "inplace": true},
        {"type": "conv2d", "name": "c2", "out_channels": 16, "kernel_size": 3, "padding": 1, "bias": false},
        {"type": "flatten"},
        {"type": "linear", "out_features": 10}]})");
}

std::string first_error(const json& j) {
    auto r = scenario_from_json(j, test::catalog());
    REQUIRE_FALSE(r.ok());
    return r.errors.front().text();
}

}  // namespace

TEST_CASE("stack estimate: ResNet-50 at micro-batch 64 reads the stack's saved bytes and solves the largest batch") {
    const Scenario s = test::scenario({{"model", "resnet50"}, {"micro_batch", 64}});
    REQUIRE(s.model.stack);
    const LayerStack& st = *s.model.stack;
    const Bill b = estimate(s);
    CHECK(b.parameters == 25557032);  // torchvision ResNet50_Weights.IMAGENET1K_V1 num_params
    // bf16 autocast: 2-byte activations, plus the 16-bit copies of every conv and linear weight.
    double copies = 0;
    for (const auto& g : s.model.params)
        if (g.cols > 1) copies += static_cast<double>(g.rows * g.cols);
    const double expected = st.saved_bytes_per_sample(2) * 64 + st.saved_bytes_per_batch() + 2 * copies;
    CHECK_THAT(static_cast<double>(b.component("activations")), WithinRel(expected, 1e-9));
    // fp32 model, AdamW: 4 B weights, 4 B gradients, 8 B states.
    CHECK(b.component("weights") == 4 * 25557032);
    CHECK(b.component("optimizer") == 8 * 25557032);
    REQUIRE(b.max_micro_batch);
    CHECK(*b.max_micro_batch > 64);
    CHECK_FALSE(b.max_seq_len);
    // The largest batch fits and one more does not, by what the run needs when the GPU runs out (allocated plus
    // the segments with a live block: the allocator frees its cache and retries first), as for every solver.
    Scenario at = s;
    at.micro_batch = *b.max_micro_batch;
    const double budget = static_cast<double>(s.gpu.memory_bytes) * s.target_utilization;
    CHECK(static_cast<double>(estimate_peak(at).needed_bytes) <= budget);
    at.micro_batch += 1;
    CHECK(static_cast<double>(estimate_peak(at).needed_bytes) > budget);
    // The stack's step is replayed on the caching allocator: the reserve is the replay's, not the fitted line.
    CHECK(b.replay_reserve_bytes > 0);
}

TEST_CASE("stack estimate: fp32 keeps 4-byte activations, which scale with the micro-batch") {
    const Scenario a = test::scenario({{"model", "resnet18"}, {"micro_batch", 8}, {"precision", "fp32"}});
    const Scenario b = test::scenario({{"model", "resnet18"}, {"micro_batch", 16}, {"precision", "fp32"}});
    const LayerStack& st = *a.model.stack;
    const double per_batch = st.saved_bytes_per_batch();
    CHECK_THAT(static_cast<double>(estimate(a).component("activations")), WithinRel(st.saved_bytes_per_sample(4) * 8 + per_batch, 1e-9));
    CHECK_THAT(static_cast<double>(estimate(b).component("activations")), WithinRel(st.saved_bytes_per_sample(4) * 16 + per_batch, 1e-9));
}

TEST_CASE("stack estimate: an inline stack with frozen layers trains only the rest") {
    json m = small_stack();
    m["layers"][0]["trainable"] = false;
    const Scenario s = test::scenario({{"model", m}, {"micro_batch", 4}, {"precision", "fp32"}});
    const Bill b = estimate(s);
    const i64 c1 = 16 * 3 * 9, c2 = 16 * 16 * 9, fc = 10 * 1024 + 10;
    CHECK(b.parameters == c1 + c2 + fc);
    CHECK(b.trainable_parameters == c2 + fc);
    CHECK(b.component("master_weights") == 0);  // fp32: no master copy
    CHECK(b.component("optimizer") == 8 * (c2 + fc));
}

TEST_CASE("stack estimate: inference keeps the tensors a no_grad forward has alive at once") {
    // Per sample: c1 reads the input (192) and makes 1024; relu_ overwrites it; c2 makes 1024 more while
    // c1's output is read: 2048 elements at once, the most of any layer (the flatten is a view).
    auto st = layer_stack_from_json(small_stack());
    REQUIRE(st.ok());
    CHECK(st.value->forward_peak_elements == 2048);
    CHECK(st.value->largest_tensor_elements == 1024);
    const Scenario s = test::scenario({{"model", small_stack()}, {"workload", "infer"}, {"batch", 32}, {"weights", "fp32"}});
    const Bill b = estimate(s);
    CHECK(b.component("activations") == 2048 * 4 * 32);
    CHECK(b.component("weights") == (16 * 3 * 9 + 16 * 16 * 9 + 10 * 1024 + 10) * 4);
    CHECK(b.component("kv_cache") == 0);
    CHECK(b.max_batch);
}

TEST_CASE("stack estimate: what a stack does not model is said, what it cannot run is refused") {
    const Bill b = estimate(test::scenario({{"model", "resnet18"}, {"checkpointing", "full"}}));
    bool warned = false;
    for (const auto& w : b.warnings) warned = warned || w.find("not modelled for a layer stack") != std::string::npos;
    CHECK(warned);
    CHECK(first_error({{"model", "resnet18"}, {"method", "freeze"}}).find("trainable") != std::string::npos);
    CHECK(first_error({{"model", "resnet18"}, {"framework", "vllm"}, {"workload", "infer"}}).find("plain PyTorch") != std::string::npos);
    CHECK(first_error({{"model", "resnet18"}, {"tp", 2}, {"num_gpus", 2}}).find("data parallel") != std::string::npos);
    json bad = small_stack();
    bad["layers"][4]["in_features"] = 100;
    const std::string e = first_error({{"model", bad}});
    CHECK(e.find("model.layers[4]") != std::string::npos);
    CHECK(e.find("1024") != std::string::npos);
}

TEST_CASE("stack estimate: a stack, inline or by preset id, is written back as given and travels in a link") {
    json named = small_stack();
    named["name"] = "my net";
    for (const json& model : {json("resnet50"), named}) {
        const Scenario s = test::scenario({{"model", model}, {"micro_batch", 32}});
        const json w = scenario_to_json(s);
        CHECK(w["model"] == model);
        const Scenario s2 = test::scenario(w);
        CHECK(bill_to_json(estimate(s2)) == bill_to_json(estimate(s)));
        const std::string hash = encode_url_state(w);
        if (model.is_object()) CHECK(hash.find("config=") != std::string::npos);
        auto back = decode_url_state(hash);
        REQUIRE(back.ok());
        CHECK(*back == w);
    }
    CHECK(test::scenario({{"model", named}}).model.name == "my net");
}

TEST_CASE("stack estimate: training FLOPs are the stack's forward FLOPs, backward twice, per sample") {
    const Scenario s = test::scenario({{"model", "resnet50"}, {"micro_batch", 64}});
    const Bill b = estimate(s);
    REQUIRE(b.speed);
    const double fwd = s.model.stack->flops_per_sample() * 64;
    CHECK_THAT(b.speed->model_flops_per_step, WithinRel(3 * fwd, 1e-9));
    CHECK(b.speed->tokens_per_step == 64);
}

TEST_CASE("stack estimate: memory curves have a batch axis and no length axis") {
    const Scenario s = test::scenario({{"model", "resnet18"}, {"micro_batch", 32}});
    const MemoryCurves c = memory_curves(s, estimate(s));
    CHECK(c.by_batch.size() > 3);
    CHECK(c.by_length.empty());
}

}  // namespace unit_stack_estimate
}  // namespace
