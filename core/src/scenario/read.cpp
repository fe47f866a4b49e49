// Scenario JSON -> Scenario: every key read through its row of the key table (keys.cpp), every absent
// key left at default_scenario's value, every problem reported (field, value, what is allowed).
#include <algorithm>
#include <utility>

#include "enums.hpp"
#include "catalog/catalog_gpu.hpp"
#include "rows.hpp"
#include "model/config_reader.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/scenario_json.hpp"

namespace vramcalc {
namespace detail {

// The transformers release a document asks for (its defaults depend on it), read again with the other keys.
static std::int64_t peek_release(const json& j) {
    auto it = j.find("transformers");
    const std::int64_t today = Scenario{}.transformers;
    return it != j.end() && it->is_number_integer() && it->get<std::int64_t>() == 4 ? 4 : today;
}

Scenario fallback_for(const Scenario& s) {
    Scenario d = default_scenario(s.framework, s.workload, s.transformers);
    d.quantization = default_quantization(s.method, s.framework);
    d.precision = default_precision(s.framework, s.transformers, s.load_dtype, s.model);
    d.transformers = Scenario{}.transformers;  // the release itself is written where it is not today's
    return d;
}

// The text an inline config.json is kept as: compact, invalid UTF-8 replaced (never throws).
std::string compact_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The last inline layer stack read, with its model: the page's advisor, catalog and curves read the same
// scenario with one key changed dozens of times per edit, and a 10,000-layer stack took 12-33 ms to walk
// and print each time (issue 42: 0.2-0.35 s of advice per change natively). Comparing the JSON with the
// last one costs about a tenth of that. Per thread; the core keeps no other state.
struct StackMemo {
    json stack;
    ModelSpec model;
    std::string config;
};
thread_local StackMemo t_last_stack;

void read_layer_stack(ReadContext& c, const json& m) {
    Scenario& s = c.s;
    s.model_ref = "inline";
    if (t_last_stack.model.stack && t_last_stack.stack == m) {
        s.model = t_last_stack.model;
        s.model_config = t_last_stack.config;
        return;
    }
    const std::string name = m.contains("name") && m["name"].is_string() ? m["name"].get<std::string>() : "layer stack";
    auto spec = read_layer_stack_model(m, utf8_prefix(name, 120), "model");
    if (!spec.ok()) {
        for (auto& e : spec.errors) c.out.errors.push_back(e);
        return;
    }
    s.model = std::move(*spec.value);
    s.model_config = compact_json(m);
    t_last_stack = {m, s.model, s.model_config};
}

void read_model(ReadContext& c, const ScenarioKey&) {
    const json& j = c.doc;
    Scenario& s = c.s;
    if (!j.contains("model") || j["model"].is_null()) {
        c.out.errors.push_back({"model",
                                "missing required key: a preset id (see `vramcalc presets`), or a "
                                "config.json object"});
        return;
    }
    const json& m = j["model"];
    if (m.is_string()) {
        const std::string id = m.get<std::string>();
        if (const ModelPreset* p = c.catalog.find_model(id)) {
            s.model_ref = id;
            if (!p->layer_stack || p->spec.stack) {
                s.model = p->spec;
                return;
            }
            // A layer-stack preset the page reads on first use (catalog.cpp, model/config_reader.hpp).
            auto spec = read_layer_stack_text(p->config_json, p->name, "model");
            if (!spec.ok())
                for (auto& e : spec.errors) c.out.errors.push_back(e);
            else s.model = std::move(*spec.value);
        } else {
            c.out.errors.push_back({"model", "unknown preset id \"" + describe(m).substr(1, 40) +
                                                 " (`vramcalc presets` lists them; or give a config.json)"});
        }
        return;
    }
    if (m.is_object() && !m.contains("model_type") && m.contains("parameters")) {
        // A model known only by its parameter count (e.g. the ZeRO paper's 7.5B model).
        FieldReader r(m, "model", c.out.errors);
        s.model.name = r.string_or("name", "custom model");
        if (s.model.name.find_first_not_of(" \t") == std::string::npos) s.model.name = "custom model";
        s.model.count_only = true;
        s.model.declared_parameters = r.integer({"parameters"}, 1, std::int64_t{1} << 46).value_or(0);
        s.model_ref = "parameters";
        return;
    }
    if (is_layer_stack_json(m)) {  // a model given by its layers (layer_stack.hpp)
        read_layer_stack(c, m);
        return;
    }
    auto spec = read_model_config(m, "inline config.json", "model");
    for (auto& w : spec.warnings) c.out.warnings.push_back(w);
    if (!spec.ok()) {
        for (auto& e : spec.errors) c.out.errors.push_back(e);
        return;
    }
    s.model = std::move(*spec.value);
    s.model_ref = "inline";
    s.model_config = compact_json(m);
}

void read_gpu(ReadContext& c, const ScenarioKey&) {
    const json& j = c.doc;
    Scenario& s = c.s;
    const json* g = j.contains("gpu") && !j["gpu"].is_null() ? &j["gpu"] : nullptr;
    if (!g) {
        if (const GpuSpec* d = c.catalog.find_gpu(s.gpu.id)) s.gpu = *d;
        return;
    }
    if (g->is_string()) {
        if (const GpuSpec* p = c.catalog.find_gpu(g->get<std::string>())) s.gpu = *p;
        else c.out.errors.push_back({"gpu", "unknown GPU id " + describe(*g) +
                                                " (`vramcalc presets` lists them; or a custom GPU: {\"name\": ..., \"memory_gib\": N} in a "
                                                "scenario, --gpu-memory-gib N on the command line)"});
        return;
    }
    if (!g->is_object()) {
        c.out.errors.push_back({"gpu", "got " + describe(*g) + ", expected a GPU id or {\"name\", \"memory_gib\"}"});
        return;
    }
    warn_unknown_keys(*g, "gpu", c.out.warnings);
    FieldReader r(*g, "gpu", c.out.errors);
    s.gpu = GpuSpec{};
    s.gpu.id = "custom";
    s.gpu.name = r.string_or("name", "custom GPU");
    if (s.gpu.name.find_first_not_of(" \t") == std::string::npos) s.gpu.name = "custom GPU";  // never "on : "

    s.gpu.arch = r.string_or("arch", "");
    const auto& archs = gpu_archs();
    if (!s.gpu.arch.empty() && std::find(archs.begin(), archs.end(), s.gpu.arch) == archs.end())
        r.error("arch", "got \"" + utf8_prefix(s.gpu.arch, 40) + "\", allowed: " + join_names(archs) + " (or leave it out: unknown)");
    s.gpu.bf16 = r.boolean_or("bf16", true);
    if (r.has("memory_bytes")) {
        const ScenarioKey& k = key_of("gpu.memory_bytes");
        s.gpu.memory_bytes = r.integer({"memory_bytes"}, static_cast<std::int64_t>(k.min), static_cast<std::int64_t>(k.max)).value_or(0);
    } else if (r.has("memory_gib")) {
        s.gpu.memory_bytes = static_cast<std::int64_t>(read_number(r, "gpu.memory_gib", 0) * 1073741824.0);
    } else {
        r.error("memory_gib", "missing: a custom GPU needs memory_gib (GiB = 2^30 bytes) or memory_bytes");
    }
    read_compute_and_links(r, s.gpu);  // peaks and links, as a catalog entry gives them (catalog/catalog.cpp)
}

void read_lora(ReadContext& c, const ScenarioKey&) {
    const json& j = c.doc;
    LoraSetup& lora = c.s.lora;
    if (!j.contains("lora") || j["lora"].is_null()) return;
    const json& l = j["lora"];
    if (!l.is_object()) {
        c.out.errors.push_back({"lora", "got " + describe(l) + ", expected an object such as {\"rank\": 8}"});
        return;
    }
    warn_unknown_keys(l, "lora", c.out.warnings);
    FieldReader r(l, "lora", c.out.errors);
    if (r.has("rank") && r.has("r") && l["rank"] != l["r"])  // PEFT's LoraConfig says r, the spec says rank
        r.error("rank", "lora.rank " + describe(l["rank"]) + " and lora.r " + describe(l["r"]) +
                            " disagree: they are two spellings of "
                            "the same key (the adapter rank; PEFT's LoraConfig calls it r); give one of them");
    lora.rank = read_integer(r, "lora.rank", lora.rank);
    lora.alpha = read_number(r, "lora.alpha", lora.alpha);
    lora.dropout = read_number(r, "lora.dropout", lora.dropout);
    lora.train_embeddings = r.boolean_or("train_embeddings", lora.train_embeddings);
    lora.use_dora = r.boolean_or("use_dora", lora.use_dora);
    if (!r.has("targets")) return;  // the model's default targets
    const json& t = l["targets"];
    if (t.is_string() && t.get<std::string>() == "all-linear") {
        lora.all_linear = true;
        lora.targets.clear();
    } else if (t.is_array() && t.size() == 1 && t[0].is_string() && t[0].get<std::string>() == "all-linear") {
        lora.all_linear = true;  // ["all-linear"]: the same as the string
        lora.targets.clear();
    } else if (t.is_array() && !t.empty()) {
        lora.all_linear = false;
        lora.targets.clear();
        for (const auto& e : t) {
            if (e.is_string() && e.get<std::string>() == "all-linear")
                r.error("targets",
                        "\"all-linear\" cannot be mixed with module names (PEFT takes the string "
                        "\"all-linear\" alone): give \"all-linear\" or only names such as [\"q_proj\", \"v_proj\"]");
            else if (e.is_string() && !e.get<std::string>().empty()) lora.targets.push_back(e.get<std::string>());
            else r.error("targets", "entry " + describe(e) + " is not a module name");
        }
    } else {
        r.error("targets", "got " + describe(t) + ", expected \"all-linear\" or a list of module names");
    }
}

void read_quantization(ReadContext& c, const ScenarioKey& k) {
    c.s.quantization = read_enum(c.r, c.doc, k.name, default_quantization(c.s.method, c.s.framework));
}

void read_weights(ReadContext& c, const ScenarioKey& k) {
    // A pre-quantised checkpoint's config.json (its quantization_config, model/quant_config.cpp) names the
    // format vLLM and transformers load it in: the default, and what "checkpoint" means.
    const CheckpointQuant& q = c.s.model.quant;
    const bool named = c.doc.contains(k.name) && !c.doc[k.name].is_null();
    if (!named && !q.format.empty()) c.s.weights = q.format;
    else c.s.weights = c.r.string_or(k.name, c.s.weights);
    // vLLM's `--quantization fp8` on a checkpoint stored in fp8 loads it as stored (Fp8Config.from_config reads the
    // checkpoint's weight_block_size): a named fp8 flavour other than the checkpoint's is the checkpoint's.
    if (named && !q.format.empty() && q.format != c.s.weights && is_fp8_format(c.s.weights) && is_fp8_format(q.format)) {
        c.out.warnings.push_back("weights \"" + c.s.weights + "\": the model's config.json stores its linears as " + q.format +
                                 " (quantization_config), which is what vLLM and transformers load; counted as " + q.format);
        c.s.weights = q.format;
    }
    if (c.s.weights == "checkpoint") {
        if (q.format.empty()) {
            c.r.error(k.name,
                      "\"checkpoint\": the model's config.json has no quantization_config that vramcalc reads; name a "
                      "format (allowed: " +
                          join_names(weight_format_names()) + ")");
            return;
        }
        c.s.weights = q.format;
    }
    // The weight-format table (formats/weight_format_table.cpp) is the list: a name it lacks has no byte rule.
    if (!find_weight_format(c.s.weights))
        c.r.error(k.name, "got \"" + utf8_prefix(c.s.weights, 40) + "\", allowed: " + join_names(weight_format_names()));
}

void read_group_size(ReadContext& c, const ScenarioKey& k) {
    // The checkpoint's own group (quantization_config's group_size) when its format is the one loaded.
    const CheckpointQuant& q = c.s.model.quant;
    if (q.group_size != 0 && q.format == c.s.weights) c.s.group_size = q.group_size;
    c.s.group_size = read_integer(c.r, k.name, c.s.group_size);
    if (c.s.group_size == 0)
        c.r.error(k.name, "got 0, allowed: -1 (one group per output channel) or a positive size such as 32, 64, 128");
}

namespace {

bool nested(std::string_view name) { return name.find('.') != std::string_view::npos; }

}  // namespace
}  // namespace detail

Result<Scenario> scenario_from_json(const nlohmann::json& j, const Catalog& cat) {
    using namespace detail;
    Result<Scenario> out;
    if (!j.is_object()) {
        out.errors.push_back({"scenario", "expected a JSON object, got " + describe(j)});
        return out;
    }
    warn_unknown_keys(j, "", out.warnings);
    // Every absent key keeps the default of the framework and workload asked for (read again below,
    // where a bad value is reported).
    Scenario s = default_scenario(peek_enum(j, "framework", Framework::hf), peek_enum(j, "workload", Workload::train),
                                  peek_release(j));
    FieldReader r(j, "", out.errors);
    ReadContext c{j, cat, s, r, out};
    for (const auto& row : key_rows())
        if (row.bind.read && !nested(row.key.name) && row.bind.read != &read_rlhf) row.bind.read(c, row.key);
    if (!j.contains("precision")) s.precision = default_precision(s.framework, s.transformers, s.load_dtype, s.model);
    check_cross_fields(s, r);
    check_ignored_keys(j, s, out.warnings);
    read_rlhf(c, key_of("rlhf"));  // last: its roles follow the policy's settings
    if (s.model.stack && s.rlhf.algorithm != RlhfAlgorithm::none)
        r.error("rlhf", "RLHF trains language models; a layer-stack model has no tokens to generate (leave rlhf out)");

    if (out.errors.empty()) out.value = std::move(s);
    return out;
}

Result<Scenario> scenario_from_text(std::string_view text, const Catalog& cat) {
    std::string why;
    const auto j = parse_json_text(text, why);  // depth-limited: deep documents overflowed the stack
    if (!j) {
        Result<Scenario> out;
        out.errors.push_back({"scenario", why});
        return out;
    }
    return scenario_from_json(*j, cat);
}

Scenario default_scenario(Framework f, Workload w, const Catalog& catalog) {
    Scenario s = default_scenario(f, w);
    if (const GpuSpec* g = catalog.find_gpu(s.gpu.id)) s.gpu = *g;
    return s;
}

}  // namespace vramcalc
