// Scenario -> JSON, the exact inverse of the reader: each key through its row of the key table, written
// where it applies (defaults written out, for readable links) and wherever it differs from what the
// reader would fall back to. Bill -> JSON (shared/spec/scenario.md, "Bill").
#include "enums.hpp"
#include "catalog/catalog_gpu.hpp"
#include "vramcalc/bill_format.hpp"
#include "rows.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc {
namespace detail {

json model_json(const ModelSpec& m, const std::string& ref, const std::string& config) {
    if (ref == "inline" && !config.empty()) {
        json j = parse_json_or_discarded(config);
        if (!j.is_discarded()) return j;
    }
    if (ref == "parameters") return {{"name", m.name}, {"parameters", m.declared_parameters}};
    return ref.empty() || ref == "inline" ? json(m.name) : json(ref);
}

void write_model(const Scenario& s, json& out, const ScenarioKey&) {
    out["model"] = model_json(s.model, s.model_ref, s.model_config);
}

// A custom GPU with every field the reader reads (arch decides the CUDA context's size).
void write_gpu(const Scenario& s, json& out, const ScenarioKey&) {
    if (s.gpu.id != "custom") {
        out["gpu"] = s.gpu.id;
        return;
    }
    json g = {{"name", s.gpu.name}, {"memory_bytes", s.gpu.memory_bytes}, {"bf16", s.gpu.bf16}};
    if (!s.gpu.arch.empty()) g["arch"] = s.gpu.arch;
    write_compute_and_links(s.gpu, g);
    out["gpu"] = g;
}

// `targets` is left out for the model's default targets.
void write_lora(const Scenario& s, json& out, const ScenarioKey&) {
    const LoraSetup& l = s.lora;
    json j = {{"rank", l.rank}, {"alpha", l.alpha}, {"dropout", l.dropout}, {"train_embeddings", l.train_embeddings}};
    if (l.use_dora) j["use_dora"] = true;  // left out when false, as older links and files have it
    if (l.all_linear) j["targets"] = "all-linear";
    else if (!l.targets.empty()) j["targets"] = l.targets;
    out["lora"] = j;
}

namespace {

json role_json(const RlhfRole& r) {
    if (!r.present) return false;
    json o = {{"method", to_string(r.method)}, {"precision", to_string(r.precision)}, {"sharding", to_string(r.sharding)}, {"offload", to_string(r.offload)}};
    if (!r.same_model) o["model"] = model_json(r.model, r.model_ref, r.model_config);
    return o;
}

}  // namespace

void write_rlhf(const Scenario& s, json& out, const ScenarioKey&) {
    const RlhfSetup& x = s.rlhf;
    json rl = {{"algorithm", to_string(x.algorithm)}, {"critic", role_json(x.critic)}, {"reference", role_json(x.reference)}, {"reward", role_json(x.reward)}, {"group_size", x.group_size}, {"prompt_len", x.prompt_len}, {"gen_len", x.gen_len}};
    if (x.rollout)
        rl["rollout"] = {{"engine", to_string(x.rollout_engine)}, {"placement", x.rollout_colocated ? "colocated" : "separate"}, {"gpu_memory_utilization", x.rollout_gpu_memory_utilization}, {"released", x.rollout_released}, {"tp", x.rollout_tp}, {"batch", x.rollout_batch}};
    else
        rl["rollout"] = false;
    out["rlhf"] = rl;
}

}  // namespace detail

nlohmann::json scenario_to_json(const Scenario& s) {
    using namespace detail;
    json j = json::object();
    const Scenario d = fallback_for(s);
    for (const auto& row : key_rows()) {
        const KeyBinding& b = row.bind;
        if (!b.write) continue;
        const bool shown = row.key.shown_at_default && applies_to(row.key, s);
        if (shown || !b.at_default(s, d)) b.write(s, j, row.key);
    }
    return j;
}

nlohmann::json bill_to_json(const Bill& b) {
    using detail::json;
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
                    {"device_bytes", b.device_bytes},
                    {"needed_bytes", b.needed_bytes}};
    j["cpu_bytes"] = b.cpu_bytes;
    j["gpu"] = {{"id", b.gpu.id}, {"name", b.gpu.name}, {"memory_bytes", b.gpu.memory_bytes}};
    j["fits"] = b.fits;
    j["max_micro_batch"] = b.max_micro_batch ? json(*b.max_micro_batch) : json(nullptr);
    if (!b.max_micro_batch_checkpointing.empty())  // what max_micro_batch assumes (docs/scenario-extensions.md)
        j["max_micro_batch_assumes"] = {{"checkpointing", b.max_micro_batch_checkpointing}, {"seq_len", b.max_micro_batch_seq_len}};
    if (b.max_micro_batch_full_checkpointing) j["max_micro_batch_full_checkpointing"] = *b.max_micro_batch_full_checkpointing;
    if (b.max_micro_batch_runs) j["max_micro_batch_runs"] = *b.max_micro_batch_runs;
    if (b.max_batch) j["max_batch"] = *b.max_batch;
    j["max_seq_len"] = b.max_seq_len ? json(*b.max_seq_len) : json(nullptr);
    if (!b.peak_phase.empty()) j["peak_phase"] = b.peak_phase;
    if (!b.layout.empty()) j["layout"] = b.layout;
    if (!b.timeline.empty()) {
        json t = json::array();
        for (const auto& p : b.timeline) t.push_back({{"phase", p.phase}, {"bytes", p.bytes}});  // as docs/scenario-extensions.md says
        j["timeline"] = t;
    }
    if (b.kv_pool_bytes) j["kv_pool_bytes"] = *b.kv_pool_bytes;
    if (b.kv_pool_sequences) j["kv_pool_sequences"] = *b.kv_pool_sequences;
    if (b.max_concurrent_sequences) j["max_concurrent_sequences"] = *b.max_concurrent_sequences;
    if (b.max_context) j["max_context"] = *b.max_context;
    if (const auto& sb = b.serving_budget)
        j["serving_budget"] = {{"gpu_memory_utilization", sb->fraction}, {"budget_bytes", sb->budget_bytes}, {"outside_bytes", sb->outside_bytes}, {"sequence_tokens", sb->sequence_tokens}, {"requested_sequences", sb->requested_sequences}, {"starts", sb->starts}};
    j["rule_of_thumb_bytes"] = b.rule_of_thumb_bytes;
    j["rule_of_thumb_formula"] = b.rule_of_thumb_formula;
    j["rule_of_thumb_basis_bytes"] = rule_of_thumb_basis_bytes(b);  // what the rule is compared with
    j["warnings"] = b.warnings;
    if (!b.notes.empty()) j["notes"] = b.notes;
    if (b.speed) j["speed"] = speed_to_json(*b.speed);
    // The three-state verdict (bill_format.hpp) against the scenario's target utilisation.
    j["target_utilization"] = b.target_utilization;
    j["verdict"] = verdict_name(verdict_of(b));
    return j;
}

}  // namespace vramcalc
