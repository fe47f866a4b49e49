#include "vramcalc/scenario_json.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

#include "io/json_reader.hpp"
#include "vramcalc/hf_config.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc {

using detail::FieldReader;
using detail::json;

namespace {

template <class E>
using Table = std::vector<std::pair<E, const char*>>;

// One table per enum: the JSON spelling of each value (shared/spec/scenario.md).
template <class E> const Table<E>& table();
template <> const Table<Workload>& table() { static const Table<Workload> t{{Workload::train, "train"}, {Workload::infer, "infer"}}; return t; }
template <> const Table<Framework>& table() {
    static const Table<Framework> t{{Framework::hf, "hf"}, {Framework::torchtune, "torchtune"}, {Framework::litgpt, "litgpt"},
                                    {Framework::deepspeed, "deepspeed"}, {Framework::megatron, "megatron"},
                                    {Framework::vllm, "vllm"}, {Framework::llamacpp, "llama.cpp"}};
    return t;
}
template <> const Table<Method>& table() {
    static const Table<Method> t{{Method::full, "full"}, {Method::lora, "lora"}, {Method::qlora, "qlora"}, {Method::freeze, "freeze"}};
    return t;
}
template <> const Table<Precision>& table() {
    static const Table<Precision> t{{Precision::fp32, "fp32"}, {Precision::fp16_mixed, "fp16-mixed"},
                                    {Precision::bf16_mixed, "bf16-mixed"}, {Precision::fp16, "fp16"}, {Precision::bf16, "bf16"}};
    return t;
}
template <> const Table<Optimizer>& table() {
    static const Table<Optimizer> t{{Optimizer::adamw, "adamw"}, {Optimizer::adamw_8bit, "adamw-8bit"},
                                    {Optimizer::paged_adamw_8bit, "paged-adamw-8bit"}, {Optimizer::adafactor, "adafactor"},
                                    {Optimizer::sgd, "sgd"}, {Optimizer::sgd_momentum, "sgd-momentum"}, {Optimizer::lion, "lion"}};
    return t;
}
template <> const Table<Quantization>& table() {
    static const Table<Quantization> t{{Quantization::none, "none"}, {Quantization::nf4, "nf4"},
                                       {Quantization::nf4_dq, "nf4-dq"}, {Quantization::int8, "int8"}};
    return t;
}
template <> const Table<Checkpointing>& table() {
    static const Table<Checkpointing> t{{Checkpointing::none, "none"}, {Checkpointing::full, "full"},
                                        {Checkpointing::selective, "selective"}, {Checkpointing::offload, "offload"}};
    return t;
}
template <> const Table<Attention>& table() {
    static const Table<Attention> t{{Attention::eager, "eager"}, {Attention::sdpa, "sdpa"}, {Attention::flash, "flash"}};
    return t;
}
template <> const Table<Loss>& table() {
    static const Table<Loss> t{{Loss::standard, "standard"}, {Loss::chunked, "chunked"}, {Loss::fused, "fused"}};
    return t;
}
template <> const Table<Sharding>& table() {
    static const Table<Sharding> t{{Sharding::none, "none"}, {Sharding::zero1, "zero1"}, {Sharding::zero2, "zero2"},
                                   {Sharding::zero3, "zero3"}, {Sharding::fsdp_full, "fsdp-full"}, {Sharding::fsdp_grad_op, "fsdp-grad-op"}};
    return t;
}
template <> const Table<Offload>& table() {
    static const Table<Offload> t{{Offload::none, "none"}, {Offload::optimizer, "optimizer"}, {Offload::optimizer_params, "optimizer+params"}};
    return t;
}
template <> const Table<KvDtype>& table() {
    static const Table<KvDtype> t{{KvDtype::automatic, "auto"}, {KvDtype::fp16, "fp16"}, {KvDtype::bf16, "bf16"},
                                  {KvDtype::fp8, "fp8"}, {KvDtype::q8_0, "q8_0"}, {KvDtype::q4_0, "q4_0"}};
    return t;
}

template <class E>
const char* name_of(E v) {
    for (const auto& [e, n] : table<E>())
        if (e == v) return n;
    return "?";
}

template <class E>
std::string allowed_list() {
    std::string s;
    for (const auto& [e, n] : table<E>()) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}

template <class E>
E read_enum(FieldReader& r, const json& obj, const char* key, E fallback) {
    if (!r.has(key)) return fallback;
    const json& v = obj.at(key);
    if (v.is_string())
        for (const auto& [e, n] : table<E>())
            if (v.get<std::string>() == n) return e;
    r.error(key, "got " + detail::describe(v) + ", allowed: " + allowed_list<E>());
    return fallback;
}

// Weight formats for inference (see estimate.cpp for the bytes of each).
const std::vector<std::string>& weight_formats() {
    static const std::vector<std::string> f = {
        "fp32", "bf16", "fp16", "fp8", "fp8-channel", "int8", "nf4", "nf4-dq", "gptq-int4", "awq-int4", "gptq-int8", "awq-int8",
        "gguf-f16", "gguf-q8_0", "gguf-q6_k", "gguf-q5_k_m", "gguf-q5_0", "gguf-q4_k_m", "gguf-q4_0",
        "gguf-q3_k_m", "gguf-q2_k", "gguf-iq4_xs"};
    return f;
}

// Keys the scenario may hold (spec + our extensions); others get a warning, not an error.
const std::set<std::string>& known_keys() {
    static const std::set<std::string> k = {
        "model", "model_hub_id", "workload", "framework", "gpu", "num_gpus", "target_utilization", "method",
        "precision", "optimizer", "lora", "quantization", "trainable_layers", "micro_batch", "seq_len",
        "grad_accum", "optimizer_in_backward", "compile", "fsdp_no_sync", "checkpointing", "attention", "loss", "sharding", "offload", "tp", "pp", "cp", "ep", "sp",
        "rlhf", "weights", "kv_dtype", "batch", "prompt_len", "gen_len", "gpu_memory_utilization", "extra",
        "group_size", "max_model_len", "max_num_seqs", "max_num_batched_tokens", "block_size", "enforce_eager",
        "n_ctx", "n_gpu_layers", "n_ubatch"};
    return k;
}

// What a user of each framework gets without setting a key (sources in docs/methodology.md):
//  hf: Trainer AMP over an fp32 model, full logits + fp32 loss, no checkpointing; PEFT LoraConfig
//      r=8, lora_alpha=8, lora_dropout=0.0, q_proj/v_proj for Llama-style models.
//  torchtune: bf16 recipes (no fp32 master), activation checkpointing on in the shipped single-device
//      configs, chunked cross-entropy (CEWithChunkedOutputLoss, 8 chunks); LoRA rank 8, alpha 16, dropout 0.
//  litgpt: bf16-mixed where supported (litgpt/utils.py get_default_supported_precision), chunked
//      cross-entropy (128 positions), no checkpointing on one device; LoRA r=8, alpha=16, dropout 0.05.
//  deepspeed / megatron: 16-bit model with fp32 master weights, full logits, no recomputation.
struct FrameworkDefaults {
    Precision precision = Precision::bf16_mixed;
    Checkpointing checkpointing = Checkpointing::none;
    Loss loss = Loss::standard;
    LoraSetup lora;
};

FrameworkDefaults framework_defaults(Framework f) {
    FrameworkDefaults d;
    switch (f) {
        case Framework::torchtune:
            d.precision = Precision::bf16;
            d.checkpointing = Checkpointing::full;
            d.loss = Loss::chunked;
            d.lora.alpha = 16;
            d.lora.dropout = 0.0;
            break;
        case Framework::litgpt:
            d.loss = Loss::chunked;
            d.lora.alpha = 16;
            d.lora.dropout = 0.05;
            break;
        case Framework::hf:
            d.lora.alpha = 8;
            d.lora.dropout = 0.0;
            break;
        default:
            break;
    }
    return d;
}

constexpr std::int64_t kMaxTokens = std::int64_t{1} << 27;  // 134M tokens per sequence
constexpr std::int64_t kMaxCount = std::int64_t{1} << 20;   // batches, GPUs, accumulation steps

void read_model(Scenario& s, const json& j, const Catalog& cat, Result<Scenario>& out) {
    if (!j.contains("model") || j["model"].is_null()) {
        out.errors.push_back({"model", "missing required key: a preset id (see `vramcalc presets`), or a "
                                       "config.json object"});
        return;
    }
    const json& m = j["model"];
    if (m.is_string()) {
        const std::string id = m.get<std::string>();
        if (const ModelPreset* p = cat.find_model(id)) {
            s.model = p->spec;
            s.model_ref = id;
        } else {
            out.errors.push_back({"model", "unknown preset id \"" + detail::describe(m).substr(1, 40) +
                                               " (`vramcalc presets` lists them; or give a config.json)"});
        }
        return;
    }
    if (m.is_object() && !m.contains("model_type") && m.contains("parameters")) {
        // A model known only by its parameter count (e.g. the ZeRO paper's 7.5B model).
        FieldReader r(m, "model", out.errors);
        s.model.name = r.string_or("name", "custom model");
        s.model.count_only = true;
        s.model.declared_parameters = r.integer({"parameters"}, 1, std::int64_t{1} << 46).value_or(0);
        s.model_ref = "parameters";
        return;
    }
    auto spec = model_from_config(m, "inline config.json", "model");
    for (auto& w : spec.warnings) out.warnings.push_back(w);
    if (!spec.ok()) {
        for (auto& e : spec.errors) out.errors.push_back(e);
        return;
    }
    s.model = std::move(*spec.value);
    s.model_ref = "inline";
}

void read_gpu(Scenario& s, const json& j, const Catalog& cat, Result<Scenario>& out) {
    const json* g = j.contains("gpu") && !j["gpu"].is_null() ? &j["gpu"] : nullptr;
    if (!g) {
        if (const GpuSpec* d = cat.find_gpu("h100-80gb")) s.gpu = *d;
        return;
    }
    if (g->is_string()) {
        if (const GpuSpec* p = cat.find_gpu(g->get<std::string>())) s.gpu = *p;
        else out.errors.push_back({"gpu", "unknown GPU id " + detail::describe(*g) +
                                              " (`vramcalc presets` lists them; or {\"name\": ..., \"memory_gib\": N})"});
        return;
    }
    if (!g->is_object()) {
        out.errors.push_back({"gpu", "got " + detail::describe(*g) + ", expected a GPU id or {\"name\", \"memory_gib\"}"});
        return;
    }
    FieldReader r(*g, "gpu", out.errors);
    s.gpu = GpuSpec{};
    s.gpu.id = "custom";
    s.gpu.name = r.string_or("name", "custom GPU");
    s.gpu.arch = r.string_or("arch", "");
    s.gpu.bf16 = r.boolean_or("bf16", true);
    if (r.has("memory_bytes")) {
        s.gpu.memory_bytes = r.integer({"memory_bytes"}, 1 << 20, std::int64_t{1} << 50).value_or(0);
    } else if (r.has("memory_gib")) {
        s.gpu.memory_bytes = static_cast<std::int64_t>(r.number_or("memory_gib", 0, 0.001, 1 << 20) * 1073741824.0);
    } else {
        r.error("memory_gib", "missing: a custom GPU needs memory_gib (GiB = 2^30 bytes) or memory_bytes");
    }
}

void read_lora(Scenario& s, const json& j, Result<Scenario>& out) {
    if (!j.contains("lora") || j["lora"].is_null()) return;
    const json& l = j["lora"];
    if (!l.is_object()) {
        out.errors.push_back({"lora", "got " + detail::describe(l) + ", expected an object such as {\"rank\": 8}"});
        return;
    }
    FieldReader r(l, "lora", out.errors);
    s.lora.rank = r.integer_or({"rank", "r"}, s.lora.rank, 1, 1 << 16);
    s.lora.alpha = r.number_or("alpha", s.lora.alpha, 0, 1e9);
    s.lora.dropout = r.number_or("dropout", s.lora.dropout, 0, 1);
    s.lora.train_embeddings = r.boolean_or("train_embeddings", false);
    if (r.has("targets")) {
        const json& t = l["targets"];
        if (t.is_string() && t.get<std::string>() == "all-linear") {
            s.lora.all_linear = true;
            s.lora.targets.clear();
        } else if (t.is_array() && !t.empty()) {
            s.lora.targets.clear();
            for (const auto& e : t) {
                if (e.is_string() && !e.get<std::string>().empty()) s.lora.targets.push_back(e.get<std::string>());
                else r.error("targets", "entry " + detail::describe(e) + " is not a module name");
            }
        } else {
            r.error("targets", "got " + detail::describe(t) + ", expected \"all-linear\" or a list of module names");
        }
    }
}

template <> const Table<RlhfAlgorithm>& table() {
    static const Table<RlhfAlgorithm> t{{RlhfAlgorithm::none, "none"}, {RlhfAlgorithm::ppo, "ppo"},
                                        {RlhfAlgorithm::dpo, "dpo"}, {RlhfAlgorithm::grpo, "grpo"}};
    return t;
}
template <> const Table<RolloutEngine>& table() {
    static const Table<RolloutEngine> t{{RolloutEngine::vllm, "vllm"}, {RolloutEngine::hf, "hf"}};
    return t;
}

// One role of `rlhf` (critic, reference, reward): false/null = absent, true = the defaults, or an object
// {"model", "method", "precision", "sharding", "offload"}; unset keys follow the policy.
void read_role(RlhfRole& role, const json& r, const char* key, const Scenario& s, const Catalog& cat,
               Result<Scenario>& out, bool trained) {
    role.precision = trained ? s.precision : Precision::bf16;
    role.sharding = s.sharding;
    role.offload = trained ? s.offload : Offload::none;
    role.method = Method::full;
    if (!r.contains(key)) return;
    const json& v = r[key];
    const std::string path = std::string("rlhf.") + key;
    if (v.is_null() || (v.is_boolean() && !v.get<bool>())) {
        role.present = false;
        return;
    }
    role.present = true;
    if (v.is_boolean()) return;
    if (!v.is_object()) {
        out.errors.push_back({path, "got " + detail::describe(v) + ", expected false, true or an object such as "
                                                                   "{\"model\": \"qwen2.5-7b\", \"precision\": \"bf16\"}"});
        return;
    }
    FieldReader fr(v, path, out.errors);
    if (fr.has("model")) {
        const json& m = v["model"];
        if (m.is_string() && cat.find_model(m.get<std::string>())) {
            role.model = cat.find_model(m.get<std::string>())->spec;
            role.model_ref = m.get<std::string>();
            role.same_model = false;
        } else if (m.is_object()) {
            auto spec = model_from_config(m, "inline config.json", path + ".model");
            if (spec.ok()) {
                role.model = std::move(*spec.value);
                role.model_ref = "inline";
                role.same_model = false;
            } else {
                for (auto& e : spec.errors) out.errors.push_back(e);
            }
        } else {
            fr.error("model", "got " + detail::describe(m) + ", expected a preset id or a config.json object");
        }
    }
    role.method = read_enum(fr, v, "method", role.method);
    if (role.method != Method::full && role.method != Method::lora)
        fr.error("method", "an RLHF role trains with full or lora");
    role.precision = read_enum(fr, v, "precision", role.precision);
    role.sharding = read_enum(fr, v, "sharding", role.sharding);
    role.offload = read_enum(fr, v, "offload", role.offload);
}

void read_rlhf(Scenario& s, const json& j, const Catalog& cat, Result<Scenario>& out) {
    if (!j.contains("rlhf") || j["rlhf"].is_null()) return;
    const json& r = j["rlhf"];
    if (!r.is_object()) {
        out.errors.push_back({"rlhf", "got " + detail::describe(r) + ", expected an object such as {\"algorithm\": \"ppo\"}"});
        return;
    }
    FieldReader fr(r, "rlhf", out.errors);
    RlhfSetup& x = s.rlhf;
    x.algorithm = read_enum(fr, r, "algorithm", RlhfAlgorithm::none);
    if (!fr.has("algorithm")) fr.error("algorithm", "missing: one of ppo, dpo, grpo");
    if (x.algorithm == RlhfAlgorithm::none) return;
    if (s.workload != Workload::train) fr.error("algorithm", "rlhf needs workload \"train\"");
    // Defaults: PPO as verl runs it (actor, critic, reference, reward; vLLM colocated with
    // gpu_memory_utilization 0.5, freed between phases); DPO as TRL's DPOTrainer (policy + reference);
    // GRPO as TRL's GRPOTrainer (policy + reference, 8 generations, colocated vLLM at 0.3).
    x.critic.present = x.algorithm == RlhfAlgorithm::ppo;
    x.reward.present = x.algorithm == RlhfAlgorithm::ppo;
    x.reference.present = true;
    x.rollout = x.algorithm != RlhfAlgorithm::dpo;
    x.group_size = x.algorithm == RlhfAlgorithm::grpo ? 8 : 1;
    x.rollout_gpu_memory_utilization = x.algorithm == RlhfAlgorithm::grpo ? 0.3 : 0.5;
    x.rollout_released = x.algorithm == RlhfAlgorithm::ppo;
    // A role whose key is absent keeps the default `present` set above.
    read_role(x.critic, r, "critic", s, cat, out, true);
    read_role(x.reference, r, "reference", s, cat, out, false);
    read_role(x.reward, r, "reward", s, cat, out, false);
    x.group_size = fr.integer_or({"group_size"}, x.group_size, 1, 4096);
    x.prompt_len = fr.integer_or({"prompt_len"}, x.prompt_len, 1, kMaxTokens);
    x.gen_len = fr.integer_or({"gen_len"}, x.gen_len, 1, kMaxTokens);
    if (r.contains("rollout") && !r["rollout"].is_null()) {
        const json& ro = r["rollout"];
        if (ro.is_boolean()) {
            x.rollout = ro.get<bool>();
        } else if (!ro.is_object()) {
            out.errors.push_back({"rlhf.rollout", "got " + detail::describe(ro) + ", expected an object such as "
                                                                             "{\"engine\": \"vllm\", \"gpu_memory_utilization\": 0.5}"});
        } else {
            FieldReader rr(ro, "rlhf.rollout", out.errors);
            x.rollout = true;
            x.rollout_engine = read_enum(rr, ro, "engine", RolloutEngine::vllm);
            const std::string placement = rr.string_or("placement", "colocated");
            if (placement != "colocated" && placement != "separate")
                rr.error("placement", "got \"" + placement.substr(0, 40) + "\", allowed: colocated, separate");
            x.rollout_colocated = placement != "separate";
            x.rollout_gpu_memory_utilization = rr.number_or("gpu_memory_utilization", x.rollout_gpu_memory_utilization, 0.01, 1.0);
            x.rollout_released = rr.boolean_or("released", x.rollout_released);
            x.rollout_tp = rr.integer_or({"tp"}, 1, 1, 4096);
            x.rollout_batch = rr.integer_or({"batch"}, 0, 0, kMaxCount);
        }
    }
    if (x.algorithm == RlhfAlgorithm::dpo && r.contains("rollout") && x.rollout)
        fr.error("rollout", "dpo trains on given preference pairs: it has no rollout");
}

}  // namespace

const char* to_string(Workload v) { return name_of(v); }
const char* to_string(Framework v) { return name_of(v); }
const char* to_string(Method v) { return name_of(v); }
const char* to_string(Precision v) { return name_of(v); }
const char* to_string(Optimizer v) { return name_of(v); }
const char* to_string(Quantization v) { return name_of(v); }
const char* to_string(Checkpointing v) { return name_of(v); }
const char* to_string(Attention v) { return name_of(v); }
const char* to_string(Loss v) { return name_of(v); }
const char* to_string(Sharding v) { return name_of(v); }
const char* to_string(Offload v) { return name_of(v); }
const char* to_string(KvDtype v) { return name_of(v); }
const char* to_string(RlhfAlgorithm v) { return name_of(v); }

std::vector<std::string> allowed_values(std::string_view key) {
    auto names = [](const auto& t) {
        std::vector<std::string> v;
        for (const auto& [e, n] : t) v.emplace_back(n);
        return v;
    };
    if (key == "workload") return names(table<Workload>());
    if (key == "framework") return names(table<Framework>());
    if (key == "method") return names(table<Method>());
    if (key == "precision") return names(table<Precision>());
    if (key == "optimizer") return names(table<Optimizer>());
    if (key == "quantization") return names(table<Quantization>());
    if (key == "checkpointing") return names(table<Checkpointing>());
    if (key == "attention") return names(table<Attention>());
    if (key == "loss") return names(table<Loss>());
    if (key == "sharding") return names(table<Sharding>());
    if (key == "offload") return names(table<Offload>());
    if (key == "kv_dtype") return names(table<KvDtype>());
    if (key == "weights") return weight_formats();
    return {};
}

Result<Scenario> scenario_from_json(const json& j, const Catalog& cat) {
    Result<Scenario> out;
    if (!j.is_object()) {
        out.errors.push_back({"scenario", "expected a JSON object, got " + detail::describe(j)});
        return out;
    }
    Scenario s;
    FieldReader r(j, "", out.errors);
    for (const auto& [k, v] : j.items())
        if (!known_keys().count(k)) out.warnings.push_back("unknown scenario key \"" + k + "\" ignored");

    read_model(s, j, cat, out);
    s.workload = read_enum(r, j, "workload", Workload::train);
    s.framework = read_enum(r, j, "framework", Framework::hf);
    read_gpu(s, j, cat, out);
    s.num_gpus = r.integer_or({"num_gpus"}, 1, 1, kMaxCount);
    s.target_utilization = r.number_or("target_utilization", 0.9, 0.05, 1.0);

    const FrameworkDefaults d = framework_defaults(s.framework);
    s.method = read_enum(r, j, "method", Method::full);
    s.precision = read_enum(r, j, "precision", d.precision);
    s.optimizer = read_enum(r, j, "optimizer", Optimizer::adamw);
    s.lora = d.lora;
    read_lora(s, j, out);
    s.quantization = read_enum(r, j, "quantization", s.method == Method::qlora ? Quantization::nf4 : Quantization::none);
    s.trainable_layers = r.integer_or({"trainable_layers"}, 2, 1, 10000);
    s.micro_batch = r.integer_or({"micro_batch"}, 1, 1, kMaxCount);
    s.seq_len = r.integer_or({"seq_len"}, 2048, 1, kMaxTokens);
    s.grad_accum = r.integer_or({"grad_accum"}, 1, 1, kMaxCount);
    s.optimizer_in_backward = r.boolean_or("optimizer_in_backward", false);
    s.compile = r.boolean_or("compile", false);
    s.fsdp_no_sync = r.boolean_or("fsdp_no_sync", s.framework == Framework::litgpt);
    s.checkpointing = read_enum(r, j, "checkpointing", d.checkpointing);
    s.attention = read_enum(r, j, "attention", Attention::sdpa);
    s.loss = read_enum(r, j, "loss", d.loss);
    s.sharding = read_enum(r, j, "sharding", Sharding::none);
    s.offload = read_enum(r, j, "offload", Offload::none);
    s.tp = r.integer_or({"tp"}, 1, 1, 4096);
    s.pp = r.integer_or({"pp"}, 1, 1, 4096);
    s.cp = r.integer_or({"cp"}, 1, 1, 4096);
    s.ep = r.integer_or({"ep"}, 1, 1, 4096);
    s.sp = r.boolean_or("sp", false);

    s.weights = r.string_or("weights", "bf16");
    {
        const auto& f = weight_formats();
        if (std::find(f.begin(), f.end(), s.weights) == f.end()) {
            std::string allowed;
            for (const auto& x : f) allowed += (allowed.empty() ? "" : ", ") + x;
            r.error("weights", "got \"" + s.weights.substr(0, 40) + "\", allowed: " + allowed);
        }
    }
    s.kv_dtype = read_enum(r, j, "kv_dtype", KvDtype::automatic);
    s.batch = r.integer_or({"batch"}, 1, 1, kMaxCount);
    s.prompt_len = r.integer_or({"prompt_len"}, 1024, 0, kMaxTokens);
    s.gen_len = r.integer_or({"gen_len"}, 256, 0, kMaxTokens);
    s.gpu_memory_utilization = r.number_or("gpu_memory_utilization", 0.9, 0.01, 1.0);
    // Engine knobs (inference.cpp): GPTQ/AWQ group size, vLLM scheduler and cache, llama.cpp context/offload.
    s.group_size = r.integer_or({"group_size"}, 128, -1, 1 << 20);
    if (s.group_size == 0) r.error("group_size", "got 0, allowed: -1 (one group per output channel) or a positive size such as 32, 64, 128");
    s.max_model_len = r.integer_or({"max_model_len"}, 0, 0, kMaxTokens);
    s.max_num_seqs = r.integer_or({"max_num_seqs"}, 256, 1, kMaxCount);
    s.max_num_batched_tokens = r.integer_or({"max_num_batched_tokens"}, 8192, 1, kMaxTokens);
    s.block_size = r.integer_or({"block_size"}, 16, 1, 1 << 16);
    s.enforce_eager = r.boolean_or("enforce_eager", false);
    s.n_ctx = r.integer_or({"n_ctx"}, 4096, 1, kMaxTokens);
    s.n_gpu_layers = r.integer_or({"n_gpu_layers"}, -1, -1, 100000);
    s.n_ubatch = r.integer_or({"n_ubatch"}, 512, 1, kMaxTokens);

    // Cross-field rules.
    if (s.method == Method::qlora && s.quantization == Quantization::none)
        r.error("quantization", "method \"qlora\" needs a quantized base: nf4, nf4-dq or int8");
    if (s.optimizer_in_backward && s.grad_accum > 1)
        r.error("optimizer_in_backward", "needs grad_accum 1: gradients are freed as soon as the optimizer has used "
                                         "them, so none are kept between micro-batches (torchtune raises the same error)");
    if (s.prompt_len + s.gen_len < 1 && s.workload == Workload::infer)
        r.error("prompt_len", "prompt_len + gen_len must be at least 1 token");
    const std::int64_t model_parallel = s.tp * s.pp * s.cp;
    if (s.num_gpus % model_parallel != 0)
        r.error("num_gpus", std::to_string(s.num_gpus) + " is not a multiple of tp x pp x cp = " +
                                std::to_string(model_parallel));
    read_rlhf(s, j, cat, out);

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

json scenario_to_json(const Scenario& s) {
    json j;
    j["model"] = s.model_ref == "inline" || s.model_ref == "parameters" ? json(s.model.name) : json(s.model_ref);
    j["workload"] = to_string(s.workload);
    j["framework"] = to_string(s.framework);
    if (s.gpu.id == "custom") j["gpu"] = {{"name", s.gpu.name}, {"memory_bytes", s.gpu.memory_bytes}};
    else j["gpu"] = s.gpu.id;
    j["num_gpus"] = s.num_gpus;
    j["target_utilization"] = s.target_utilization;
    if (s.workload == Workload::train) {
        j["method"] = to_string(s.method);
        j["precision"] = to_string(s.precision);
        j["optimizer"] = to_string(s.optimizer);
        if (s.method == Method::lora || s.method == Method::qlora) {
            json l = {{"rank", s.lora.rank}, {"alpha", s.lora.alpha}, {"dropout", s.lora.dropout},
                      {"train_embeddings", s.lora.train_embeddings}};
            l["targets"] = s.lora.all_linear ? json("all-linear") : json(s.lora.targets);
            j["lora"] = l;
        }
        if (s.method == Method::qlora) j["quantization"] = to_string(s.quantization);
        if (s.method == Method::freeze) j["trainable_layers"] = s.trainable_layers;
        j["micro_batch"] = s.micro_batch;
        j["seq_len"] = s.seq_len;
        j["grad_accum"] = s.grad_accum;
        if (s.optimizer_in_backward) j["optimizer_in_backward"] = true;
        if (s.compile) j["compile"] = true;
        if (s.fsdp_no_sync != (s.framework == Framework::litgpt)) j["fsdp_no_sync"] = s.fsdp_no_sync;
        j["checkpointing"] = to_string(s.checkpointing);
        j["attention"] = to_string(s.attention);
        j["loss"] = to_string(s.loss);
        j["sharding"] = to_string(s.sharding);
        j["offload"] = to_string(s.offload);
        j["tp"] = s.tp;
        j["pp"] = s.pp;
        j["cp"] = s.cp;
        j["ep"] = s.ep;
        j["sp"] = s.sp;
        if (s.rlhf.algorithm != RlhfAlgorithm::none) {
            const RlhfSetup& x = s.rlhf;
            auto role = [&](const RlhfRole& r) -> json {
                if (!r.present) return false;
                json o = {{"method", to_string(r.method)}, {"precision", to_string(r.precision)},
                          {"sharding", to_string(r.sharding)}, {"offload", to_string(r.offload)}};
                if (!r.same_model) o["model"] = r.model_ref == "inline" ? json(r.model.name) : json(r.model_ref);
                return o;
            };
            json rl = {{"algorithm", to_string(x.algorithm)}, {"critic", role(x.critic)}, {"reference", role(x.reference)},
                       {"reward", role(x.reward)}, {"group_size", x.group_size}, {"prompt_len", x.prompt_len},
                       {"gen_len", x.gen_len}};
            if (x.rollout)
                rl["rollout"] = {{"engine", name_of(x.rollout_engine)}, {"placement", x.rollout_colocated ? "colocated" : "separate"},
                                 {"gpu_memory_utilization", x.rollout_gpu_memory_utilization}, {"released", x.rollout_released},
                                 {"tp", x.rollout_tp}, {"batch", x.rollout_batch}};
            else
                rl["rollout"] = false;
            j["rlhf"] = rl;
        }
    } else {
        j["weights"] = s.weights;
        j["kv_dtype"] = to_string(s.kv_dtype);
        j["batch"] = s.batch;
        j["prompt_len"] = s.prompt_len;
        j["gen_len"] = s.gen_len;
        j["gpu_memory_utilization"] = s.gpu_memory_utilization;
        if (s.weights.rfind("gptq-", 0) == 0 || s.weights.rfind("awq-", 0) == 0) j["group_size"] = s.group_size;
        if (s.framework == Framework::vllm) {
            j["max_model_len"] = s.max_model_len;
            j["max_num_seqs"] = s.max_num_seqs;
            j["max_num_batched_tokens"] = s.max_num_batched_tokens;
            j["block_size"] = s.block_size;
            j["enforce_eager"] = s.enforce_eager;
        }
        if (s.framework == Framework::llamacpp) {
            j["n_ctx"] = s.n_ctx;
            j["n_gpu_layers"] = s.n_gpu_layers;
            j["n_ubatch"] = s.n_ubatch;
        }
        if (s.framework == Framework::torchtune && s.max_model_len > 0) j["max_model_len"] = s.max_model_len;
    }
    return j;
}

json bill_to_json(const Bill& b) {
    json comps = json::array();
    for (const auto& c : b.components) comps.push_back({{"id", c.id}, {"bytes", c.bytes}, {"detail", c.detail}});
    json j;
    j["model"] = {{"name", b.model_name},
                  {"parameters", b.parameters},
                  {"active_parameters", b.active_parameters},
                  {"trainable_parameters", b.trainable_parameters}};
    j["per_gpu"] = {{"components", comps},
                    {"peak_allocated_bytes", b.peak_allocated_bytes},
                    {"peak_reserved_bytes", b.peak_reserved_bytes},
                    {"device_bytes", b.device_bytes}};
    j["cpu_bytes"] = b.cpu_bytes;
    j["gpu"] = {{"id", b.gpu.id}, {"name", b.gpu.name}, {"memory_bytes", b.gpu.memory_bytes}};
    j["fits"] = b.fits;
    j["max_micro_batch"] = b.max_micro_batch ? json(*b.max_micro_batch) : json(nullptr);
    if (b.max_batch) j["max_batch"] = *b.max_batch;
    j["max_seq_len"] = b.max_seq_len ? json(*b.max_seq_len) : json(nullptr);
    if (!b.peak_phase.empty()) j["peak_phase"] = b.peak_phase;
    if (!b.layout.empty()) j["layout"] = b.layout;
    if (!b.timeline.empty()) {
        json t = json::array();
        for (const auto& p : b.timeline) t.push_back({p.phase, p.bytes});
        j["timeline"] = t;
    }
    if (b.kv_pool_bytes) j["kv_pool_bytes"] = *b.kv_pool_bytes;
    if (b.kv_pool_sequences) j["kv_pool_sequences"] = *b.kv_pool_sequences;
    if (b.max_concurrent_sequences) j["max_concurrent_sequences"] = *b.max_concurrent_sequences;
    if (b.max_context) j["max_context"] = *b.max_context;
    j["rule_of_thumb_bytes"] = b.rule_of_thumb_bytes;
    j["rule_of_thumb_formula"] = b.rule_of_thumb_formula;
    j["warnings"] = b.warnings;
    return j;
}

}  // namespace vramcalc
