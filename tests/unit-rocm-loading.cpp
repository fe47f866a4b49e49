// vLLM's weight loading on AMD GPUs (core/src/inference/rocm_loading.cpp) and the caching-allocator replay it
// runs on (core/src/runtime/caching_allocator.cpp): the padding ROCm keeps and what its total - free figure
// counts besides, in bytes.
#include <catch2/catch.hpp>

#include "inference/rocm_loading.hpp"
#include "runtime/caching_allocator.hpp"
#include "test_data.hpp"

namespace {
namespace unit_rocm_loading {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using namespace vramcalc::detail;

namespace {
constexpr std::int64_t MiB = 1 << 20;

Scenario vllm_on(const char* model, const char* gpu, int tp, const char* weights, const char* measure = "total-free") {
    return test::scenario({{"model", model}, {"workload", "infer"}, {"framework", "vllm"}, {"gpu", gpu}, {"num_gpus", tp}, {"tp", tp}, {"weights", weights}, {"vllm_rocm_load_measure", measure}});
}
}  // namespace

TEST_CASE("caching allocator: segments, splits, best fit and empty_cache as PyTorch's") {
    CachingAllocator a;
    const auto big = a.malloc(30 * MiB);  // its own segment, rounded to 2 MiB
    CHECK(a.reserved() == 30 * MiB);
    a.free(big);
    CHECK(a.allocated() == 0);
    CHECK(a.reserved() == 30 * MiB);  // kept in the cache
    a.empty_cache();
    CHECK(a.reserved() == 0);

    a.malloc(100);  // small pool: a 2 MiB segment, 512 B handed out
    CHECK(a.reserved() == 2 * MiB);
    CHECK(a.allocated() == 512);
    a.malloc(5 * MiB);  // 1-10 MiB: a 20 MiB segment, split
    a.malloc(5 * MiB);  // from the same segment's remainder
    CHECK(a.reserved() == 22 * MiB);
    a.malloc(9 * MiB + MiB / 2);  // the 10 MiB left would leave 0.5 MiB: not split, all 10 MiB handed out
    CHECK(a.reserved() == 22 * MiB);
    CHECK(a.allocated() == 512 + 20 * MiB);

    // Best fit, and a freed block reused by a smaller tensor keeps its segment reserved.
    CachingAllocator b;
    const auto x = b.malloc(100 * MiB);
    b.malloc(50 * MiB);
    b.free(x);
    b.malloc(60 * MiB);  // carved out of the freed 100 MiB: 40 MiB stranded beside it
    b.empty_cache();
    CHECK(b.reserved() == 150 * MiB);
    CHECK(b.allocated() == 110 * MiB);
}

TEST_CASE("ROCm loading: bf16 MoE padding and the freed expert weight the cache keeps") {
    // Qwen3-235B-A22B at tp 4: w13 [128, 768, 4096] rows are 8192 B, a multiple of 512, so each gains 256 B
    // (94 layers); w2 [128, 4096, 384] rows are 768 B and stay. Each layer's padded w13 is a new segment,
    // empty_cache() releases the previous layer's freed w13, and the last one stays cached.
    const RocmLoading r = rocm_loading(vllm_on("qwen3-235b-a22b", "mi300x", 4, "bf16"));
    CHECK(r.padding == 94.0 * 128 * 768 * 256);
    CHECK(r.cached == 128.0 * 768 * 4096 * 2);
    // From PR #39801 ROCm measures allocated bytes: the padding stays, the cache is not counted.
    const RocmLoading now = rocm_loading(vllm_on("qwen3-235b-a22b", "mi300x", 4, "bf16", "allocated"));
    CHECK(now.padding == r.padding);
    CHECK(now.cached == 0);
    // NVIDIA: nothing.
    const RocmLoading h200 = rocm_loading(vllm_on("qwen3-235b-a22b", "h200", 4, "bf16"));
    CHECK(h200.padding == 0);
    CHECK(h200.cached == 0);
}

TEST_CASE("ROCm loading: AITER's shuffle replaces the padded experts") {
    Scenario s = vllm_on("qwen3-vl-30b-a3b", "mi300x", 1, "bf16");
    const RocmLoading off = rocm_loading(s);
    // w13 [128, 1536, 2048] and w2 [128, 2048, 768] rows (4096 B, 1536 B) are both multiples of 512, 48 layers.
    CHECK(off.padding == 48.0 * 128 * (1536 + 2048) * 256);
    s.vllm_rocm_aiter = true;
    const RocmLoading on = rocm_loading(s);
    CHECK(on.padding == 0);
    CHECK(on.cached < off.cached);
}

TEST_CASE("ROCm loading: the e4m3fnuz mask of fp8 weights on gfx942 only") {
    // Llama-3.3-70B per-channel fp8 at tp 1: no padding; each linear's 1 B/element mask is freed into the
    // cache. qkv's mask (10240 x 8192 = 80 MiB) makes a segment that o_proj's reuses; gate_up's (448 MiB)
    // another that down_proj's and every later layer's reuse.
    const RocmLoading mi300x = rocm_loading(vllm_on("llama-3.3-70b", "mi300x", 1, "fp8-channel"));
    CHECK(mi300x.padding == 0);
    CHECK(mi300x.cached == static_cast<double>(528 * MiB));
    // MI355X (gfx950) keeps e4m3fn: no mask.
    const RocmLoading mi355x = rocm_loading(vllm_on("llama-3.3-70b", "mi355x", 1, "fp8-channel"));
    CHECK(mi355x.cached == 0);
}

TEST_CASE("ROCm loading: fp8 block linears are padded when K is a multiple of 512") {
    // DeepSeek-V3 at tp 8, per layer: fused_qkv_a (2112 rows, K 7168), q_b (3072, K 1536), kv_b (4096, K 512),
    // o (7168, K 2048); dense gate_up (4608, K 7168) in 3 layers, the shared expert's gate_up (512, K 7168) in
    // 58. The down projections (K 2304, 256) and the fp8 experts are not padded.
    const RocmLoading r = rocm_loading(vllm_on("deepseek-v3", "mi300x", 8, "fp8-block"));
    CHECK(r.padding == (61.0 * (2112 + 3072 + 4096 + 7168) + 3.0 * 4608 + 58.0 * 512) * 256);
    CHECK(r.cached > 0);
}

}  // namespace unit_rocm_loading
}  // namespace
