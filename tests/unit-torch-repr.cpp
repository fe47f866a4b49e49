// PyTorch module repr -> layer stack: a sequential model maps exactly (same parameters as the stack written
// by hand), and what the repr cannot tell (a block's forward, a functional flatten, unknown modules) is
// reported.
#include <string>

#include <catch2/catch.hpp>

#include "vramcalc/layer_stack.hpp"
#include "vramcalc/torch_repr.hpp"

namespace {
namespace unit_torch_repr {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

namespace {

bool has_note(const ReprImport& r, const std::string& what) {
    for (const auto& n : r.notes)
        if (n.find(what) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("torch repr: a Sequential CNN maps to a stack with the same parameters") {
    // print(nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
    //                     nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 16 * 16, 10))) on 32x32 inputs.
    const char* repr = R"(Sequential(
  (0): Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
  (1): BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)
  (2): ReLU(inplace=True)
  (3): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
  (4): Flatten(start_dim=1, end_dim=-1)
  (5): Linear(in_features=4096, out_features=10, bias=True)
))";
    auto r = layer_stack_from_torch_repr(repr, {3, 32, 32});
    INFO(r.error_text());
    REQUIRE(r.ok());
    CHECK(r->notes.empty());
    auto st = layer_stack_from_json(r->stack);
    INFO(st.error_text());
    REQUIRE(st.ok());
    CHECK(st->parameters == (16 * 3 * 9 + 16) + 2 * 16 + (4096 * 10 + 10));
    CHECK(st->output_shape() == std::vector<i64>{10});
    CHECK(r->stack["layers"][2]["inplace"] == true);
}

TEST_CASE("torch repr: a ResNet block's forward, a functional flatten and unknown modules are reported") {
    const char* repr = R"(Net(
  (conv1): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)
  (layer1): Sequential(
    (0): BasicBlock(
      (conv1): Conv2d(8, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)
      (relu): ReLU(inplace=True)
      (drop): StochasticDepth(p=0.1, mode=row)
    )
  )
  (avgpool): AdaptiveAvgPool2d(output_size=(1, 1))
  (fc): Linear(in_features=8, out_features=10, bias=True)
))";
    auto r = layer_stack_from_torch_repr(repr, {3, 16, 16});
    REQUIRE(r.ok());
    CHECK(has_note(*r, "layer1.0 (BasicBlock): its forward is not in the repr"));
    CHECK(has_note(*r, "layer1.0.drop (StochasticDepth): no layer type"));
    CHECK(has_note(*r, "a flatten was inserted before fc"));
    CHECK(r->stack["layers"][1]["name"] == "layer1.0.conv1");
    auto st = layer_stack_from_json(r->stack);
    INFO(st.error_text());
    REQUIRE(st.ok());
    CHECK(st->parameters == 8 * 3 * 9 + 8 * 8 * 9 + 8 * 10 + 10);
    CHECK_FALSE(layer_stack_from_torch_repr("hello", {3}).ok());
}

}  // namespace unit_torch_repr
}  // namespace
