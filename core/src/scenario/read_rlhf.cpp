// The `rlhf` object: the models besides the trained policy, and the rollout (docs/methodology.md, "RLHF").
// Absent keys take default_rlhf(algorithm, policy).
#include <utility>

#include "enums.hpp"
#include "rows.hpp"
#include "model/config_reader.hpp"

namespace vramcalc::detail {
namespace {

void read_role_model(RlhfRole& role, const json& m, const std::string& path, FieldReader& fr, const Catalog& cat,
                     Result<Scenario>& out) {
    if (m.is_string() && cat.find_model(m.get<std::string>()) && cat.find_model(m.get<std::string>())->layer_stack) {
        fr.error("model", "\"" + m.get<std::string>() + "\" is a layer stack; RLHF roles are language models (a preset id or a config.json)");
    } else if (m.is_string() && cat.find_model(m.get<std::string>())) {
        role.model = cat.find_model(m.get<std::string>())->spec;
        role.model_ref = m.get<std::string>();
        role.same_model = false;
    } else if (m.is_object()) {
        auto spec = read_model_config(m, "inline config.json", path + ".model");
        if (spec.ok()) {
            role.model = std::move(*spec.value);
            role.model_ref = "inline";
            role.model_config = compact_json(m);
            role.same_model = false;
        } else {
            for (auto& e : spec.errors) out.errors.push_back(e);
        }
    } else {
        fr.error("model", "got " + describe(m) + ", expected a preset id or a config.json object");
    }
}

// One role of `rlhf` (critic, reference, reward): false/null = absent, true = the defaults, or an object
// {"model", "method", "precision", "sharding", "offload"}; unset keys keep default_rlhf's values.
void read_role(RlhfRole& role, const json& r, const char* key, const Catalog& cat, Result<Scenario>& out) {
    if (!r.contains(key)) return;  // the algorithm's default presence
    const json& v = r[key];
    const std::string path = std::string("rlhf.") + key;
    if (v.is_null() || (v.is_boolean() && !v.get<bool>())) {
        role.present = false;
        return;
    }
    role.present = true;
    if (v.is_boolean()) return;
    if (!v.is_object()) {
        out.errors.push_back({path, "got " + describe(v) + ", expected false, true or an object such as "
                                                           "{\"model\": \"qwen2.5-7b\", \"precision\": \"bf16\"}"});
        return;
    }
    FieldReader fr(v, path, out.errors);
    if (fr.has("model")) read_role_model(role, v["model"], path, fr, cat, out);
    role.method = read_enum(fr, v, "method", role.method);
    if (role.method != Method::full && role.method != Method::lora)
        fr.error("method", "an RLHF role trains with full or lora");
    role.precision = read_enum(fr, v, "precision", role.precision);
    role.sharding = read_enum(fr, v, "sharding", role.sharding);
    role.offload = read_enum(fr, v, "offload", role.offload);
}

void read_rollout(RlhfSetup& x, const json& r, Result<Scenario>& out) {
    if (!r.contains("rollout") || r["rollout"].is_null()) return;
    const json& ro = r["rollout"];
    if (ro.is_boolean()) {
        x.rollout = ro.get<bool>();
        return;
    }
    if (!ro.is_object()) {
        out.errors.push_back({"rlhf.rollout", "got " + describe(ro) + ", expected an object such as "
                                                                      "{\"engine\": \"vllm\", \"gpu_memory_utilization\": 0.5}"});
        return;
    }
    warn_unknown_keys(ro, "rlhf.rollout", out.warnings);
    FieldReader rr(ro, "rlhf.rollout", out.errors);
    x.rollout = true;
    x.rollout_engine = read_enum(rr, ro, "engine", x.rollout_engine);
    const std::string placement = rr.string_or("placement", x.rollout_colocated ? "colocated" : "separate");
    if (placement != "colocated" && placement != "separate")
        rr.error("placement", "got \"" + utf8_prefix(placement, 40) + "\", allowed: " + join_names(allowed_values("rlhf.rollout.placement")));
    x.rollout_colocated = placement != "separate";
    x.rollout_gpu_memory_utilization = read_number(rr, "rlhf.rollout.gpu_memory_utilization", x.rollout_gpu_memory_utilization);
    x.rollout_released = rr.boolean_or("released", x.rollout_released);
    x.rollout_tp = read_integer(rr, "rlhf.rollout.tp", x.rollout_tp);
    x.rollout_batch = read_integer(rr, "rlhf.rollout.batch", x.rollout_batch);
}

}  // namespace

void read_rlhf(ReadContext& c, const ScenarioKey&) {
    const json& j = c.doc;
    Scenario& s = c.s;
    if (!j.contains("rlhf") || j["rlhf"].is_null()) return;
    const json& r = j["rlhf"];
    if (!r.is_object()) {
        c.out.errors.push_back({"rlhf", "got " + describe(r) + ", expected an object such as {\"algorithm\": \"ppo\"}"});
        return;
    }
    warn_unknown_keys(r, "rlhf", c.out.warnings);
    FieldReader fr(r, "rlhf", c.out.errors);
    const auto algorithm = read_enum(fr, r, "algorithm", RlhfAlgorithm::none);
    if (!fr.has("algorithm")) fr.error("algorithm", "missing: one of ppo, dpo, grpo");
    if (algorithm == RlhfAlgorithm::none) return;
    if (s.workload != Workload::train) fr.error("algorithm", "rlhf needs workload \"train\"");
    RlhfSetup& x = s.rlhf;
    x = default_rlhf(algorithm, s);
    read_role(x.critic, r, "critic", c.catalog, c.out);
    read_role(x.reference, r, "reference", c.catalog, c.out);
    read_role(x.reward, r, "reward", c.catalog, c.out);
    x.group_size = read_integer(fr, "rlhf.group_size", x.group_size);
    x.prompt_len = read_integer(fr, "rlhf.prompt_len", x.prompt_len);
    x.gen_len = read_integer(fr, "rlhf.gen_len", x.gen_len);
    read_rollout(x, r, c.out);
    check_rollout_fit(s, fr);
    if (x.algorithm == RlhfAlgorithm::dpo && r.contains("rollout") && x.rollout)
        fr.error("rollout", "dpo trains on given preference pairs: it has no rollout");
}

}  // namespace vramcalc::detail
