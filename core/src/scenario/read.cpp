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

std::string num(std::int64_t v) { return std::to_string(v); }

// Which ranks expert parallelism reuses is each engine's own rule (docs/architectures.md, "Expert parallelism").
// Megatron (arguments.py, expert_model_parallel_size): the experts split the data-parallel ranks, so ep divides
// num_gpus / (tp x pp x cp). vLLM: `--enable-expert-parallel` is a switch, not a degree; the MoE layers are then
// sharded over "the product of the tensor, prefill-context, and data parallel sizes" (vllm/config/parallel.py
// @00193b82, ParallelConfig.data_parallel_size; FusedMoE sets ep_size = tp_size x dp_size), so the only ep it
// can run is 1 or tp x dp: tp 8 with expert parallelism on 8 GPUs is ep 8.
void check_expert_groups(const Scenario& s, FieldReader& r) {
    if (s.ep <= 1) return;
    const std::int64_t model_parallel = s.tp * s.pp * s.cp, dp = s.num_gpus / model_parallel;
    if (s.framework == Framework::vllm && s.workload == Workload::infer) {
        if (s.ep != s.tp * dp)
            r.error("ep", num(s.ep) + " with tp " + num(s.tp) + " and " + num(dp) +
                              " data-parallel replica(s): vLLM's "
                              "--enable-expert-parallel spreads the experts over the tp x dp ranks (vllm/config/parallel.py), so "
                              "allowed ep is 1 (off) or tp x dp = " +
                              num(s.tp * dp));
        return;
    }
    if (dp % s.ep != 0)
        r.error("ep", num(s.ep) + " must divide num_gpus / (tp x pp x cp) = " + num(s.num_gpus) + " / " +
                          num(model_parallel) + " = " + num(dp) +
                          " (Megatron splits the experts across data-parallel "
                          "ranks): raise num_gpus to a multiple of " +
                          num(model_parallel * s.ep) + " or lower ep");
}

// Parallel degrees against each other and against the model: a layout no framework can run is an error
// (Megatron-LM's arguments.py and vLLM's config checks refuse the same), not a smaller bill.
void check_layout(const Scenario& s, FieldReader& r) {
    const std::int64_t model_parallel = s.tp * s.pp * s.cp;
    if (s.num_gpus % model_parallel != 0) {
        r.error("num_gpus", num(s.num_gpus) + " is not a multiple of tp x pp x cp = " + num(model_parallel));
        return;
    }
    const ModelSpec& m = s.model;
    check_expert_groups(s, r);
    if (m.count_only) return;
    if (m.stack) {  // a layer stack trains data parallel: Megatron's splits need transformer layers
        for (auto [key, v] : {std::pair<const char*, std::int64_t>{"tp", s.tp}, {"pp", s.pp}, {"cp", s.cp}, {"ep", s.ep}})
            if (v > 1)
                r.error(key, num(v) +
                                 " on a layer-stack model: tp, pp, cp and ep split transformer layers; a layer stack "
                                 "runs data parallel (num_gpus with sharding), allowed " +
                                 std::string(key) + " 1");
        return;
    }
    if (s.ep > 1 && m.moe.experts == 0)
        r.error("ep", num(s.ep) + " needs a mixture-of-experts model; model \"" + utf8_prefix(m.name, 60) + "\" has no experts (allowed: ep 1)");
    else if (s.ep > m.moe.experts && m.moe.experts > 0)
        r.error("ep", num(s.ep) + " is more than the model's " + num(m.moe.experts) + " experts: allowed ep 1 to " +
                          num(m.moe.experts));
    if (s.pp > 1 && m.layers > 0 && s.pp > m.layers)
        r.error("pp", num(s.pp) + " is more than the model's " + num(m.layers) +
                          " layers (model.num_hidden_layers): "
                          "each pipeline stage needs at least one layer; allowed pp 1 to " +
                          num(m.layers));
    if (s.tp > 1 && m.heads > 0 && s.tp > m.heads)
        r.error("tp", num(s.tp) + " is more than the model's " + num(m.heads) +
                          " attention heads (model.num_attention_heads): "
                          "tensor parallelism splits the heads; allowed tp 1 to " +
                          num(m.heads));
}

// What a layer-stack model cannot be run with: the settings below are defined on transformer layers.
void check_stack(const Scenario& s, FieldReader& r) {
    if (!s.model.stack) return;
    if (s.workload == Workload::train && s.method == Method::freeze)
        r.error("method",
                "\"freeze\" trains the last N transformer layers; a layer stack freezes with \"trainable\": false "
                "on its layers or blocks (allowed: full, lora, qlora)");
    if (s.framework == Framework::vllm || s.framework == Framework::llamacpp)
        r.error("framework", std::string("\"") + to_string(s.framework) +
                                 "\" serves transformer language models; a layer "
                                 "stack runs in plain PyTorch (allowed: hf, torchtune, litgpt, deepspeed, megatron)");
}

// A hybrid Mamba / attention model (Nemotron-H) is modelled for serving with vLLM and transformers: the
// training bill's saved tensors and llama.cpp's recurrent-state buffers of its Mamba-2 blocks are not.
void check_hybrid(const Scenario& s, FieldReader& r) {
    if (s.model.hybrid.pattern.empty()) return;
    if (s.workload != Workload::infer)
        r.error("workload", std::string("\"") + to_string(s.workload) + "\" with the hybrid Mamba model \"" + utf8_prefix(s.model.name, 60) +
                                "\": the saved tensors of its Mamba-2 blocks are not modelled yet (allowed: infer)");
    else if (s.framework != Framework::vllm && s.framework != Framework::hf)
        r.error("framework", std::string("\"") + to_string(s.framework) + "\" with the hybrid Mamba model \"" + utf8_prefix(s.model.name, 60) +
                                 "\": its recurrent state is modelled for vllm and hf only (allowed: vllm, hf)");
}

void check_cross_fields(const Scenario& s, FieldReader& r) {
    check_stack(s, r);
    check_hybrid(s, r);
    if (s.method == Method::qlora && s.quantization == Quantization::none)
        r.error("quantization", "method \"qlora\" needs a quantized base: nf4, nf4-dq, int8, gptq-int4 or awq-int4");
    if (s.optimizer_in_backward && s.grad_accum > 1)
        r.error("optimizer_in_backward",
                "needs grad_accum 1: gradients are freed as soon as the optimizer has used "
                "them, so none are kept between micro-batches (torchtune raises the same error)");
    if (s.prompt_len + s.gen_len < 1 && s.workload == Workload::infer)
        r.error("prompt_len", "prompt_len + gen_len must be at least 1 token");
    check_layout(s, r);
    check_contradictions(s, r);
}

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
