// The question's middle part: the workload (training or inference), its method, precision, batch and savers,
// or the serving engine's settings.
#include "ui.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/scenario_keys.hpp"

namespace vramcalc::ui {

using json = nlohmann::json;
namespace w = widgets;

// The LoRA settings of a lora or qlora run.
static void LoraInputs(AppState& st) {
    w::Int(st, "LoRA rank", "/lora/rank");
    w::Number(st, "LoRA alpha", "/lora/alpha", "%.0f");  // 0 to 1e9: typed, not slid
    w::Real(st, "LoRA dropout", "/lora/dropout", "%.2f");
    const bool all = w::current(st, "/lora/targets") == "all-linear";
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("LoRA targets");
    w::Help("lora.targets");
    ImGui::SameLine(ImGui::GetFontSize() * 9.5f);
    if (ImGui::RadioButton("attention q, v", !all)) {
        st.scenario["lora"].erase("targets");
        st.dirty = true;
    }
    // Side by side where there is room for both, else the second under the first.
    const float second = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("all linear").x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (right - ImGui::GetItemRectMax().x - ImGui::GetStyle().ItemSpacing.x >= second) ImGui::SameLine();
    else ImGui::SetCursorPosX(ImGui::GetFontSize() * 9.5f);
    if (ImGui::RadioButton("all linear", all)) w::set(st, "/lora/targets", "all-linear");
    w::Bool(st, "Train embeddings", "/lora/train_embeddings");
    w::Bool(st, "DoRA", "/lora/use_dora");
}

// The collapsed trees of a training run: parallel layout and sharding, and the RLHF algorithm.
static void ParallelAndRlhfInputs(AppState& st) {
    if (ImGui::TreeNode("Parallelism and sharding")) {
        w::Enum(st, "Sharding", "/sharding", allowed_values("sharding"));
        w::Enum(st, "Offload", "/offload", allowed_values("offload"));
        w::Int(st, "Tensor parallel", "/tp");
        w::Int(st, "Pipeline stages", "/pp");
        w::Int(st, "Context parallel", "/cp");
        w::Int(st, "Expert parallel", "/ep");
        w::Bool(st, "Sequence parallel", "/sp");
        ImGui::TreePop();
    }
    if (ImGui::TreeNode("RLHF (PPO, DPO, GRPO)")) {
        const json algo = w::current(st, "/rlhf/algorithm");
        const std::string now = algo.is_string() ? algo.get<std::string>() : "none";
        for (const char* a : {"none", "ppo", "dpo", "grpo"}) {
            if (ImGui::RadioButton(a, now == a) && now != a) {
                if (std::string(a) == "none") st.scenario.erase("rlhf");
                else st.scenario["rlhf"] = json{{"algorithm", a}};
                st.dirty = true;
            }
            ImGui::SameLine();
        }
        ImGui::NewLine();
        ImGui::TextDisabled("Roles, rollout engine and placement: edit the scenario JSON (docs/methodology.md).");
        ImGui::TreePop();
    }
}

// An inference run: weights and cache, requests, and the engine's own settings.
static void InferenceInputs(AppState& st, bool stack) {
    w::SectionTitle("Weights and cache");
    w::Enum(st, "Weights", "/weights", allowed_values("weights"));
    w::Enum(st, "KV cache", "/kv_dtype", allowed_values("kv_dtype"));
    w::SectionTitle("Requests");
    w::PowerOfTwo(st, "Batch", "/batch");
    if (!stack) w::PowerOfTwo(st, "Prompt tokens", "/prompt_len");
    if (!stack) w::PowerOfTwo(st, "Generated tokens", "/gen_len");
    const json engine = w::current(st, "/framework");
    const json weights = w::current(st, "/weights");
    if (key_reads_weights("group_size", weights)) w::Int(st, "Group size", "/group_size");
    if (engine == "hf") w::Enum(st, "Cache object", "/hf_cache", allowed_values("hf_cache"));
    if (engine == "vllm") {
        w::SectionTitle("vLLM");
        w::Real(st, "GPU mem. utilisation", "/gpu_memory_utilization", "%.2f");
        w::PowerOfTwo(st, "Max sequences", "/max_num_seqs");
        w::PowerOfTwo(st, "Max model length", "/max_model_len");
        w::Bool(st, "Eager (no CUDA graphs)", "/enforce_eager");
        const json gpu = w::current(st, "/gpu");
        const GpuSpec* g = gpu.is_string() ? st.catalog->find_gpu(gpu.get<std::string>()) : nullptr;
        if (g && g->vendor == "amd") {  // ROCm's loading figure and AITER (docs/methodology.md, "vLLM on AMD GPUs")
            w::Enum(st, "ROCm load figure", "/vllm_rocm_load_measure", allowed_values("vllm_rocm_load_measure"));
            w::Bool(st, "AITER (ROCm)", "/vllm_rocm_aiter");
        }
    }
    if (engine == "llama.cpp") {
        w::SectionTitle("llama.cpp");
        w::PowerOfTwo(st, "Context (n_ctx)", "/n_ctx");
        w::Int(st, "GPU layers", "/n_gpu_layers");
    }
}

void GuiWorkload(AppState& st) {
    const bool train = w::current(st, "/workload") != "infer";
    const bool stack = st.results.ok && st.results.scenario.model.stack;  // a layer stack: no sequence length
    if (ImGui::RadioButton("Training", train) && !train) w::set(st, "/workload", "train");
    ImGui::SameLine();
    if (ImGui::RadioButton("Inference", !train) && train) w::set(st, "/workload", "infer");
    w::Help("workload");

    const std::vector<std::string> frameworks = frameworks_for(train ? Workload::train : Workload::infer);  // the core's list
    w::Enum(st, "Framework", "/framework", frameworks);
    if (train) {
        w::SectionTitle("What trains");
        w::Enum(st, "Method", "/method", allowed_values("method"));
        const json method = w::current(st, "/method");
        if (method == "lora" || method == "qlora") LoraInputs(st);
        const bool adapter = method == "llama-adapter" || method == "adapter-v2";
        if (method == "qlora" || adapter) w::Enum(st, "Base format", "/quantization", allowed_values("quantization"));
        if (adapter) w::Int(st, "Prompt tokens", "/adapter_prompt_length");
        if (adapter) w::Int(st, "First adapted layer", "/adapter_start_layer");
        if (method == "freeze") w::Int(st, "Trained layers", "/trainable_layers");
        w::SectionTitle("Precision and optimizer");
        w::Enum(st, "Precision", "/precision", allowed_values("precision"));
        w::Enum(st, "Optimizer", "/optimizer", allowed_values("optimizer"));
        if (w::current(st, "/optimizer") == "adamw") w::Enum(st, "AdamW step", "/adamw_impl", allowed_values("adamw_impl"));
        if (method == "full") w::Enum(st, "Float8 (torchao)", "/float8", allowed_values("float8"));
        w::SectionTitle(stack ? "Batch" : "Batch and sequence");
        w::PowerOfTwo(st, "Micro-batch", "/micro_batch");
        if (!stack) w::PowerOfTwo(st, "Sequence length", "/seq_len");  // a layer stack's input shape is fixed
        w::Int(st, "Grad. accumulation", "/grad_accum");
        w::SectionTitle("Memory savers");
        w::Enum(st, "Checkpointing", "/checkpointing", allowed_values("checkpointing"));
        w::Enum(st, "Attention", "/attention", allowed_values("attention"));
        w::Enum(st, "Loss", "/loss", allowed_values("loss"));
        w::Bool(st, "torch.compile", "/compile");
        w::Bool(st, "Optim. in backward", "/optimizer_in_backward");
        w::Bool(st, "Grads set to None", "/zero_grad_set_to_none");
        ParallelAndRlhfInputs(st);
    } else {
        InferenceInputs(st, stack);
    }
}

}  // namespace vramcalc::ui
