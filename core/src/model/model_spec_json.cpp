// ModelSpec <-> one flat JSON array (model_spec_json.hpp says who uses it). Each struct's fields are listed
// once, by a structured binding that names every member: a member added to model.hpp stops this file from
// compiling until it is listed here too, so the writer, the reader and the struct cannot drift apart.
#include "vramcalc/model_spec_json.hpp"

#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/json_text.hpp"

namespace vramcalc {
namespace {

using json = nlohmann::json;

// Appends each field to an array.
struct Writer {
    json& out;
    template <class T>
    void operator()(const T& x) {
        if constexpr (std::is_enum_v<T>) out.push_back(static_cast<int>(x));
        else if constexpr (std::is_same_v<T, bool>) out.push_back(x ? 1 : 0);
        else out.push_back(x);
    }
};

// Takes each field from the array in the same order; any mismatch leaves `ok` false.
struct Reader {
    const json& in;
    std::size_t at = 0;
    bool ok = true;
    const json* next() {
        if (at >= in.size()) {
            ok = false;
            return nullptr;
        }
        return &in[at++];
    }
    template <class T>
    void operator()(T& x) {
        const json* v = next();
        if (!v) return;
        if constexpr (std::is_same_v<T, std::string>) {
            if (v->is_string()) x = v->get<std::string>();
            else ok = false;
        } else if constexpr (std::is_same_v<T, double>) {
            if (v->is_number()) x = v->get<double>();
            else ok = false;
        } else if constexpr (std::is_enum_v<T> || std::is_same_v<T, bool>) {
            if (v->is_number_integer()) x = static_cast<T>(v->get<int>());
            else ok = false;
        } else {
            if (v->is_number_integer()) x = v->get<T>();
            else ok = false;
        }
    }
};

template <class V, class P>
void group_fields(V& v, P& p) {
    auto& [name, category, role, rows, cols, bias, count, is_linear, routed_expert, layer_stack, fp8_keeps_16bit,
           checkpoint_16bit] = p;
    v(name), v(category), v(role), v(rows), v(cols), v(bias), v(count), v(is_linear), v(routed_expert), v(layer_stack),
        v(fp8_keeps_16bit), v(checkpoint_16bit);
}

template <class V, class M>
void spec_fields(V& v, M& m) {
    auto& [name, model_type, arch, vocab, hidden, layers, encoder_layers, heads, kv_heads, head_dim, v_head_dim,
           intermediate, max_positions, mlp, norm, attention, tied_embeddings, qk_norm, hidden_dropout,
           attention_dropout, sliding_window, checkpoint_dtype_bytes, moe, mla, hybrid, traits, quant, count_only,
           declared_parameters, params, stack] = m;
    (void)params;  // below, each group as its own array
    (void)stack;   // a layer stack travels as its JSON (model_spec_json.hpp)
    v(name), v(model_type), v(arch), v(vocab), v(hidden), v(layers), v(encoder_layers), v(heads), v(kv_heads),
        v(head_dim), v(v_head_dim), v(intermediate), v(max_positions), v(mlp), v(norm), v(attention),
        v(tied_embeddings), v(qk_norm), v(hidden_dropout), v(attention_dropout), v(sliding_window),
        v(checkpoint_dtype_bytes), v(count_only), v(declared_parameters);
    {
        auto& [experts, top_k, shared_experts, expert_intermediate, shared_intermediate, moe_layers] = moe;
        v(experts), v(top_k), v(shared_experts), v(expert_intermediate), v(shared_intermediate), v(moe_layers);
    }
    {
        auto& [q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, mla_v_head_dim] = mla;
        v(q_lora_rank), v(kv_lora_rank), v(qk_nope_head_dim), v(qk_rope_head_dim), v(mla_v_head_dim);
    }
    {
        auto& [pattern, ssm_heads, ssm_head_dim, ssm_state, ssm_groups, conv_kernel, ssm_state_bytes] = hybrid;
        v(pattern), v(ssm_heads), v(ssm_head_dim), v(ssm_state), v(ssm_groups), v(conv_kernel), v(ssm_state_bytes);
    }
    {
        auto& [parallel_block, rope, eager_softmax_fp32, shifted_logits_copy, loss_upcasts_logits, alternating_window,
               global_every, hf_trims_window, attn_softcap, final_softcap, gelu_tanh_eager, relu_mlp, gguf_arch] = traits;
        v(parallel_block), v(rope), v(eager_softmax_fp32), v(shifted_logits_copy), v(loss_upcasts_logits),
            v(alternating_window), v(global_every), v(hf_trims_window), v(attn_softcap), v(final_softcap),
            v(gelu_tanh_eager), v(relu_mlp), v(gguf_arch);
    }
    {
        auto& [format, method, group_size, asymmetric, note] = quant;
        v(format), v(method), v(group_size), v(asymmetric), v(note);
    }
}

}  // namespace

json model_spec_to_json(const ModelSpec& m) {
    json out = json::array();
    Writer w{out};
    spec_fields(w, m);
    json groups = json::array();
    for (const ParamGroup& p : m.params) {
        json g = json::array();
        Writer gw{g};
        group_fields(gw, p);
        groups.push_back(std::move(g));
    }
    out.push_back(std::move(groups));
    return out;
}

Result<ModelSpec> model_spec_from_json(const json& j) {
    Result<ModelSpec> r;
    ModelSpec m;
    bool ok = j.is_array() && !j.empty() && j.back().is_array();
    if (ok) {
        Reader rd{j};
        spec_fields(rd, m);
        ok = rd.ok && rd.at + 1 == j.size();
        for (const json& g : j.back()) {
            if (!ok) break;
            Reader gr{g};
            ParamGroup p;
            if (g.is_array()) group_fields(gr, p);
            ok = g.is_array() && gr.ok && gr.at == g.size();
            m.params.push_back(std::move(p));
        }
    }
    if (!ok) r.errors.push_back({"model", "not a model description this page can read (a page of another release?)"});
    else r.value = std::move(m);
    return r;
}

json model_result_to_json(const Result<ModelSpec>& r) {
    json out = {{"errors", problems_to_json(r.errors)}, {"warnings", r.warnings}};
    if (r.value) out["spec"] = model_spec_to_json(*r.value);
    return out;
}

Result<ModelSpec> model_result_from_json(const json& j) {
    Result<ModelSpec> r;
    if (!j.is_object()) {
        r.errors.push_back({"model", "the model reader's answer was not understood"});
        return r;
    }
    if (auto it = j.find("spec"); it != j.end()) r = model_spec_from_json(*it);
    if (auto it = j.find("errors"); it != j.end() && it->is_array())
        for (const json& e : *it)
            if (e.is_object())
                r.errors.push_back({e.value("field", std::string()), e.value("message", std::string())});
    if (auto it = j.find("warnings"); it != j.end() && it->is_array())
        for (const json& w : *it)
            if (w.is_string()) r.warnings.push_back(w.get<std::string>());
    return r;
}

}  // namespace vramcalc
