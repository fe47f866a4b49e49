// Random layer stacks of every layer type, with empty, nested and repeated blocks, skip connections to
// names that may or may not exist, and inputs of every rank (issue 42: a stack whose only layer was an
// empty block read past a heap buffer). Each must be refused with a message or give a bill whose lines
// sum to its total; the sanitizer build (tools/dev.sh test) runs these under ASan and UBSan.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_layer_stack_random {  // the file's own names: the unit tests build in unity batches

using nlohmann::json;

namespace {

struct Gen {
    std::mt19937 rng;
    std::vector<std::string> names;  // names given so far, for "from"
    int made = 0;

    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
    std::string some_name() { return names.empty() || pick(5) == 0 ? "nowhere" : names[static_cast<std::size_t>(pick(static_cast<int>(names.size())))]; }

    json op() {
        const auto& types = vramcalc::layer_stack_types();
        std::string t = types[static_cast<std::size_t>(pick(static_cast<int>(types.size())))];
        json l = {{"type", t}};
        const int size = 1 << pick(7);  // 1 .. 64
        if (t == "linear") l["out_features"] = size;
        if (t.rfind("conv", 0) == 0) l["out_channels"] = size, l["kernel_size"] = 1 + pick(3), l["padding"] = pick(2);
        if (t == "group_norm") l["num_groups"] = 1 << pick(3);
        if (t == "embedding") l["num_embeddings"] = 100, l["embedding_dim"] = size;
        if (t == "multi_head_attention") l["embed_dim"] = size, l["num_heads"] = 1 << pick(3);
        if (t == "max_pool" || t.rfind("max_pool", 0) == 0 || t == "avg_pool") l["kernel_size"] = 2;
        if (t == "adaptive_avg_pool") l["output_size"] = 1;
        if (t == "upsample") l["scale_factor"] = 2;
        if (t == "add" || t == "concat" || t == "mul" || t == "to_grid") l["from"] = some_name();
        if (pick(6) == 0) l["input_from"] = some_name();
        if (t == "block") return block(0);
        return l;
    }
    json block(int depth) {
        json b = {{"type", "block"}, {"layers", json::array()}};
        const int n = depth > 3 ? 0 : pick(4);  // 0: an empty block, refused with a message
        for (int i = 0; i < n; ++i) b["layers"].push_back(pick(4) == 0 ? block(depth + 1) : named(op()));
        if (pick(3) == 0) b["repeat"] = 1 + pick(3);
        return named(b);
    }
    json named(json l) {
        if (pick(2) == 0) {
            const std::string n = pick(8) == 0 && !names.empty() ? names.back() : "n" + std::to_string(++made);  // sometimes a repeat
            l["name"] = n;
            names.push_back(n);
        }
        return l;
    }
    json stack() {
        names.clear();
        static const json inputs[] = {json{3, 16, 16}, json{8}, json{12, 16}, json{2, 4, 8, 8}, json{4, 8, 8}};
        json s = {{"input", inputs[pick(5)]}, {"layers", json::array()}};
        const int n = pick(7);  // 0: no layers, refused
        for (int i = 0; i < n; ++i) s["layers"].push_back(pick(5) == 0 ? block(0) : named(op()));
        if (pick(4) == 0) s["loss"] = pick(2) ? "mse" : "cross_entropy";
        return s;
    }
};

}  // namespace

TEST_CASE("layer stacks: random stacks are refused with a message or billed consistently") {
    Gen g{std::mt19937(20261127u)};
    int billed = 0, refused = 0;
    for (int i = 0; i < 600; ++i) {
        const json st = g.stack();
        INFO(st.dump());
        const auto r = vramcalc::layer_stack_from_json(st);
        if (!r.ok()) {
            CHECK_FALSE(r.errors.empty());
            for (const auto& e : r.errors) CHECK_FALSE(e.message.empty());
            ++refused;
            continue;
        }
        CHECK_FALSE(r->layers.empty());
        for (const char* workload : {"train", "infer"}) {
            const auto sc = vramcalc::scenario_from_json(
                {{"model", st}, {"workload", workload}, {"gpu", "a100-80gb"}, {"precision", "bf16-mixed"}}, vramcalc::test::catalog());
            if (!sc.ok()) continue;
            const auto b = vramcalc::estimate(*sc);
            std::int64_t sum = 0;
            for (const auto& c : b.components) {
                CHECK(c.bytes >= 0);
                sum += c.bytes;
            }
            CHECK(sum == b.device_bytes);
        }
        ++billed;
    }
    // The generator reaches both outcomes often enough to mean something.
    CHECK(billed > 60);
    CHECK(refused > 60);
}

TEST_CASE("layer stacks: an empty block, a stack of empty blocks and a name used for two modules are refused") {
    for (const char* text : {R"({"input":[8],"layers":[{"type":"block","layers":[]}]})",
                             R"({"input":[8],"layers":[{"type":"block","layers":[{"type":"block","layers":[]}]}]})",
                             R"({"input":[8],"layers":[{"type":"linear","out_features":4,"name":"a"},{"type":"relu","name":"a"}]})",
                             R"({"input":[8],"layers":[{"type":"linear","out_features":8,"name":"a"},{"type":"linear","out_features":8,"name":"a"}]})"}) {
        INFO(text);
        const auto r = vramcalc::layer_stack_from_text(text);
        REQUIRE_FALSE(r.ok());
        CHECK_FALSE(r.error_text().empty());
    }
    // A parameter-free module called twice (torchvision's ResNet relu) is one module; the same name in two
    // repeats of a block is two modules.
    CHECK(vramcalc::layer_stack_from_text(
              R"({"input":[8],"layers":[{"type":"relu","name":"r"},{"type":"linear","out_features":8},{"type":"relu","name":"r"}]})")
              .ok());
    const auto ok = vramcalc::layer_stack_from_text(
        R"({"input":[8],"layers":[{"type":"block","repeat":3,"layers":[{"type":"linear","out_features":8,"name":"x"},{"type":"add","from":"x"}]}]})");
    CHECK(ok.ok());
}

}  // namespace unit_layer_stack_random
}  // namespace
