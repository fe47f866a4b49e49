// The built-in presets: they parse, they are numerous enough, and every model and GPU the reference
// data names exists.
#include <catch2/catch.hpp>

#include <set>

#include "test_data.hpp"
#include "vramcalc/catalog.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/model_spec_json.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc/scenario_json.hpp"

namespace {
namespace unit_catalog {  // the file's own names: the unit tests build in unity batches

using namespace vramcalc;

TEST_CASE("catalog: built-in presets parse without problems") {
    const auto& c = builtin_catalog();
    INFO(c.error_text());
    REQUIRE(c.ok());
    CHECK(c->models().size() >= 30);
    CHECK(c->gpus().size() >= 40);
    std::set<std::string> ids;
    for (const auto& g : c->gpus()) {
        INFO(g.id);
        CHECK(ids.insert(g.id).second);
        // Plausible band: the smallest card in the catalog is 10 GB, the largest 288 GB.
        CHECK(g.memory_bytes >= (8LL << 30));
        CHECK(g.memory_bytes <= (320LL << 30));
        CHECK_FALSE(g.source.empty());
        CHECK((g.memory_basis == "nvidia-smi" || g.memory_basis == "rocm-smi" || g.memory_basis == "datasheet"));
        if (g.vendor == "nvidia") CHECK(g.memory_basis == "nvidia-smi");
    }
    for (const auto& m : c->models()) {
        INFO(m.id);
        CHECK_FALSE(m.source.empty());
        if (!m.spec.stack) CHECK_FALSE(m.hub_id.empty());  // layer stacks (torchvision models) are not on the Hub
        CHECK(m.params.total > 0);
    }
}

TEST_CASE("catalog: every model and GPU named by the reference data has a preset") {
    std::set<std::string> models, gpus;
    for (const char* file : {"measured_runs.json", "formula_cases.json"}) {
        for (const auto& e : test::load_json(file)) {
            if (!e.contains("scenario") || !e["scenario"].is_object()) continue;
            const auto& s = e["scenario"];
            if (s.contains("model") && s["model"].is_string()) models.insert(s["model"].get<std::string>());
            if (s.contains("gpu") && s["gpu"].is_string()) gpus.insert(s["gpu"].get<std::string>());
        }
    }
    for (const auto& e : test::load_json("model_configs.json")) models.insert(e["id"].get<std::string>());
    for (const auto& id : models) {
        INFO("model " << id);
        CHECK(test::catalog().find_model(id) != nullptr);
    }
    for (const auto& id : gpus) {
        INFO("gpu " << id);
        CHECK(test::catalog().find_gpu(id) != nullptr);
    }
}

TEST_CASE("catalog: presets of reference models carry the reference config") {
    for (const auto& e : test::load_json("model_configs.json")) {
        const auto* p = test::catalog().find_model(e["id"].get<std::string>());
        REQUIRE(p);
        INFO(p->id);
        CHECK(nlohmann::json::parse(p->config_json) == e["config"]);
    }
}

TEST_CASE("catalog: the whole-catalog solve gives each GPU's own solver answers") {
    // solve_catalog shares estimates between GPUs of one class and searches from the previous answer;
    // it must agree exactly with solving each GPU on its own.
    const char* scenarios[] = {
        R"({"model": "llama-3.1-8b", "method": "lora", "precision": "bf16", "micro_batch": 4})",
        R"({"model": "gpt2", "method": "full", "precision": "fp32", "attention": "eager"})",
        R"({"model": "llama-3.1-8b", "method": "qlora", "quantization": "nf4", "checkpointing": "full"})",
        R"({"model": "qwen2.5-7b", "method": "full", "precision": "bf16", "num_gpus": 8, "sharding": "zero3"})",
        R"({"model": "llama-3.1-8b", "method": "freeze", "trainable_layers": 4, "target_utilization": 0.95})",
    };
    for (const char* text : scenarios) {
        auto sc = vramcalc::scenario_from_text(text, test::catalog());
        REQUIRE(sc.ok());
        const auto fits = vramcalc::solve_catalog(*sc, test::catalog().gpus());
        REQUIRE(fits.size() == test::catalog().gpus().size());
        for (std::size_t i = 0; i < fits.size(); ++i) {
            vramcalc::Scenario one = *sc;
            one.gpu = test::catalog().gpus()[i];
            INFO(text << " on " << one.gpu.id);
            CHECK(fits[i].gpu.id == one.gpu.id);
            CHECK(fits[i].max_batch == vramcalc::solve_max_batch(one, 1 << 16));
            // The longest seq_len: the needed bytes come from an allocator replay, and where a longer sequence
            // moves a tensor into another free block they can step down as well as up from one length to the next.
            // Two searches that probe different lengths may then stop at different boundaries of the same cost (up
            // to ~1 % apart here), so each answer must be a boundary: it fits and the next length does not.
            const double budget = static_cast<double>(one.gpu.memory_bytes) * one.target_utilization;
            for (const std::int64_t len : {fits[i].max_seq_len, vramcalc::solve_max_seq_len(one, std::int64_t{1} << 24)}) {
                if (len <= 0 || len >= (std::int64_t{1} << 24)) continue;
                vramcalc::Scenario at = one;
                at.seq_len = len;
                CHECK(static_cast<double>(vramcalc::estimate_peak(at).needed_bytes) <= budget);
                if (len == one.model.max_positions) continue;  // the catalog's answer stops at the model's limit
                at.seq_len += 1;
                CHECK(static_cast<double>(vramcalc::estimate_peak(at).needed_bytes) > budget);
            }
            CHECK(fits[i].device_bytes == vramcalc::estimate(one).device_bytes);
        }
    }
}

TEST_CASE("catalog: the newest GPUs are in the catalog") {
    for (const char* id : {"b300", "gb200", "gb300", "rtx-pro-6000-srv", "rtx-pro-6000-ws", "rtx-5090", "h20", "l20",
                           "l20-ecc-off", "mi325x", "mi355x"}) {
        INFO(id);
        CHECK(test::catalog().find_gpu(id) != nullptr);
    }
}

TEST_CASE("catalog: the CUDA allocator's total sits a few hundred MiB below nvidia-smi's") {
    // Published pairs (presets/gpus.json cites each): RTX 4090 357 MiB, T4 430, H100 469, RTX 5090 494,
    // L40 602, H200 615, RTX PRO 6000 Server 637, B200 728, A100 80GB 881. The memory the driver keeps for
    // itself grows with the card; nothing published falls outside 0.3-0.9 GiB.
    int with_torch = 0;
    for (const auto& g : test::catalog().gpus()) {
        if (g.memory_torch_bytes == 0) continue;
        INFO(g.id);
        ++with_torch;
        const double gap_gib = static_cast<double>(g.memory_bytes - g.memory_torch_bytes) / (1 << 30);
        CHECK(gap_gib >= 0.3);
        CHECK(gap_gib <= 0.9);
    }
    CHECK(with_torch >= 9);
}

TEST_CASE("catalog: peak figures grow as precision falls") {
    for (const auto& g : test::catalog().gpus()) {
        INFO(g.id);
        if (g.peak_fp8_tflops > 0 && g.peak_bf16_tflops > 0) CHECK(g.peak_fp8_tflops >= 1.9 * g.peak_bf16_tflops);
        if (g.peak_fp4_tflops > 0 && g.peak_fp8_tflops > 0) CHECK(g.peak_fp4_tflops >= 1.9 * g.peak_fp8_tflops);
        if (g.peak_fp4_tflops > 0) CHECK(g.arch == "blackwell");  // the catalog's FP4 tensor cores
    }
}

TEST_CASE("catalog: a GDDR card's two ECC entries name each other and differ by 1/16") {
    int pairs = 0;
    for (const auto& g : test::catalog().gpus()) {
        if (g.ecc_other_id.empty()) continue;
        INFO(g.id);
        const GpuSpec* other = test::catalog().find_gpu(g.ecc_other_id);
        REQUIRE(other != nullptr);
        CHECK(g.ecc_reserves);
        CHECK(other->ecc_other_id == g.id);
        CHECK(other->ecc_on != g.ecc_on);
        CHECK(other->arch == g.arch);
        const GpuSpec& on = g.ecc_on ? g : *other;
        const GpuSpec& off = g.ecc_on ? *other : g;
        CHECK(on.memory_bytes == ecc_on_bytes(off.memory_bytes));
        ++pairs;
    }
    CHECK(pairs >= 4);  // l20 and a6000, each pair seen from both sides
    CHECK(ecc_on_bytes(49140LL << 20) == (46068LL << 20));
    CHECK(ecc_on_bytes(16384LL << 20) == (15360LL << 20));  // T4: 16 GiB, 15360 MiB with ECC on
}

TEST_CASE("catalog: GPU entries with a wrong basis or a broken ECC pair are errors naming the field") {
    struct Case {
        const char* gpus;
        const char* field;
    };
    const Case cases[] = {
        {R"({"gpus": [{"id": "x", "memory_bytes": 17179869184, "memory_basis": "marketing", "source": "s"}]})", "memory_basis"},
        {R"({"gpus": [{"id": "x", "memory_bytes": 17179869184, "memory_torch_bytes": 17179869185, "source": "s"}]})",
         "memory_torch_bytes"},
        {R"({"gpus": [{"id": "x", "memory_bytes": 17179869184, "ecc_reserves": true, "ecc_other_id": "y", "source": "s"}]})",
         "ecc_other_id"},
        {R"({"gpus": [{"id": "x", "memory_bytes": 17179869184, "ecc_other_id": "x", "source": "s"}]})", "ecc_other_id"},
        {R"({"gpus": [{"id": "x", "memory_bytes": 17179869184, "ecc_reserves": true, "ecc_on": true, "ecc_other_id": "y"},
                      {"id": "y", "memory_bytes": 16106127360, "ecc_reserves": true, "ecc_on": true, "ecc_other_id": "x"}]})",
         "ecc_other_id"},
        {R"({"gpus": [{"id": "x", "memory_bytes": 17179869184, "peak_fp8_tflops": -1}]})", "peak_fp8_tflops"},
    };
    for (const auto& c : cases) {
        INFO(c.gpus);
        const auto r = Catalog::parse({}, c.gpus);
        REQUIRE_FALSE(r.ok());
        bool named = false;
        for (const auto& e : r.errors) named = named || e.field.find(c.field) != std::string::npos;
        CHECK(named);
    }
    const auto ok = Catalog::parse({}, R"({"gpus": [
        {"id": "a", "memory_bytes": 51527024640, "ecc_reserves": true, "ecc_on": false, "ecc_other_id": "b",
         "peak_bf16_tflops": 100, "peak_fp8_tflops": 200, "peak_fp4_tflops": 400, "memory_torch_bytes": 51000000000},
        {"id": "b", "memory_bytes": 48305799168, "ecc_reserves": true, "ecc_on": true, "ecc_other_id": "a"}]})");
    INFO(ok.error_text());
    REQUIRE(ok.ok());
    CHECK(ok->gpus()[0].peak_fp4_tflops == 400);
    CHECK(ok->gpus()[0].memory_torch_bytes == 51000000000);
    CHECK(ok->gpus()[0].memory_basis == "nvidia-smi");
    CHECK(ok->gpus()[1].ecc_on);
}

// Issue 41: the catalog's longest sequence and context stop where the bill's do: at the model's limit
// (max_position_embeddings) and, for vLLM, at max_model_len, which the engine refuses to go past.
TEST_CASE("catalog: the longest sequence and context are capped at the model's limit and vLLM's max_model_len") {
    struct Case {
        const char* text;
        std::int64_t cap;
    } cases[] = {
        {R"({"model": "gpt2", "method": "full", "precision": "bf16", "micro_batch": 1})", 1024},
        {R"({"model": "gpt2", "workload": "infer", "batch": 1})", 1024},
        {R"({"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "max_model_len": 8192})", 8192},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto sc = vramcalc::scenario_from_text(c.text, test::catalog());
        REQUIRE(sc.ok());
        const bool train = sc->workload == vramcalc::Workload::train;
        const auto bill = vramcalc::estimate(*sc);
        const std::int64_t own = train ? bill.max_seq_len.value_or(0) : bill.max_context.value_or(0);
        CHECK(own == c.cap);  // memory on the default H100 allows more than the cap in each case
        bool noted = false;
        for (const auto& n : bill.notes) noted = noted || n.find("capped at") != std::string::npos;
        CHECK(noted);
        int at_cap = 0;
        for (const auto& f : vramcalc::solve_catalog(*sc, test::catalog().gpus())) {
            INFO(f.gpu.id);
            const std::int64_t len = train ? f.max_seq_len : f.max_context;
            CHECK(len <= c.cap);
            at_cap += len == c.cap;
        }
        CHECK(at_cap > 10);  // the large GPUs reach it
    }
    // The note says which limit and what memory alone would allow.
    auto sc = vramcalc::scenario_from_text(cases[2].text, test::catalog());
    const auto bill = vramcalc::estimate(*sc);
    REQUIRE(!bill.notes.empty());
    bool said = false;
    for (const auto& n : bill.notes) said = said || n.rfind("longest context capped at max_model_len 8192 (memory alone would allow ", 0) == 0;
    CHECK(said);
}

// The page's presets carry each model as the native CLI read it (model_spec_json.hpp, `vramcalc presets
// --specs`): read back, a spec gives the same spec, the same counts and the same bills as its config.json.
TEST_CASE("catalog: presets given as specs read as their config.json") {
    const auto& c = test::catalog();
    std::vector<std::string> files;
    for (const auto& m : c.models()) {
        const nlohmann::json spec = model_spec_to_json(m.spec);
        INFO(m.id);
        const auto back = model_spec_from_json(spec);
        REQUIRE(back.ok());
        CHECK(model_spec_to_json(*back) == spec);
        CHECK(count_parameters(*back).total == m.params.total);
        if (m.spec.stack) {  // a layer stack as the page's model reader hands it over: each layer's figures
            REQUIRE(back->stack);
            CHECK(back->stack->layers.size() == m.spec.stack->layers.size());
            auto sc = scenario_from_text(R"({"model": ")" + m.id + R"(", "method": "full", "micro_batch": 8})", c);
            REQUIRE(sc.ok());
            const std::string want = bill_to_json(estimate(*sc)).dump();
            sc.value->model = *back;
            CHECK(bill_to_json(estimate(*sc)).dump() == want);
            continue;
        }
        nlohmann::json preset = {{"id", m.id}, {"name", m.name}, {"hub_id", m.hub_id}, {"family", m.family}, {"spec", spec}};
        files.push_back(preset.dump());
    }
    std::vector<std::string_view> views(files.begin(), files.end());
    const auto page = Catalog::parse(views, builtin_gpu_file());
    INFO(page.error_text());
    REQUIRE(page.ok());
    for (const auto& m : page->models()) {
        INFO(m.id);
        CHECK(m.config_json.empty());
        for (const char* extra : {R"("workload": "train", "method": "lora")", R"("workload": "infer", "framework": "vllm")",
                                  R"("workload": "train", "method": "full", "precision": "bf16", "num_gpus": 8, "sharding": "zero3")"}) {
            const std::string text = std::string(R"({"model": ")") + m.id + "\", " + extra + "}";
            const auto a = scenario_from_text(text, c), b = scenario_from_text(text, *page);
            REQUIRE(a.ok() == b.ok());
            if (a.ok()) CHECK(bill_to_json(estimate(*a)) == bill_to_json(estimate(*b)));
        }
    }
    // Not a spec: an error, never a throw.
    CHECK_FALSE(model_spec_from_json(nlohmann::json::array({1, 2})).ok());
    CHECK_FALSE(model_spec_from_json(nlohmann::json::object()).ok());
    auto truncated = model_spec_to_json(c.models().front().spec);
    truncated.erase(truncated.begin() + 3);
    CHECK_FALSE(model_spec_from_json(truncated).ok());
}

TEST_CASE("catalog: a model reader's answer carries the spec, its errors and its warnings") {
    Result<ModelSpec> r;
    r.value = test::catalog().find_model("llama-3.1-8b")->spec;
    r.warnings.push_back("a warning");
    const auto back = model_result_from_json(model_result_to_json(r));
    REQUIRE(back.ok());
    CHECK(back.warnings == r.warnings);
    CHECK(model_spec_to_json(*back) == model_spec_to_json(*r));
    Result<ModelSpec> bad;
    bad.errors.push_back({"model.hidden_size", "missing"});
    const auto bad_back = model_result_from_json(model_result_to_json(bad));
    CHECK_FALSE(bad_back.ok());
    REQUIRE(bad_back.errors.size() == 1);
    CHECK(bad_back.errors[0].text() == "model.hidden_size: missing");
}

}  // namespace unit_catalog
}  // namespace
