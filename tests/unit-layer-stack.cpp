// Layer stacks: exact parameter counts of the presets (presets/layer_stacks, read from the source tree),
// saved bytes of small blocks by hand, shape errors that name the layer, and malformed input.
#include <cstdio>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/layer_stack.hpp"

namespace {
namespace unit_layer_stack {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using Catch::Matchers::WithinRel;
using nlohmann::json;

namespace {

// presets/layer_stacks beside tests/data (VRAMCALC_TEST_DATA is <repo>/tests/data).
json load_preset(const std::string& name) {
    return test::load_json("../../presets/layer_stacks/" + name + ".json");
}

LayerStack stack_ok(const json& j) {
    auto r = layer_stack_from_json(j);
    INFO(r.error_text());
    REQUIRE(r.ok());
    return *r.value;
}

std::string error_of(const json& j) {
    auto r = layer_stack_from_json(j);
    REQUIRE_FALSE(r.ok());
    REQUIRE_FALSE(r.errors.empty());
    return r.error_text();
}

}  // namespace

TEST_CASE("layer stack: every preset's parameter count equals torchvision's published num_params") {
    for (const char* name : {"resnet18", "resnet50", "resnet101", "vgg16", "vit_b_16", "convnext_tiny", "mobilenet_v3_large", "efficientnet_b0"}) {
        const json j = load_preset(name);
        INFO(name);
        REQUIRE(j.is_object());
        const LayerStack s = stack_ok(j);
        CHECK(s.parameters == j.at("num_params").get<i64>());
        CHECK(s.output_shape() == std::vector<i64>{1000});
        // torchvision's GFLOPS ("_ops") count one multiply-accumulate as one operation; ours are 2 x MACs
        // of convs, linears and attention matmuls only (norms, activations and pools are not counted).
        const double gmacs = s.flops_per_sample() / 2 / 1e9;
        std::printf("layer stack %-14s params %lld, GMACs %.3f (published GFLOPS %.3f)\n", name,
                    static_cast<long long>(s.parameters), gmacs, j.at("gflops").get<double>());
        CHECK_THAT(gmacs, WithinRel(j.at("gflops").get<double>(), 0.02));
    }
}

TEST_CASE("layer stack: conv -> batch_norm -> relu(inplace) -> conv saved bytes by hand") {
    // Per sample, fp32 (4 bytes), input [3, 8, 8], 16 channels, 3x3 convs with padding 1 (8x8 kept):
    //   conv_a keeps its input X:               3 x 64 = 192 elements  ->  768 B
    //   bn keeps its input (conv_a's output):  16 x 64 = 1024 elements -> 4096 B
    //   relu_ keeps its result, which is bn's output overwritten:  1024 -> 4096 B
    //   conv_b keeps its input: the same tensor as relu's result    ->    0 B
    //   total 768 + 4096 + 4096 = 8960 B per sample; bn's fp32 mean and invstd: 2 x 16 x 4 = 128 B per batch.
    json j = {{"input", {3, 8, 8}},
              {"layers",
               {{{"type", "conv2d"}, {"name", "conv_a"}, {"out_channels", 16}, {"kernel_size", 3}, {"padding", 1}, {"bias", false}},
                {{"type", "batch_norm"}, {"name", "bn"}},
                {{"type", "relu"}, {"name", "relu"}, {"inplace", true}},
                {{"type", "conv2d"}, {"name", "conv_b"}, {"out_channels", 16}, {"kernel_size", 3}, {"padding", 1}}}}};
    LayerStack s = stack_ok(j);
    CHECK(s.saved_bytes_per_sample(4) == 8960);
    CHECK(s.saved_bytes_per_batch() == 128);
    CHECK(s.layers[3].saved_bytes(4) == 0);
    // Parameters: 16x3x3x3 = 432; bn 2 x 16 = 32 (+ 32 running buffers); 16x16x3x3 + 16 = 2320.
    CHECK(s.parameters == 432 + 32 + 2320);
    CHECK(s.buffers == 32);
    // FLOPs: 2 x 64 outputs x 16 channels x (3 x 9) + 2 x 64 x 16 x (16 x 9).
    CHECK(s.flops_per_sample() == 2.0 * 64 * 16 * 27 + 2.0 * 64 * 16 * 144);

    // A ReLU that is not in place keeps its own output instead: the same count (bn's output is not kept).
    j["layers"][2]["inplace"] = false;
    CHECK(stack_ok(j).saved_bytes_per_sample(4) == 8960);
    // GELU keeps its input (bn's output), and conv_b then keeps GELU's output: one more 4096 B tensor.
    j["layers"][2] = {{"type", "gelu"}};
    CHECK(stack_ok(j).saved_bytes_per_sample(4) == 8960 + 4096);
    // In bf16 (2 bytes) every activation tensor halves: (192 + 1024 + 1024 + 1024) x 2.
    CHECK(stack_ok(j).saved_bytes_per_sample(2) == (192 + 3 * 1024) * 2);
}

TEST_CASE("layer stack: frozen layers keep only what the required gradients need") {
    // The hand block above with conv_a frozen: nothing upstream needs a gradient, so conv_a is not recorded
    // (its input is not kept); bn trains, so it keeps its input (4096 B) and relu_ its result (4096 B).
    json j = {{"input", {3, 8, 8}},
              {"layers",
               {{{"type", "conv2d"}, {"name", "conv_a"}, {"out_channels", 16}, {"kernel_size", 3}, {"padding", 1}, {"bias", false}, {"trainable", false}},
                {{"type", "batch_norm"}, {"name", "bn"}},
                {{"type", "relu"}, {"name", "relu"}, {"inplace", true}},
                {{"type", "conv2d"}, {"name", "conv_b"}, {"out_channels", 16}, {"kernel_size", 3}, {"padding", 1}}}}};
    LayerStack s = stack_ok(j);
    CHECK(s.saved_bytes_per_sample(4) == 8192);
    CHECK(s.trainable_parameters == 32 + 2320);
    // bn frozen too: only conv_b (trained) keeps its input, 4096 B, and no batch statistics are kept.
    j["layers"][1]["trainable"] = false;
    s = stack_ok(j);
    CHECK(s.saved_bytes_per_sample(4) == 4096);
    CHECK(s.saved_bytes_per_batch() == 0);
    // A frozen block before a trained head (fine-tuning the classifier only): ResNet-18 keeps only fc's input.
    json r = load_preset("resnet18");
    for (auto& l : r["layers"])
        if (l.value("name", "") != "fc") l["trainable"] = false;
    s = stack_ok(r);
    CHECK(s.trainable_parameters == 512 * 1000 + 1000);
    CHECK(s.saved_bytes_per_sample(4) == 512 * 4);
}

TEST_CASE("layer stack: max_pool keeps int64 indices, dropout a 1-byte mask, add nothing") {
    // [4, 8, 8] -> conv 1x1 (trained, so what follows is recorded) -> relu -> max_pool 2x2: relu's result
    // (256 elements, fp32 1024 B) is the pool's input; the pool adds 4 x 4 x 4 = 64 int64 indices (512 B).
    // dropout p=0.5 on [64]: 64 B of mask; linear keeps the dropout output (64 x 4 B); add keeps nothing.
    json j = {{"input", {4, 8, 8}},
              {"layers",
               {{{"type", "conv2d"}, {"out_channels", 4}, {"kernel_size", 1}},
                {{"type", "relu"}, {"name", "r"}},
                {{"type", "max_pool"}, {"kernel_size", 2}},
                {{"type", "flatten"}},
                {{"type", "dropout"}, {"p", 0.5}, {"name", "d"}},
                {{"type", "linear"}, {"out_features", 64}},
                {{"type", "add"}, {"from", "d"}}}}};
    LayerStack s = stack_ok(j);
    CHECK(s.layers[2].out_shape == std::vector<i64>{4, 4, 4});
    CHECK(s.layers[1].saved_bytes(4) == 1024);
    CHECK(s.layers[2].saved_bytes(4) == 512);
    CHECK(s.layers[4].saved_bytes(4) == 64);
    CHECK(s.layers[5].saved_bytes(4) == 256);
    CHECK(s.layers[6].saved_bytes(4) == 0);
    // Without the conv nothing upstream needs a gradient: relu, pool and dropout are not recorded at all.
    j["layers"].erase(0);
    s = stack_ok(j);
    CHECK(s.layers[0].saved_bytes(4) + s.layers[1].saved_bytes(4) + s.layers[3].saved_bytes(4) == 0);
}

TEST_CASE("layer stack: shape errors name the layer and the shapes") {
    json j = {{"input", {256, 14, 14}},
              {"layers",
               {{{"type", "block"}, {"name", "layer3"}, {"start", 0}, {"repeat", 1}, {"layers", {{{"type", "conv2d"}, {"name", "conv1"}, {"in_channels", 128}, {"out_channels", 64}, {"kernel_size", 1}}}}}}}};
    const std::string e = error_of(j);
    CHECK(e.find("layers[0].layers[0] (layer3.0.conv1): conv2d expects 128 input channels, got 256") != std::string::npos);

    json add = {{"input", {8, 4, 4}},
                {"layers", {{{"type", "conv2d"}, {"name", "a"}, {"out_channels", 16}, {"kernel_size", 1}}, {{"type", "add"}, {"name", "sum"}, {"from", "a"}, {"input_from", "input_missing"}}}}};
    CHECK(error_of(add).find("layers[1] (sum)") != std::string::npos);
    add["layers"][1].erase("input_from");
    add["layers"].insert(add["layers"].begin() + 1, json{{"type", "max_pool"}, {"kernel_size", 2}});
    const std::string e2 = error_of(add);
    CHECK(e2.find("layers[2] (sum): add cannot add [16, 4, 4] to [16, 2, 2]") != std::string::npos);

    json big_kernel = {{"input", {3, 4, 4}}, {"layers", {{{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 7}}}}};
    CHECK(error_of(big_kernel).find("does not fit input [3, 4, 4]") != std::string::npos);
}

TEST_CASE("layer stack: attention, embedding, transposed conv and upsample shapes") {
    json j = {{"input", {16}},
              {"layers",
               {{{"type", "embedding"}, {"num_embeddings", 100}, {"embedding_dim", 32}},
                {{"type", "multi_head_attention"}, {"embed_dim", 32}, {"num_heads", 4}},
                {{"type", "layer_norm"}}}}};
    LayerStack s = stack_ok(j);
    CHECK(s.output_shape() == std::vector<i64>{16, 32});
    CHECK(s.parameters == 100 * 32 + (3 * 32 * 32 + 3 * 32) + (32 * 32 + 32) + 2 * 32);
    // Embedding: 16 int64 ids (128 B). Attention (fp32): in_proj input 16x32, q/k/v 3x16x32, output 16x32,
    // out_proj input 16x32 = 6 x 512 elements (12288 B) + log-sum-exp 4 B x 4 heads x 16 rows (256 B).
    CHECK(s.layers[0].saved_bytes(4) == 128);
    CHECK(s.layers[1].saved_bytes(4) == 6 * 512 * 4 + 256);

    json u = {{"input", {8, 5, 5}},
              {"layers",
               {{{"type", "conv_transpose2d"}, {"out_channels", 4}, {"kernel_size", 4}, {"stride", 2}, {"padding", 1}},
                {{"type", "upsample"}, {"scale_factor", 2}, {"mode", "bilinear"}},
                {{"type", "group_norm"}, {"num_groups", 2}},
                {{"type", "conv1d"}, {"out_channels", 4}, {"kernel_size", 3}}}}};
    CHECK(error_of(u).find("conv1d expects an input [C, L], got [4, 20, 20]") != std::string::npos);
    u["layers"].erase(3);
    CHECK(stack_ok(u).output_shape() == std::vector<i64>{4, 20, 20});
}

TEST_CASE("layer stack: ResNet-50 saved activation bytes per sample at 224x224 in fp32") {
    const LayerStack s = stack_ok(load_preset("resnet50"));
    const double mib = s.saved_bytes_per_sample(4) / (1024.0 * 1024.0);
    std::printf("layer stack resnet50: %.1f MiB saved for backward per 224x224 sample in fp32\n", mib);
    // No published measurement of ResNet-50's saved activations per sample was found (searched: "ResNet-50
    // activation memory per image training fp32 224"); the bounds are structural instead. Every conv's
    // output is kept by the batch norm after it, so the sum of conv outputs is a floor; every layer's
    // output kept once, plus the input and the pools' int64 indices, is a ceiling.
    double conv_out = 0, all_out = 3.0 * 224 * 224;
    for (const auto& l : s.layers) {
        double n = 1;
        for (i64 d : l.out_shape) n *= static_cast<double>(d);
        if (l.type == "conv2d") conv_out += n;
        all_out += n;
    }
    const double indices = 64.0 * 56 * 56 * 8;
    CHECK(s.saved_bytes_per_sample(4) > conv_out * 4);
    CHECK(s.saved_bytes_per_sample(4) < all_out * 4 + indices);
    CHECK(mib > 60);
    CHECK(mib < 200);
}

TEST_CASE("layer stack: malformed input gives errors, never crashes") {
    const json conv = {{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}};
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {{{"type", "conv9d"}}}}}).find("unknown layer type \"conv9d\"") != std::string::npos);
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {{{"type", "conv2d"}, {"kernel_size", 3}}}}}).find("out_channels") != std::string::npos);
    CHECK(error_of({{"input", {3, -8, 8}}, {"layers", {conv}}}).find("input") != std::string::npos);
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {{{"type", "conv2d"}, {"out_channels", -8}, {"kernel_size", 3}}}}}).find("out_channels") != std::string::npos);
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {{{"type", "conv2d"}, {"out_channels", 1e12}, {"kernel_size", 3}}}}}).find("out_channels") != std::string::npos);
    CHECK(error_of({{"input", {3, 8, 8}}}).find("layers") != std::string::npos);
    CHECK(error_of({{"layers", {conv}}}).find("input") != std::string::npos);
    CHECK_FALSE(layer_stack_from_json(json(42)).ok());
    CHECK_FALSE(layer_stack_from_json(json::array()).ok());
    CHECK_FALSE(layer_stack_from_text("{\"input\": [3, 8").ok());
    CHECK_FALSE(layer_stack_from_json({{"input", {3, 8, 8}}, {"layers", {1, "x", nullptr}}}).ok());
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {{{"type", "add"}}}}}).find("from") != std::string::npos);
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {{{"type", "add"}, {"from", "nowhere"}}}}}).find("nowhere") != std::string::npos);

    // JSON nested 200 000 deep is refused before parsing (dumping it for a message would recurse).
    const std::string deep_text = "{\"input\": [3, 8, 8], \"layers\": [" + std::string(200000, '[') + std::string(200000, ']') + "]}";
    CHECK(layer_stack_from_text(deep_text).error_text().find("nests deeper") != std::string::npos);
    // Blocks nested past the depth limit.
    json deep = {{"type", "relu"}};
    for (int i = 0; i < 40; ++i) deep = {{"type", "block"}, {"layers", json::array({deep})}};
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {deep}}}).find("nested deeper") != std::string::npos);
    // Repeats that would expand past the layer limit stop at the limit.
    json many = {{"type", "block"}, {"repeat", 1000000000}, {"layers", {{{"type", "relu"}}, {{"type", "identity"}}}}};
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {many}}}).find("repeat") != std::string::npos);
    many["repeat"] = kMaxStackLayers;
    CHECK(error_of({{"input", {3, 8, 8}}, {"layers", {many}}}).find("more than 5000 layers") != std::string::npos);
    // Sizes whose product overflows: a 2^31 x 2^31 x 2^31 input and a huge linear.
    CHECK_FALSE(layer_stack_from_json({{"input", {2147483648LL, 2147483648LL, 2147483648LL}}, {"layers", {conv}}}).ok());
    json wide = {{"input", {2147483647LL}},
                 {"layers", {{{"type", "linear"}, {"out_features", 2147483647LL}}, {{"type", "linear"}, {"out_features", 2147483647LL}}, {{"type", "linear"}, {"out_features", 2147483647LL}}, {{"type", "linear"}, {"out_features", 2147483647LL}}, {{"type", "linear"}, {"out_features", 2147483647LL}}}}};
    auto r = layer_stack_from_json(wide);
    CHECK((r.ok() || !r.errors.empty()));
    // Wrong value types everywhere.
    CHECK_FALSE(layer_stack_from_json({{"input", {3, 8, 8}}, {"layers", {{{"type", "conv2d"}, {"out_channels", "8"}, {"kernel_size", {3}}}}}}).ok());
    CHECK_FALSE(layer_stack_from_json({{"input", {3, 8, 8}}, {"layers", {{{"type", "block"}, {"layers", "x"}}}}}).ok());
    CHECK_FALSE(layer_stack_from_json({{"input", {3, 8, 8}}, {"layers", {{{"type", 7}}}}}).ok());
}

TEST_CASE("layer stack: Stable Diffusion 1.5's UNet has diffusers' published parameter count") {
    const json j = load_preset("sd15_unet");
    const LayerStack s = stack_ok(j);
    CHECK(s.parameters == 859520964);  // diffusers ModelMixin.num_parameters docstring, stable-diffusion-v1-5 unet
    CHECK(s.parameters == j.at("num_params").get<i64>());
    CHECK(s.output_shape() == std::vector<i64>{4, 64, 64});
    CHECK(s.loss == LayerStack::Loss::mse);
    std::printf("layer stack sd15_unet: %.1f MiB saved per 64x64 latent sample in bf16, %.1f GFLOPs forward\n",
                s.saved_bytes_per_sample(2) / 1048576.0, s.flops_per_sample() / 1e9);
}

TEST_CASE("layer stack: cross-attention, a per-channel add and GEGLU, saved bytes by hand") {
    // Cross-attention, tokens [4, 8] (T 4, D 8, 2 heads) over a named input "context" [3, 6] (S 3, Dc 6):
    //   parameters: to_q 8x8, to_kv 16x6 (no bias), out_proj 8x8 + 8 = 64 + 96 + 72 = 232;
    //   kept: the input (32), the context for to_k/to_v's gradients (18), q (32), k and v (2 x 3 x 8),
    //   the sdpa output (32) and out_proj's input (32): 194 elements, + fp32 log-sum-exp 4 B x T x H = 32 B.
    json cross = {{"input", {4, 8}},
                  {"inputs", {{"context", {3, 6}}}},
                  {"layers", {{{"type", "multi_head_attention"}, {"name", "attn2"}, {"embed_dim", 8}, {"num_heads", 2}, {"kv_from", "context"}, {"qkv_bias", false}, {"out_bias", true}}}}};
    LayerStack s = stack_ok(cross);
    CHECK(s.parameters == 232);
    CHECK(s.saved_bytes_per_sample(2) == 194 * 2 + 32);
    CHECK(s.output_shape() == std::vector<i64>{4, 8});

    // A UNet resnet's timestep embedding added per channel: conv 1x1 [2, 3, 3] + linear(t [2]) broadcast.
    //   kept: the conv's input (18) and the linear's input t (2); add keeps nothing.
    json temb = {{"input", {2, 3, 3}},
                 {"inputs", {{"t", {2}}}},
                 {"layers", {{{"type", "conv2d"}, {"name", "c"}, {"out_channels", 2}, {"kernel_size", 1}}, {{"type", "linear"}, {"name", "p"}, {"input_from", "t"}, {"out_features", 2}}, {{"type", "add"}, {"input_from", "c"}, {"from", "p"}}}}};
    s = stack_ok(temb);
    CHECK(s.output_shape() == std::vector<i64>{2, 3, 3});
    CHECK(s.saved_bytes_per_sample(1) == 20);

    // GEGLU after a projection to 2 x 4: the linear keeps its input (32), geglu the projection (32) and
    // gelu(gate) (16); to_grid turns the 4 tokens back into the [C, 2, 2] grid of "img".
    json ff = {{"input", {8, 2, 2}},
               {"layers", {{{"type", "identity"}, {"name", "img"}}, {{"type", "to_tokens"}}, {{"type", "linear"}, {"out_features", 8}}, {{"type", "geglu"}}, {{"type", "to_grid"}, {"from", "img"}}}}};
    s = stack_ok(ff);
    CHECK(s.output_shape() == std::vector<i64>{4, 2, 2});
    CHECK(s.saved_bytes_per_sample(1) == 32 + 32 + 16);
}

TEST_CASE("layer stack: UNet pieces report what does not line up") {
    const auto err = [](json layers, json inputs = json::object()) {
        json j = {{"input", {8, 2, 2}}, {"inputs", std::move(inputs)}, {"layers", std::move(layers)}};
        return error_of(j);
    };
    CHECK_THAT(err({{{"type", "to_tokens"}}, {{"type", "multi_head_attention"}, {"embed_dim", 8}, {"num_heads", 2}, {"kv_from", "text"}}}),
               Catch::Matchers::Contains("no earlier layer is named \"text\""));
    CHECK_THAT(err({{{"type", "to_tokens"}}, {{"type", "multi_head_attention"}, {"embed_dim", 8}, {"num_heads", 2}, {"kv_from", "c"}}},
                   {{"c", {5}}}),
               Catch::Matchers::Contains("kv_from: expects a [S, D] tensor, got [5]"));
    CHECK_THAT(err({{{"type", "identity"}, {"name", "img"}}, {{"type", "to_tokens"}}, {{"type", "linear"}, {"out_features", 3}}, {{"type", "to_grid"}}}),
               Catch::Matchers::Contains("to_grid needs \"from\""));
    CHECK_THAT(err({{{"type", "identity"}, {"name", "img"}}, {{"type", "avg_pool"}, {"kernel_size", 2}}, {{"type", "to_tokens"}}, {{"type", "to_grid"}, {"from", "img"}}}),
               Catch::Matchers::Contains("1 tokens do not make the grid [2, 2]"));
    CHECK_THAT(err({{{"type", "add"}, {"from", "t"}}}, {{"t", {3}}}), Catch::Matchers::Contains("cannot add [3] to [8, 2, 2]"));
    // PyTorch's broadcasting aligns trailing dimensions: [8, 1] does not broadcast onto [8, 2, 2] (8 against 2),
    // [1, 2] and [8, 1, 1] do, and a one-dimensional [8] is this format's per-channel convention.
    CHECK_THAT(err({{{"type", "add"}, {"from", "t"}}}, {{"t", {8, 1}}}), Catch::Matchers::Contains("cannot add [8, 1] to [8, 2, 2]"));
    for (const json& ok : {json{1, 2}, json{8, 1, 1}, json{8}, json{2}}) {
        INFO(ok.dump());
        const json j = {{"input", {8, 2, 2}}, {"inputs", {{"t", ok}}}, {"layers", {{{"type", "add"}, {"from", "t"}}}}};
        CHECK(layer_stack_from_json(j).ok());
    }
    CHECK_THAT(err({{{"type", "to_tokens"}}, {{"type", "linear"}, {"out_features", 3}}, {{"type", "geglu"}}}),
               Catch::Matchers::Contains("geglu expects an even last dimension, got [4, 3]"));
    CHECK_THAT(error_of({{"input", {8, 2, 2}}, {"inputs", {{"x", {0}}}}, {"layers", {{{"type", "identity"}}}}}),
               Catch::Matchers::Contains("inputs.x"));
    CHECK_THAT(error_of({{"input", {8}}, {"loss", "l1"}, {"layers", {{{"type", "identity"}}}}}),
               Catch::Matchers::Contains("expected \"cross_entropy\" or \"mse\""));
}

}  // namespace unit_layer_stack
}  // namespace
