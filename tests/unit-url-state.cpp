// URL-hash codec (docs/url-state.md): round trips of every scenario the core writes, readable output,
// and a clear error (never a crash) for every kind of broken link.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "test_data.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/scenario_keys.hpp"
#include "vramcalc/url_state.hpp"

namespace {
namespace unit_url_state {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;
using nlohmann::json;

namespace {

// encode -> decode must give the same JSON back, and re-encoding must give the same text.
void check_round_trip(const json& j) {
    const std::string hash = encode_url_state(j);
    INFO(j.dump() << "\n -> " << hash);
    auto back = decode_url_state(hash);
    INFO(back.error_text());
    REQUIRE(back.ok());
    CHECK(*back == j);
    CHECK(encode_url_state(*back) == hash);
    auto with_hash = decode_url_state("#" + hash);
    REQUIRE(with_hash.ok());
    CHECK(*with_hash == j);
}

json written(const std::string& scenario_text) {
    auto s = scenario_from_text(scenario_text, test::catalog());
    INFO(scenario_text << "\n"
                       << s.error_text());
    REQUIRE(s.ok());
    return scenario_to_json(*s);
}

std::string first_error(const std::string& hash) {
    auto r = decode_url_state(hash);
    CHECK_FALSE(r.ok());
    return r.errors.empty() ? std::string() : r.errors.front().text();
}

}  // namespace

TEST_CASE("url state: scenario_to_json of every preset round-trips (train and infer defaults)") {
    int n = 0;
    for (const auto& m : test::catalog().models()) {
        for (const char* extra : {"", R"(, "workload": "infer")", R"(, "method": "lora")",
                                  R"(, "method": "qlora", "lora": {"targets": "all-linear", "rank": 64})",
                                  R"(, "method": "freeze", "trainable_layers": 1)"}) {
            if (m.spec.stack && std::string(extra).find("freeze") != std::string::npos) continue;  // refused: check_stack
            // A hybrid Mamba model is served only (check_hybrid refuses training): its infer default alone.
            if (!m.spec.hybrid.pattern.empty() && std::string(extra).find("infer") == std::string::npos) continue;
            const json j = written(R"({"model": ")" + m.id + "\"" + extra + "}");
            check_round_trip(j);
            // What the decoder gives back is a scenario the parser accepts and writes identically.
            auto again = scenario_from_json(*decode_url_state(encode_url_state(j)), test::catalog());
            REQUIRE(again.ok());
            CHECK(scenario_to_json(*again) == j);
            ++n;
        }
    }
    int skipped = 0;  // layer stacks skip "freeze", hybrid models everything but "infer"
    for (const auto& m : test::catalog().models()) skipped += m.spec.stack != nullptr ? 1 : !m.spec.hybrid.pattern.empty() ? 4
                                                                                                                           : 0;
    CHECK(n == 5 * static_cast<int>(test::catalog().models().size()) - skipped);
    for (const auto& g : test::catalog().gpus()) check_round_trip(written(R"({"model": "gpt2", "gpu": ")" + g.id + "\"}"));
    for (const char* fw : {"hf", "torchtune", "litgpt", "deepspeed", "megatron", "vllm", "llama.cpp"})
        check_round_trip(written(std::string(R"({"model": "llama-3.1-8b", "method": "lora", "framework": ")") + fw + "\"}"));
}

TEST_CASE("url state: inline config.json, custom GPU and parameter-only models round-trip") {
    for (const auto& m : test::catalog().models()) {
        const bool served_only = !m.spec.hybrid.pattern.empty();
        json j = written(R"({"model": ")" + m.id + (served_only ? R"(", "workload": "infer"})" : R"(", "method": "lora"})"));
        j["model"] = json::parse(m.config_json);  // what the page keeps for a pasted config.json
        const std::string hash = encode_url_state(j);
        INFO(m.id << ": " << hash.substr(0, 200));
        CHECK(hash.find("&config=") != std::string::npos);
        CHECK(hash.find("model") == std::string::npos);
        check_round_trip(j);
        auto s = scenario_from_json(*decode_url_state(hash), test::catalog());
        INFO(s.error_text());
        REQUIRE(s.ok());
        CHECK(count_parameters(s->model).total == m.params.total);
    }
    check_round_trip(written(R"({"model": "gpt2", "gpu": {"name": "My GPU, 96 GiB & more", "memory_gib": 96}})"));
    check_round_trip(json{{"model", {{"name", "ZeRO 7.5B"}, {"parameters", 7500000000}}}, {"workload", "train"}});
}

TEST_CASE("url state: the link is readable") {
    const json j = written(R"({"model": "llama-3.1-8b", "method": "lora", "lora": {"rank": 16}, "framework": "torchtune",
        "gpu": {"name": "My GPU", "memory_gib": 96}})");
    const std::string h = encode_url_state(j);
    INFO(h);
    CHECK(h.rfind("v=1&model=llama-3.1-8b&workload=train&framework=torchtune&gpu.bf16=true&gpu.memory_bytes=103079215104"
                  "&gpu.name=My%20GPU&num_gpus=1&target_utilization=0.9&method=lora&precision=bf16&",
                  0) == 0);
    // No lora.targets: the model's default targets.
    CHECK(h.find("&lora.alpha=16.0&lora.dropout=0.0&lora.rank=16&lora.train_embeddings=false&") != std::string::npos);
    CHECK(h.find("&offload=none&") != std::string::npos);
    // A hand-written link: typed values, a one-element list, '#', '+' and '%2B' both mean '+'.
    auto r = decode_url_state("#v=1&model=gpt2&micro_batch=4&lora.targets=q_proj,&sp=true&offload=optimizer+params");
    REQUIRE(r.ok());
    CHECK(*r == json{{"model", "gpt2"}, {"micro_batch", 4}, {"lora", {{"targets", {"q_proj"}}}}, {"sp", true}, {"offload", "optimizer+params"}});
    CHECK(decode_url_state("v=1&offload=optimizer%2Bparams")->at("offload") == "optimizer+params");
}

TEST_CASE("url state: strings that look like numbers or literals stay strings") {
    json j = {{"model", {{"name", "1.5"}, {"parameters", 1500000000}}},
              {"a", "true"},
              {"b", "null"},
              {"c", ""},
              {"d", "'quoted"},
              {"e", "~tilde"},
              {"f", "-0"},
              {"g", json::array({"", "x,y", "1", 2, 2.5, true, nullptr})},
              {"h", json::array()},
              {"i", json::object()},
              {"j", json::array({json::object({{"k", 1}})})},
              {"k", 1e300},
              {"l", -7},
              {"m", 18446744073709551615ULL},
              {"n", "ünïcödé ✓"},
              {"o", {{"", 1}}},
              {"p", {{"x.y", {{"z", "a&b=c"}}}}},
              {"q", json::array({"only"})},
              {"r", 1.0},
              {"s", "00"}};
    check_round_trip(j);
    CHECK((*decode_url_state(encode_url_state(j)))["f"].is_string());
    CHECK((*decode_url_state(encode_url_state(j)))["r"].is_number_float());
    // Depth: flattening stops at the key-depth limit and the rest travels as embedded JSON.
    json deep = 1;
    for (int i = 0; i < 12; ++i) deep = json{{"d", deep}};
    check_round_trip(json{{"x", deep}});
}

TEST_CASE("url state: broken links give a clear error naming the field") {
    CHECK(first_error("v=1&model=gpt%2") == "model: bad percent-encoding in \"gpt%2\" (a % must be followed by two hex digits)");
    CHECK(first_error("v=1&model=gpt%zz").find("bad percent-encoding") != std::string::npos);
    CHECK(first_error("v=1&gpt%zz=1").find("bad percent-encoding in the key") != std::string::npos);
    CHECK(first_error("v=1&config=abc$").find("config: not valid base64url (character 4") == 0);
    CHECK(first_error("v=1&config=a").find("config: not valid base64url") == 0);
    CHECK(first_error("v=1&config=e30x").find("config:") == 0);                                                    // "{}" + junk
    CHECK(first_error("v=1&config=" + std::string("WzE")).find("does not hold valid JSON") != std::string::npos);  // "[1"
    CHECK(first_error("v=1&config=WzFd") == "config: expected a config.json object, got JSON of another type");
    {
        const std::string enc = encode_url_state(json{{"x", json::parse(std::string(60, '[') + std::string(60, ']'))}});
        REQUIRE(decode_url_state(enc).ok());  // 60 levels (+1) are within the limit
    }
    json nested = json::array();
    for (int i = 0; i < 70; ++i) nested = json::array({nested});
    CHECK(first_error(encode_url_state(json{{"x", nested}})).find("nests deeper than 64") != std::string::npos);
    CHECK(first_error("v=1&model=a&model=b") == "model: given twice");
    CHECK(first_error("v=1&lora.rank=1&lora.rank=2") == "lora.rank: given twice");
    CHECK(first_error("v=1&gpu=h100-80gb&gpu.name=x").find("gpu.name: conflicts with the earlier value of \"gpu\"") == 0);
    CHECK(first_error("v=1&gpu.name=x&gpu=h100-80gb") == "gpu: given as a value and also with sub-keys");
    CHECK(first_error("v=1&model=gpt2&config=e30") == "config: given twice");
    CHECK(first_error("v=1&=gpt2") == "url: empty key in \"=gpt2\"");
    CHECK(first_error("v=1&lora..rank=2").find("empty key segment") != std::string::npos);
    CHECK(first_error("v=1&model") == "url: \"model\" has no '=' (expected key=value)");
    CHECK(first_error("v=2&model=gpt2") == "v: unsupported version \"2\" (this build reads v=1 links)");
    CHECK(first_error("model=gpt2") == "v: missing: a vramcalc link starts with v=1");
    CHECK(first_error("") == "v: missing: a vramcalc link starts with v=1");
    CHECK(first_error("v=1&v=1") == "v: given twice");
    // Found by fuzz_url_state: "config.x" decoded to a "config" object that the encoder (rightly) drops.
    CHECK(first_error("v=1&config.dropout=0.05").find("config.dropout: \"config\" is reserved") == 0);
    CHECK(first_error("v=1&v.x=1").find("v.x: \"v\" is reserved") == 0);
    CHECK(first_error("v=1&a=1,,2").find("empty element") != std::string::npos);
    CHECK(first_error("v=1&a=1e999") == "a: number 1e999 is out of range");
    CHECK(first_error("v=1&a=%FF%FE").find("not UTF-8") != std::string::npos);
    CHECK(first_error("v=1&a=b\nc").find("control character") != std::string::npos);
    CHECK(first_error("v=1&a.b.c.d.e.f.g.h.i=1").find("deeper than 8") != std::string::npos);
    CHECK(first_error("v=1&a=" + std::string(70000, 'x')).find("url: longer than 65536") == 0);
    // A huge number of problems is reported briefly.
    std::string many = "v=1";
    for (int i = 0; i < 100; ++i) many += "&%zz=1";
    CHECK(decode_url_state(many).errors.size() == 21);
}

TEST_CASE("url state: keys follow the key table's order, the extension keys included") {
    const json j = written(R"({"model": "llama-3.1-8b", "micro_batch": 2, "grad_accum": 1, "optimizer_in_backward": true,
        "compile": true, "framework": "litgpt", "fsdp_no_sync": false, "checkpointing": "full"})");
    const std::string h = encode_url_state(j);
    INFO(h);
    CHECK(h.find("&grad_accum=1&optimizer_in_backward=true&compile=true&fsdp_no_sync=false&checkpointing=full&") != std::string::npos);
    const std::string e = encode_url_state(written(R"({"model": "gpt2", "workload": "infer", "framework": "vllm",
        "weights": "awq-int4", "enforce_eager": true})"));
    INFO(e);
    CHECK(e.find("&gpu_memory_utilization=0.9&group_size=128&max_model_len=0&max_num_seqs=256&max_num_batched_tokens=8192"
                 "&block_size=16&enforce_eager=true") != std::string::npos);
    // Keys outside the table follow, alphabetically.
    CHECK(encode_url_state(json{{"zz", 1}, {"model", "gpt2"}, {"aa", 2}}) == "v=1&model=gpt2&aa=2&zz=1");
}

// Issue 41: a link carries the keys that apply to its scenario. A user who switched the default training
// scenario to vLLM serving left method, lora, seq_len, sharding and the rest in the page's JSON; the link
// leaves them out and still opens on the same bill.
TEST_CASE("url state: a vLLM link leaves out the training keys the user set before switching") {
    const json doc = json::parse(R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "gpu": "h100-80gb",
        "method": "lora", "lora": {"rank": 16}, "seq_len": 2048, "micro_batch": 4, "sharding": "zero3", "precision": "bf16",
        "n_ctx": 4096, "max_model_len": 8192, "tp": 1, "attention": "sdpa", "model_hub_id": "meta-llama/Llama-3.1-8B"})");
    auto s = scenario_from_json(doc, test::catalog());
    REQUIRE(s.ok());
    const json kept = applicable_keys(doc, *s);
    const std::string link = encode_url_state(kept);
    INFO(link);
    for (const char* gone : {"method=", "lora.", "seq_len=", "micro_batch=", "sharding=", "precision=", "n_ctx="})
        CHECK(link.find(std::string("&") + gone) == std::string::npos);
    // What vLLM reads stays, and so do the training rows inference reads (tp, attention) and the record.
    for (const char* kept_key : {"&model=llama-3.1-8b", "&workload=infer", "&framework=vllm", "&max_model_len=8192", "&tp=1",
                                 "&attention=sdpa", "&model_hub_id="})
        CHECK(link.find(kept_key) != std::string::npos);
    auto back = scenario_from_json(*decode_url_state(link), test::catalog());
    REQUIRE(back.ok());
    CHECK(bill_to_json(estimate(*back))["per_gpu"] == bill_to_json(estimate(*s))["per_gpu"]);
    // A training link leaves out vLLM's keys and keeps the LoRA it trains.
    const json train = json::parse(R"({"model": "llama-3.1-8b", "method": "lora", "lora": {"rank": 16},
        "gpu_memory_utilization": 0.8, "max_num_seqs": 64, "batch": 8})");
    auto t = scenario_from_json(train, test::catalog());
    REQUIRE(t.ok());
    const std::string tl = encode_url_state(applicable_keys(train, *t));
    INFO(tl);
    CHECK(tl == "v=1&model=llama-3.1-8b&method=lora&lora.rank=16");
}

}  // namespace unit_url_state
}  // namespace
