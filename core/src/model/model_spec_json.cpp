// ModelSpec <-> one flat JSON array (model_spec_json.hpp says who uses it). Each struct's fields are listed
// once, by a structured binding that names every member: a member added to model.hpp stops this file from
// compiling until it is listed here too, so the writer, the reader and the struct cannot drift apart.
#include "vramcalc/model_spec_json.hpp"

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/json_text.hpp"
#include "vramcalc/layer_stack.hpp"

namespace vramcalc {
namespace {

using json = nlohmann::json;

template <class V, class P>
void fields(V& v, P& p);  // below, per struct

// Appends each field to an array; a vector of structs as an array of their arrays.
struct Writer {
    json& out;
    template <class T>
    void operator()(const T& x) {
        if constexpr (std::is_enum_v<T>) out.push_back(static_cast<int>(x));
        else if constexpr (std::is_same_v<T, bool>) out.push_back(x ? 1 : 0);
        else out.push_back(x);
    }
    template <class T>
    void operator()(const std::vector<T>& list) {
        json a = json::array();
        for (const T& e : list) {
            if constexpr (std::is_class_v<T>) {
                Writer w{a.emplace_back(json::array())};
                fields(w, e);
            } else {
                a.push_back(e);
            }
        }
        out.push_back(std::move(a));
    }
    void operator()(const std::shared_ptr<const LayerStack>& stack) {
        if (!stack) {
            out.push_back(nullptr);
            return;
        }
        Writer w{out.emplace_back(json::array())};
        fields(w, *stack);
    }
};

// Takes each field from the array in the same order; any mismatch leaves `ok` false.
struct Reader {
    const json& in;
    std::size_t at = 0;
    bool ok = true;
    const json* next() {
        if (!in.is_array() || at >= in.size()) {
            ok = false;
            return nullptr;
        }
        return &in[at++];
    }
    bool done() const { return ok && in.is_array() && at == in.size(); }
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
    template <class T>
    void operator()(std::vector<T>& list) {
        const json* v = next();
        if (!v || !v->is_array()) {
            ok = false;
            return;
        }
        for (const json& e : *v) {
            if constexpr (std::is_class_v<T>) {
                Reader r{e};
                fields(r, list.emplace_back());
                ok = ok && r.done();
            } else if (e.is_number_integer()) {
                list.push_back(e.get<T>());
            } else {
                ok = false;
            }
        }
    }
    void operator()(std::shared_ptr<const LayerStack>& stack) {
        const json* v = next();
        if (!v || v->is_null()) return;
        auto s = std::make_shared<LayerStack>();
        Reader r{*v};
        fields(r, *s);
        ok = ok && r.done();
        stack = std::move(s);
    }
};

template <class V, class P>
void fields(V& v, P& p) {
    if constexpr (std::is_same_v<std::remove_const_t<P>, ParamGroup>) {
        auto& [name, category, role, rows, cols, bias, count, is_linear, routed_expert, layer_stack, fp8_keeps_16bit,
               checkpoint_16bit, checkpoint_format] = p;
        v(name), v(category), v(role), v(rows), v(cols), v(bias), v(count), v(is_linear), v(routed_expert),
            v(layer_stack), v(fp8_keeps_16bit), v(checkpoint_16bit), v(checkpoint_format);
    } else if constexpr (std::is_same_v<std::remove_const_t<P>, StackLayer>) {
        auto& [name, type, in_shape, out_shape, params, buffers, trainable, saved_elements, saved_other_bytes,
               saved_per_batch_bytes, flops] = p;
        v(name), v(type), v(in_shape), v(out_shape), v(params), v(buffers), v(trainable), v(saved_elements),
            v(saved_other_bytes), v(saved_per_batch_bytes), v(flops);
    } else {
        static_assert(std::is_same_v<std::remove_const_t<P>, LayerStack>);
        auto& [input, loss, layers, parameters, trainable_parameters, buffers, forward_peak_elements,
               largest_tensor_elements] = p;
        v(input), v(loss), v(layers), v(parameters), v(trainable_parameters), v(buffers), v(forward_peak_elements),
            v(largest_tensor_elements);
    }
}

template <class V, class M>
void spec_fields(V& v, M& m) {
    auto& [name, model_type, arch, vocab, hidden, layers, encoder_layers, heads, kv_heads, head_dim, v_head_dim,
           intermediate, max_positions, mlp, norm, attention, tied_embeddings, qk_norm, hidden_dropout,
           attention_dropout, sliding_window, checkpoint_dtype_bytes, moe, mla, hybrid, traits, quant, count_only,
           declared_parameters, params, stack] = m;
    v(name), v(model_type), v(arch), v(vocab), v(hidden), v(layers), v(encoder_layers), v(heads), v(kv_heads),
        v(head_dim), v(v_head_dim), v(intermediate), v(max_positions), v(mlp), v(norm), v(attention),
        v(tied_embeddings), v(qk_norm), v(hidden_dropout), v(attention_dropout), v(sliding_window),
        v(checkpoint_dtype_bytes), v(count_only), v(declared_parameters);
    {
        auto& [experts, top_k, shared_experts, expert_intermediate, shared_intermediate, moe_layers] = moe;
        v(experts), v(top_k), v(shared_experts), v(expert_intermediate), v(shared_intermediate), v(moe_layers);
    }
    {
        auto& [q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, mla_v_head_dim, index_head_dim,
               compress_ratios, window] = mla;
        v(q_lora_rank), v(kv_lora_rank), v(qk_nope_head_dim), v(qk_rope_head_dim), v(mla_v_head_dim), v(index_head_dim),
            v(compress_ratios), v(window);
    }
    {
        auto& [pattern, ssm_heads, ssm_head_dim, ssm_state, ssm_groups, conv_kernel, ssm_state_bytes] = hybrid;
        v(pattern), v(ssm_heads), v(ssm_head_dim), v(ssm_state), v(ssm_groups), v(conv_kernel), v(ssm_state_bytes);
    }
    {
        auto& [parallel_block, rope, eager_softmax_fp32, shifted_logits_copy, loss_upcasts_logits, alternating_window,
               global_every, hf_trims_window, attn_softcap, final_softcap, gelu_tanh_eager, relu_mlp, gguf_arch,
               global_head_dim, global_kv_heads, k_eq_v] = traits;
        v(parallel_block), v(rope), v(eager_softmax_fp32), v(shifted_logits_copy), v(loss_upcasts_logits),
            v(alternating_window), v(global_every), v(hf_trims_window), v(attn_softcap), v(final_softcap),
            v(gelu_tanh_eager), v(relu_mlp), v(gguf_arch), v(global_head_dim), v(global_kv_heads), v(k_eq_v);
    }
    {
        auto& [format, method, group_size, asymmetric, note] = quant;
        v(format), v(method), v(group_size), v(asymmetric), v(note);
    }
    v(params), v(stack);
}

}  // namespace

json model_spec_to_json(const ModelSpec& m) {
    json out = json::array();
    Writer w{out};
    spec_fields(w, m);
    return out;
}

Result<ModelSpec> model_spec_from_json(const json& j) {
    Result<ModelSpec> r;
    ModelSpec m;
    Reader rd{j};
    spec_fields(rd, m);
    if (!rd.done()) r.errors.push_back({"model", "not a model description this page can read (a page of another release?)"});
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
