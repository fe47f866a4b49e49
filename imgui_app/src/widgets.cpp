// Widgets bound to scenario keys, and what each key does to memory (the tooltips).
#include <algorithm>
#include <cmath>
#include <string_view>

#include "ui.hpp"
#include "vramcalc/scenario_json.hpp"

namespace vramcalc::ui::widgets {

using json = nlohmann::json;

const char* help_text(const std::string& key) {
    struct Entry { std::string_view key, text; };
    static constexpr Entry kHelp[] = {
        {"workload", "Training keeps weights, gradients, optimizer states and activations; inference keeps weights and the KV cache."},
        {"framework", "Sets the defaults a user of that framework gets: master weights, loss implementation, LoRA defaults, checkpointing."},
        {"method", "full: every weight trains (gradients + optimizer states for all). lora: small adapters train, the base is frozen. "
                   "qlora: as lora with a 4-bit base. freeze: only the last N layers train."},
        {"precision", "fp32: 4 B per weight, activations in fp32. *-mixed: fp32 weights, half-precision compute (activations halve, weights "
                      "stay 4 B, plus casts). bf16/fp16: everything in 16 bits (2 B per weight, gradient and Adam state)."},
        {"optimizer", "AdamW keeps two states per trained parameter (8 B in fp32); 8-bit AdamW about 2 B; SGD with momentum one state; "
                      "Adafactor factored second moments (tiny)."},
        {"quantization", "Base-weight format for QLoRA: nf4 about 4.5 bits per weight with its scales, nf4-dq about 4.13, int8 8 bits plus row scales."},
        {"micro_batch", "Sequences per GPU per forward/backward. Activations and logits grow linearly with it."},
        {"seq_len", "Tokens per sequence. Activations grow linearly (quadratically for eager attention's scores)."},
        {"grad_accum", "Micro-batches per optimizer step. Costs no activations, but the gradients then persist between micro-batches."},
        {"checkpointing", "full: keep only each layer's input and recompute the layer in backward (one more forward pass: about a third more compute, Chen et al. 2016). "
                          "selective: recompute attention only. offload: layer inputs go to CPU memory."},
        {"attention", "eager keeps the seq x seq scores and probabilities per head; sdpa/flash keep only q, k, v, output and a small log-sum-exp."},
        {"loss", "standard materialises vocab x tokens logits in fp32 plus their gradient (often the largest single peak); chunked and fused do not."},
        {"sharding", "ZeRO/FSDP split model states across data-parallel GPUs: zero1 optimizer, zero2 + gradients, zero3/fsdp-full + weights."},
        {"offload", "Moves optimizer states (and weights) to host memory; the bill then reports CPU memory too."},
        {"num_gpus", "GPUs in the job; sharding and parallel degrees divide the work between them."},
        {"tp", "Tensor parallel degree: weights and most activations split across GPUs."},
        {"pp", "Pipeline stages: layers split; the first stage keeps several micro-batches in flight."},
        {"gpu", "The card's memory as the driver reports it (what nvidia-smi shows as total), not the marketed figure."},
        {"target_utilization", "Share of the GPU's memory the max-batch solver may plan for; practitioners aim at 85-95 % to leave room for fragmentation."},
        {"weights", "Stored weight format: bytes per weight including scales/zeros of quantised formats."},
        {"kv_dtype", "KV-cache element type: auto = the compute dtype; fp8 halves the cache; q8_0/q4_0 are llama.cpp's block formats."},
        {"batch", "Concurrent sequences; the KV cache grows linearly with it."},
        {"prompt_len", "Prompt tokens per sequence (prefill); sets the KV cache and the prefill activations."},
        {"gen_len", "Generated tokens per sequence; the KV cache covers prompt + generated tokens."},
        {"gpu_memory_utilization", "vLLM reserves this share of the GPU and fills what the weights and activations leave with KV-cache blocks."},
        {"lora.rank", "Adapter rank r: each adapted matrix adds r x (in + out) trainable parameters and keeps an r-wide activation."},
        {"lora.alpha", "Scaling of the adapter output; no effect on memory."},
        {"lora.dropout", "Dropout > 0 keeps a dropout mask and a dropped copy of each adapted layer's input."},
        {"lora.targets", "Which linear layers get adapters: q,v (PEFT's default) or all linear layers."},
        {"trainable_layers", "method freeze: how many of the last layers train."},
        {"compile", "torch.compile: the compiler recomputes cheap pointwise ops in backward instead of keeping their outputs."},
        {"optimizer_in_backward", "Steps each parameter's optimizer as soon as its gradient is ready, so the full set of gradients never exists at once."},
        {"fsdp_no_sync", "FSDP with gradient accumulation: skip the gradient reduce-scatter until the last micro-batch (no_sync), keeping unsharded gradients meanwhile. On by default for LitGPT."},
        {"group_size", "GPTQ/AWQ: one scale (and zero) per group of input channels; -1 = one group per output channel."},
        {"max_num_seqs", "vLLM: the most sequences scheduled at once; sizes the sampler's profiled peak."},
        {"max_model_len", "vLLM: the longest sequence it accepts (0 = the model's maximum)."},
        {"enforce_eager", "vLLM: no CUDA graphs (saves their memory, costs decode speed)."},
        {"n_ctx", "llama.cpp: the KV cache is allocated for this many tokens up front."},
        {"n_gpu_layers", "llama.cpp: layers placed on the GPU (-1 = all); the rest run from host memory."},
    };
    for (const auto& e : kHelp)
        if (e.key == key) return e.text.data();
    return nullptr;
}

void Help(const char* key) {
    const char* text = help_text(key);
    if (!text) return;
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

void SectionTitle(const char* text) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", text);
    ImGui::Separator();
}

json current(const AppState& st, const std::string& ptr) {
    const json::json_pointer p(ptr);
    if (st.scenario.contains(p)) return st.scenario.at(p);
    if (st.results.ok && st.results.scenario_json.contains(p)) return st.results.scenario_json.at(p);  // once per change
    return nullptr;
}

void set(AppState& st, const std::string& ptr, json value) {
    st.scenario[json::json_pointer(ptr)] = std::move(value);
    st.dirty = true;
}

namespace {
std::string key_of(const std::string& ptr) {
    std::string k = ptr.substr(1);
    std::replace(k.begin(), k.end(), '/', '.');
    return k;
}
void label_column(const char* label, const std::string& ptr) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label);
    Help(key_of(ptr).c_str());
    ImGui::SameLine(ImGui::GetFontSize() * 9.5f);
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 0.5f);
}
}  // namespace

bool Enum(AppState& st, const char* label, const std::string& ptr, const std::vector<std::string>& values) {
    const json cur = current(st, ptr);
    const std::string now = cur.is_string() ? cur.get<std::string>() : "";
    label_column(label, ptr);
    bool changed = false;
    ImGui::PushID(ptr.c_str());
    const bool open = ImGui::BeginCombo("##v", now.c_str());
    if (!open) name_last_item(st, label);
    if (open) {
        for (const auto& v : values) {
            if (ImGui::Selectable(v.c_str(), v == now) && v != now) {
                set(st, ptr, v);
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    ImGui::PopID();
    return changed;
}

bool Int(AppState& st, const char* label, const std::string& ptr, std::int64_t lo, std::int64_t hi) {
    const json cur = current(st, ptr);
    long long v = cur.is_number_integer() ? cur.get<long long>() : lo;
    label_column(label, ptr);
    ImGui::PushID(ptr.c_str());
    const long long step = 1;
    const bool edited = ImGui::InputScalar("##v", ImGuiDataType_S64, &v, &step, nullptr, "%lld");
    ImGui::PopID();
    if (edited) {
        v = std::clamp<long long>(v, lo, hi);
        set(st, ptr, v);
    }
    return edited;
}

bool PowerOfTwo(AppState& st, const char* label, const std::string& ptr, std::int64_t lo, std::int64_t hi) {
    const json cur = current(st, ptr);
    long long v = cur.is_number_integer() ? cur.get<long long>() : lo;
    label_column(label, ptr);
    ImGui::PushID(ptr.c_str());
    // Typing any value works; the +/- buttons halve and double (the steps people try).
    const float button = ImGui::GetFrameHeight();
    ImGui::SetNextItemWidth(std::max(ImGui::CalcItemWidth() - 2 * (button + ImGui::GetStyle().ItemInnerSpacing.x), button * 2));
    bool edited = ImGui::InputScalar("##v", ImGuiDataType_S64, &v, nullptr, nullptr, "%lld");
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::Button("-", ImVec2(button, button))) { v = std::max<long long>(lo, v / 2); edited = true; }
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::Button("+", ImVec2(button, button))) { v = std::min<long long>(hi, v * 2); edited = true; }
    ImGui::PopID();
    if (edited) set(st, ptr, std::clamp<long long>(v, lo, hi));
    return edited;
}

bool Real(AppState& st, const char* label, const std::string& ptr, double lo, double hi, const char* fmt) {
    const json cur = current(st, ptr);
    double v = cur.is_number() ? cur.get<double>() : lo;
    label_column(label, ptr);
    ImGui::PushID(ptr.c_str());
    const bool edited = ImGui::SliderScalar("##v", ImGuiDataType_Double, &v, &lo, &hi, fmt, ImGuiSliderFlags_AlwaysClamp);
    ImGui::PopID();
    if (edited) set(st, ptr, std::round(v * 1000.0) / 1000.0);
    return edited;
}

bool Bool(AppState& st, const char* label, const std::string& ptr) {
    const json cur = current(st, ptr);
    bool v = cur.is_boolean() && cur.get<bool>();
    label_column(label, ptr);
    ImGui::PushID(ptr.c_str());
    const bool edited = ImGui::Checkbox("##v", &v);
    ImGui::PopID();
    if (edited) set(st, ptr, v);
    return edited;
}

}  // namespace vramcalc::ui::widgets
