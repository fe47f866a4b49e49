// Checkpoint headers (core/src/checkpoint/): exact bytes per dtype from safetensors and GGUF headers,
// built here byte by byte as the formats define them, and clear errors for broken ones.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "test_data.hpp"
#include "vramcalc/checkpoint.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_checkpoint {  // the file's own names: the unit tests build in unity batches

namespace {

std::string le(std::uint64_t v, int width) {
    std::string s;
    for (int i = 0; i < width; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return s;
}

struct Tensor {
    std::string name, dtype;
    std::vector<std::int64_t> shape;
    std::int64_t bytes;
};

// A safetensors file's leading bytes: 8-byte length, then the JSON header (no data).
std::string safetensors(const std::vector<Tensor>& ts) {
    nlohmann::json h = {{"__metadata__", {{"format", "pt"}}}};
    std::int64_t at = 0;
    for (const auto& t : ts) {
        h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + t.bytes}}};
        at += t.bytes;
    }
    const std::string j = h.dump();
    return le(j.size(), 8) + j;
}

std::string gguf_string(const std::string& s) { return le(s.size(), 8) + s; }

// A GGUF v3 header: two metadata keys (a string and a string array), then the tensor infos.
std::string gguf(const std::vector<std::pair<Tensor, std::uint32_t>>& ts) {
    std::string b = "GGUF" + le(3, 4) + le(ts.size(), 8) + le(2, 8);
    b += gguf_string("general.architecture") + le(8, 4) + gguf_string("llama");
    b += gguf_string("tokenizer.ggml.tokens") + le(9, 4) + le(8, 4) + le(2, 8) + gguf_string("<s>") + gguf_string("</s>");
    std::uint64_t off = 0;
    for (const auto& [t, id] : ts) {
        b += gguf_string(t.name) + le(t.shape.size(), 4);
        for (auto d : t.shape) b += le(static_cast<std::uint64_t>(d), 8);
        b += le(id, 4) + le(off, 8);
        off += 1024;
    }
    return b;
}

}  // namespace

TEST_CASE("checkpoint: safetensors bytes per dtype are the data offsets, checked against the shapes") {
    // A GPTQ-packed linear (auto-gptq layout: qweight int32 [in/8, out], qzeros int32 [in/g, out/8],
    // scales fp16 [in/g, out], g_idx int32 [in]) of 4096 x 4096 with group 128, beside a bf16 norm.
    const std::vector<Tensor> ts = {
        {"model.layers.0.self_attn.q_proj.qweight", "I32", {512, 4096}, 512 * 4096 * 4},
        {"model.layers.0.self_attn.q_proj.qzeros", "I32", {32, 512}, 32 * 512 * 4},
        {"model.layers.0.self_attn.q_proj.scales", "F16", {32, 4096}, 32 * 4096 * 2},
        {"model.layers.0.self_attn.q_proj.g_idx", "I32", {4096}, 4096 * 4},
        {"model.norm.weight", "BF16", {4096}, 8192},
        {"lm_head.weight_scale", "F8_E4M3", {4096, 16}, 65536},
    };
    const std::string bytes = safetensors(ts);
    CHECK(vramcalc::checkpoint_header_bytes_needed(bytes.substr(0, 8)) == static_cast<std::int64_t>(bytes.size()));
    auto r = vramcalc::read_checkpoint_header(bytes);
    REQUIRE(r.ok());
    CHECK(r->format == "safetensors");
    CHECK(r->tensors.size() == 6);
    CHECK(r->bytes_by_dtype.at("I32") == 512 * 4096 * 4 + 32 * 512 * 4 + 4096 * 4);
    CHECK(r->bytes_by_dtype.at("F16") == 32 * 4096 * 2);
    CHECK(r->elements_by_dtype.at("I32") == 512 * 4096 + 32 * 512 + 4096);
    CHECK(r->total_bytes == 512 * 4096 * 4 + 32 * 512 * 4 + 32 * 4096 * 2 + 4096 * 4 + 8192 + 65536);
}

TEST_CASE("checkpoint: broken safetensors headers are refused with what is wrong") {
    const std::string good = safetensors({{"w", "BF16", {2, 2}, 8}});
    auto cut = vramcalc::read_checkpoint_header(good.substr(0, good.size() - 3));
    REQUIRE_FALSE(cut.ok());
    CHECK(cut.error_text().find("read the first " + std::to_string(good.size()) + " bytes") != std::string::npos);
    auto wrong = vramcalc::read_checkpoint_header(safetensors({{"w", "BF16", {2, 2}, 6}}));
    REQUIRE_FALSE(wrong.ok());
    CHECK(wrong.error_text().find("checkpoint.w") != std::string::npos);
    CHECK(wrong.error_text().find("needs 8") != std::string::npos);
    auto text = vramcalc::read_checkpoint_header("{\"model_type\": \"llama\"}");
    REQUIRE_FALSE(text.ok());
    CHECK(text.error_text().find("not a safetensors or GGUF file") != std::string::npos);
    auto unknown = vramcalc::read_checkpoint_header(safetensors({{"w", "F3_NEW", {3}, 5}}));
    REQUIRE(unknown.ok());
    CHECK(unknown->total_bytes == 5);
    CHECK(unknown.warnings.size() == 1);
    CHECK_FALSE(vramcalc::read_checkpoint_header(le(2, 8) + "[]").ok());
}

TEST_CASE("checkpoint: GGUF tensor bytes follow each tensor's ggml block layout") {
    // Llama-style 4096-wide tensors: q4_K (id 12, 144 B per 256), q6_K (id 14, 210 B per 256), f32 (id 0).
    const std::string b = gguf({{{"blk.0.attn_q.weight", "", {4096, 4096}, 0}, 12},
                                {{"output.weight", "", {4096, 32000}, 0}, 14},
                                {{"blk.0.attn_norm.weight", "", {4096}, 0}, 0}});
    CHECK(vramcalc::checkpoint_header_bytes_needed(b) == static_cast<std::int64_t>(b.size()));
    CHECK(vramcalc::checkpoint_header_bytes_needed(b.substr(0, 40)) >= 64 * 1024);
    auto r = vramcalc::read_checkpoint_header(b);
    REQUIRE(r.ok());
    CHECK(r->format == "gguf");
    CHECK(r->architecture == "llama");
    CHECK(r->bytes_by_dtype.at("q4_k") == 4096LL * 16 * 144);
    CHECK(r->bytes_by_dtype.at("q6_k") == 32000LL * 16 * 210);
    CHECK(r->bytes_by_dtype.at("f32") == 4096 * 4);
    CHECK(r->header_bytes == static_cast<std::int64_t>(b.size()));

    auto cut = vramcalc::read_checkpoint_header(b.substr(0, b.size() - 10));
    REQUIRE_FALSE(cut.ok());
    CHECK(cut.error_text().find("runs past") != std::string::npos);
    auto odd = vramcalc::read_checkpoint_header(gguf({{{"t", "", {100, 2}, 0}, 12}}));
    REQUIRE_FALSE(odd.ok());
    CHECK(odd.error_text().find("not a multiple of q4_k's block of 256") != std::string::npos);
    auto unknown = vramcalc::read_checkpoint_header(gguf({{{"t", "", {256}, 0}, 99}}));
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error_text().find("ggml type id 99") != std::string::npos);
    std::string v1 = b;
    v1[4] = 1;
    CHECK(vramcalc::read_checkpoint_header(v1).error_text().find("GGUF version 1") != std::string::npos);
}

TEST_CASE("checkpoint: an index lists its shards once each and its total size") {
    auto ix = vramcalc::read_safetensors_index(R"({"metadata": {"total_size": 13476839424},
        "weight_map": {"lm_head.weight": "model-00002-of-00002.safetensors",
                       "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
                       "model.norm.weight": "model-00002-of-00002.safetensors"}})");
    REQUIRE(ix.ok());
    CHECK(ix->total_size == 13476839424);  // Llama-2-7b-hf: 6,738,415,616 parameters x 2 B
    CHECK(ix->shards == std::vector<std::string>{"model-00002-of-00002.safetensors", "model-00001-of-00002.safetensors"});
    CHECK_FALSE(vramcalc::read_safetensors_index(R"({"weight_map": {"a": "../etc/passwd"}})").ok());
    CHECK_FALSE(vramcalc::read_safetensors_index("[1, 2]").ok());
}

TEST_CASE("checkpoint: checkpoint_bytes replaces the config's weight count and keeps its layer shares") {
    auto scenario = [](int gpu_layers, std::int64_t checkpoint) {
        auto r = vramcalc::scenario_from_text(R"({"model": "llama-2-7b", "workload": "infer", "framework": "llama.cpp",
            "weights": "gguf-q4_k_m", "n_gpu_layers": )" +
                                                  std::to_string(gpu_layers) + "}",
                                              vramcalc::test::catalog());
        REQUIRE(r.ok());
        vramcalc::Scenario s = *r;
        s.checkpoint_bytes = checkpoint;
        return s;
    };
    auto weights = [](const vramcalc::Scenario& s) {
        for (const auto& c : vramcalc::estimate(s).components)
            if (c.id == "weights") return static_cast<double>(c.bytes);
        return 0.0;
    };
    // llama.cpp keeps the token embedding in host memory, so even 99 GPU layers hold less than the file:
    // every placement scales by the same factor, checkpoint bytes / counted bytes.
    const double k = weights(scenario(99, 4'000'000'000)) / weights(scenario(99, 0));
    CHECK(weights(scenario(16, 4'000'000'000)) == Approx(weights(scenario(16, 0)) * k).margin(2));
    CHECK(k < 1);
    auto hf = vramcalc::scenario_from_text(R"({"model": "llama-2-7b", "workload": "infer", "weights": "gptq-int4"})", vramcalc::test::catalog());
    REQUIRE(hf.ok());
    vramcalc::Scenario whole = *hf;
    whole.checkpoint_bytes = 3'900'000'000;
    CHECK(weights(whole) == Approx(3.9e9).margin(2));  // transformers puts every tensor on the GPU
    CHECK(vramcalc::scenario_to_json(scenario(16, 4'000'000'000))["checkpoint_bytes"] == 4'000'000'000);
    auto bad = vramcalc::scenario_from_text(R"({"model": "llama-2-7b", "workload": "infer", "checkpoint_bytes": -5})", vramcalc::test::catalog());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error_text().find("checkpoint_bytes") != std::string::npos);
}

TEST_CASE("checkpoint: absurd shapes are refused, never overflow") {
    auto huge = vramcalc::read_checkpoint_header(gguf({{{"t", "", {256, std::int64_t{1} << 40, 1 << 20}, 0}, 12}}));
    REQUIRE_FALSE(huge.ok());
    CHECK(huge.error_text().find("more than 2^50 elements") != std::string::npos);
    // A zero dimension makes the tensor empty, whatever the others claim (fuzz target `checkpoint`,
    // tests/fuzz/regressions/checkpoint/gguf-zero-dimension: 2^100 rows overflowed an int64).
    auto empty = vramcalc::read_checkpoint_header(gguf({{{"t", "", {0, std::int64_t{1} << 50, std::int64_t{1} << 50}, 0}, 0}}));
    REQUIRE(empty.ok());
    CHECK(empty->total_bytes == 0);
    auto st = vramcalc::read_checkpoint_header(safetensors({{"w", "BF16", {std::int64_t{1} << 30, std::int64_t{1} << 30}, 2}}));
    REQUIRE_FALSE(st.ok());
    CHECK(st.error_text().find("checkpoint.w.shape") != std::string::npos);
}

namespace {

// Files in memory answered range by range, as a Range server (or the CLI's file reads) would; `log`
// records each request as "file first-last" ("file whole" for an index).
struct RangeFiles {
    explicit RangeFiles(std::map<std::string, std::string> f = {}) : files(std::move(f)) {}
    std::map<std::string, std::string> files;
    std::vector<std::string> log;
    void run(vramcalc::CheckpointHeaderReader& r) {
        while (const vramcalc::ByteRange* q = r.next()) {
            log.push_back(q->file + (q->last < 0 ? " whole" : " " + std::to_string(q->first) + "-" + std::to_string(q->last)));
            const auto it = files.find(q->file);
            if (it == files.end()) r.missing();
            else if (q->last < 0) r.receive(it->second);
            else r.receive(std::string_view(it->second).substr(std::min<std::size_t>(it->second.size(), static_cast<std::size_t>(q->first)), static_cast<std::size_t>(q->last - q->first + 1)));
        }
    }
};

}  // namespace

TEST_CASE("checkpoint: the header reader asks for the index, then bytes 0-7 and the header of each shard") {
    const std::string a = safetensors({{"model.embed_tokens.weight", "BF16", {32000, 4096}, 32000LL * 4096 * 2}});
    const std::string b = safetensors({{"model.norm.weight", "BF16", {4096}, 8192}, {"lm_head.weight", "BF16", {32000, 4096}, 32000LL * 4096 * 2}});
    RangeFiles hub{{{"m/model.safetensors.index.json",
                     R"({"metadata": {"total_size": 524296192}, "weight_map": {"model.embed_tokens.weight": "a.safetensors",
                         "model.norm.weight": "b.safetensors", "lm_head.weight": "b.safetensors"}})"},
                    {"m/a.safetensors", a + std::string(100, '\0')},  // data after the header: never asked for
                    {"m/b.safetensors", b}}};
    vramcalc::CheckpointHeaderReader r({"m/model.safetensors.index.json"});
    hub.run(r);
    REQUIRE(r.done());
    // Shards in the order the index's weight_map (read with its keys sorted) first names them: lm_head's first.
    CHECK(hub.log == std::vector<std::string>{"m/model.safetensors.index.json whole", "m/b.safetensors 0-7",
                                              "m/b.safetensors 8-" + std::to_string(b.size() - 1), "m/a.safetensors 0-7",
                                              "m/a.safetensors 8-" + std::to_string(a.size() - 1)});
    CHECK(r.requests() == 5);
    CHECK(r.files_read() == 2);
    CHECK(r.summary().files == 2);
    CHECK(r.summary().bytes_by_dtype.at("BF16") == 524296192);
    CHECK(r.index_total_size() == 524296192);
    CHECK(r.bytes_received() == static_cast<std::int64_t>(hub.files["m/model.safetensors.index.json"].size() + a.size() + b.size()));
}

TEST_CASE("checkpoint: the header reader falls back when the index is missing and says which file failed") {
    const std::string one = safetensors({{"w", "F8_E4M3", {4096, 4096}, 4096 * 4096}, {"w_scale", "F32", {}, 4}});
    RangeFiles hub{{{"model.safetensors", one}}};
    vramcalc::CheckpointHeaderReader r({"model.safetensors.index.json"}, "model.safetensors");
    hub.run(r);
    REQUIRE(r.done());
    CHECK(r.summary().bytes_by_dtype.at("F8_E4M3") == 4096 * 4096);
    CHECK(r.summary().bytes_by_dtype.at("F32") == 4);

    vramcalc::CheckpointHeaderReader none({"model.safetensors.index.json"});
    RangeFiles{}.run(none);
    REQUIRE(none.failed());
    CHECK(none.error() == "model.safetensors.index.json: not found");

    RangeFiles cut{{{"x.safetensors", one.substr(0, one.size() - 5)}}};  // the header ends early
    vramcalc::CheckpointHeaderReader short_({"x.safetensors"});
    cut.run(short_);
    REQUIRE(short_.failed());
    CHECK(short_.error().rfind("x.safetensors: ", 0) == 0);

    vramcalc::CheckpointHeaderReader refused({"y.safetensors"});
    refused.fail("y.safetensors: the server ignored the Range request");
    CHECK(refused.failed());
    CHECK(refused.next() == nullptr);
}

TEST_CASE("checkpoint: the header reader grows a GGUF read until its header is complete") {
    // A header longer than the first 64 KiB read: 400 tensors with 200-character names.
    std::vector<std::pair<Tensor, std::uint32_t>> ts;
    for (int i = 0; i < 400; ++i) ts.push_back({{std::string(190, 'a') + std::to_string(1000 + i), "", {4096, 16}, 0}, 12});
    const std::string g = gguf(ts);
    REQUIRE(g.size() > 64 * 1024);
    RangeFiles files{{{"m.gguf", g + std::string(4096, '\0')}}};
    vramcalc::CheckpointHeaderReader r({"m.gguf"});
    files.run(r);
    REQUIRE(r.done());
    CHECK(files.log.front() == "m.gguf 0-7");
    CHECK(files.log.size() == 3);  // 0-7, 8-65535, then 65536-131071 (twice the bytes read)
    CHECK(r.summary().bytes_by_dtype.at("q4_k") == 400LL * 16 * 16 * 144);
    CHECK(r.bytes_received() < static_cast<std::int64_t>(g.size()) * 2 + 4096);
}

// Issue 42: headers crafted to overflow a sum, loop over indexes or leave the folder are refused.
TEST_CASE("checkpoint: sums past 2^63 bytes are refused, not wrapped negative") {
    std::vector<std::pair<Tensor, std::uint32_t>> ts;  // 1,100 f64 tensors of 2^50 elements: 2^53 B each
    for (int i = 0; i < 1100; ++i) ts.push_back({{"t" + std::to_string(i), "", {std::int64_t{1} << 25, std::int64_t{1} << 25}, 0}, 28});
    const auto r = vramcalc::read_checkpoint_header(gguf(ts));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error_text().find("sum past 2^63 bytes") != std::string::npos);

    vramcalc::CheckpointSummary s;  // merging shards is checked the same way
    s.add({"a", "F64", {1}, std::int64_t{1} << 62});
    vramcalc::CheckpointSummary other = s;
    s.merge(other);
    CHECK(s.overflowed);
    CHECK(s.total_bytes == std::int64_t{1} << 62);

    for (const char* total : {"9223372036854775808", "18446744073709551615"}) {  // 2^63 and 2^64 - 1
        const auto ix = vramcalc::read_safetensors_index(std::string(R"({"metadata": {"total_size": )") + total +
                                                         R"(}, "weight_map": {"w": "a.safetensors"}})");
        REQUIRE(ix.ok());
        CHECK(ix->total_size == 0);
        REQUIRE(ix.warnings.size() == 1);
        CHECK(ix.warnings[0].find("ignored") != std::string::npos);
    }
}

TEST_CASE("checkpoint: an index that names an index, or a shard outside its folder, is refused") {
    for (const char* shard : {"model.safetensors.index.json", "other.safetensors.index.json", "..\\\\x\\\\model.safetensors",
                              "../model.safetensors", "https:evil.safetensors", ".hidden.safetensors", "a?b.safetensors", ""}) {
        const std::string text = std::string(R"({"weight_map": {"w": ")") + shard + R"("}})";
        const auto ix = vramcalc::read_safetensors_index(text);
        INFO(text);
        CHECK_FALSE(ix.ok());
        CHECK(ix.error_text().rfind("index.weight_map.w: must name a shard file in the same folder", 0) == 0);
    }
    // An index naming itself was read forever (and fetched 48 times in 10 s on the page): now one read.
    RangeFiles hub{{{"m/model.safetensors.index.json", R"({"weight_map": {"w": "model.safetensors.index.json"}})"}}};
    vramcalc::CheckpointHeaderReader r({"m/model.safetensors.index.json"});
    hub.run(r);
    REQUIRE(r.failed());
    CHECK(hub.log.size() == 1);
    CHECK(r.error().find("names an index, not a shard") != std::string::npos);
    const auto ok = vramcalc::read_safetensors_index(R"({"weight_map": {"w": "diffusion_pytorch_model-00001-of-00002.safetensors"}})");
    CHECK(ok.ok());
}

TEST_CASE("checkpoint: overlapping or gapped safetensors offsets and repeated GGUF names are refused") {
    auto header = [](const nlohmann::json& h) {
        const std::string j = h.dump();
        return le(j.size(), 8) + j;
    };
    const auto overlap = vramcalc::read_checkpoint_header(header({{"a", {{"dtype", "F16"}, {"shape", {4}}, {"data_offsets", {0, 8}}}},
                                                                  {"b", {{"dtype", "F16"}, {"shape", {4}}, {"data_offsets", {4, 12}}}}}));
    REQUIRE_FALSE(overlap.ok());
    CHECK(overlap.error_text().find("tensor b starts at byte 4 of the data, expected 8 (it overlaps the tensor before)") != std::string::npos);
    const auto gap = vramcalc::read_checkpoint_header(header({{"a", {{"dtype", "F16"}, {"shape", {4}}, {"data_offsets", {16, 24}}}}}));
    REQUIRE_FALSE(gap.ok());
    CHECK(gap.error_text().find("a gap after the tensor before") != std::string::npos);

    const auto twice = vramcalc::read_checkpoint_header(gguf({{{"w", "", {4096, 16}, 0}, 12}, {{"w", "", {4096, 16}, 0}, 12}}));
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.error_text().find("tensor w appears twice") != std::string::npos);
}

}  // namespace unit_checkpoint
}  // namespace
