// Bill: the answer to a Scenario — memory per GPU, line by line, with the peak figures that
// PyTorch (allocated, reserved) and nvidia-smi (device) would report. JSON names follow
// shared/spec/scenario.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vramcalc/gpu.hpp"
#include "vramcalc/model.hpp"

namespace vramcalc {

// The registry of bill lines: every component id the estimator writes, with what a person reads for it
// and where its formula lives. The estimator refuses ids that are not here (bill/lines.cpp); the CLI, the
// UI's bar and legend, the exports and docs/architecture.md read it. RLHF lines carry a role prefix
// ("critic.weights", "rollout.kv_cache") over the same ids.
struct BillLine {
    const char* id;           // JSON id (shared/spec/scenario.md names the first seven)
    const char* label;        // what the UI and the text bill call it
    const char* unit;         // "bytes" for all today; kept so a per-token line can say so
    const char* section;      // docs/methodology.md section
    const char* computed_in;  // the file and function that computes it
    std::uint32_t color;      // 0xRRGGBB for the bar and legend
};
const std::vector<BillLine>& bill_lines();
// The registry entry of a component id (a role prefix such as "critic." is ignored); nullptr if unknown.
const BillLine* find_bill_line(const std::string& id);

struct Component {
    std::string id;  // "weights", "gradients", "optimizer", "activations", "logits", "kv_cache", ...
    std::int64_t bytes = 0;
    std::string detail;  // how it was computed, in words and numbers
};

// One point of the simulated training step: allocated bytes after an event of `phase`
// ("forward", "loss", "backward", "optimizer").
struct TimelinePoint {
    std::string phase;
    std::int64_t bytes = 0;
};

// How long it takes (time/speed.cpp; docs/methodology.md "Time"): a roofline of the step on the GPU
// (compute at an assumed model-FLOPs utilisation, memory traffic at peak bandwidth) plus the
// communication not hidden behind compute and the offload traffic over PCIe.
struct Speed {
    // Training: one optimizer step of the whole job.
    double flops_per_step = 0;        // executed (recomputation included), all GPUs
    double model_flops_per_step = 0;  // what MFU is computed on (no recomputation)
    double step_s = 0;
    double tokens_per_step = 0;
    double tokens_per_s = 0;  // the job
    double tokens_per_s_per_gpu = 0;
    double compute_s = 0, memory_s = 0, communication_s = 0, offload_s = 0;
    double launch_s = 0;     // eager kernel issue time, where a floor is known (HF Trainer)
    double optimizer_s = 0;  // the optimizer step after backward (memory-bound, or its launches)
    // Inference: prefill of the prompts, then one decode step per generated token.
    double prefill_s = 0;
    double decode_s_per_token = 0;  // one step of `batch` sequences at the mean context
    double tokens_per_s_per_sequence = 0;
    double generate_tokens_per_s = 0;  // gen_len / (prefill + decode), one sequence's view
    double tokens_per_s_at_max_concurrency = 0;
    double mfu = 0;                 // the assumed model-FLOPs utilisation
    double dataset_tokens = 0;      // the scenario's dataset_tokens x epochs (training) or tokens to generate
    double time_for_dataset_s = 0;  // dataset_tokens at tokens_per_s (the job's, or the batch's)
    std::string bound;              // "compute", "memory", "communication", "offload" or "launch" (kernel issue)
    std::string basis;              // the assumptions, in words, with their sources
    // What the *tokens* figures count: "tokens" for a language model; a layer stack's sample (one token = one
    // sample) is "images" for an image input ([C, H, W]) and "samples" otherwise. Read by every edge that
    // prints a rate, so a CNN says images/s on the page, in the CLI and in JSON alike.
    std::string unit = "tokens";
};

// An engine that pre-allocates its KV cache to a memory budget (vLLM's gpu_memory_utilization): it fills
// the budget by design, so its verdict asks whether the weights and overheads leave the pool room for the
// sequences, and whether what lies outside the budget (CUDA graphs, the CUDA context) still fits the GPU,
// not whether the device figure is within the target utilisation (bill_format.cpp verdict_of).
struct ServingBudget {
    double fraction = 0;                   // gpu_memory_utilization
    std::int64_t budget_bytes = 0;         // fraction x the torch-visible total
    std::int64_t outside_bytes = 0;        // CUDA graphs captured after the pool
    std::int64_t sequence_tokens = 0;      // prompt_len + gen_len: what kv_pool_sequences counts
    std::int64_t requested_sequences = 0;  // the scenario's batch
    std::int64_t max_model_len = 0;        // 0: not set
    bool starts = false;                   // the pool holds one sequence (of max_model_len where set)
};

struct Bill {
    std::string model_name;
    std::int64_t parameters = 0;
    std::int64_t active_parameters = 0;
    std::int64_t trainable_parameters = 0;

    std::vector<Component> components;      // per GPU, at the peak
    std::int64_t peak_allocated_bytes = 0;  // torch.cuda.max_memory_allocated()
    std::int64_t peak_reserved_bytes = 0;   // torch.cuda.max_memory_reserved()
    std::int64_t device_bytes = 0;          // nvidia-smi, for the process, on a GPU that never runs out
    // The least GPU memory the run needs: allocated, plus what the caching allocator holds in segments that
    // still have a live block (it frees the rest and retries when cudaMalloc fails), plus the CUDA context.
    // What fits, the verdict and the solvers use. Equal to device_bytes where no allocator replay applies.
    std::int64_t needed_bytes = 0;
    // Set by the training step's allocator replay (training/step_replay.hpp): bytes reserved, and bytes held
    // in segments with a live block, above the allocated peak; -1 when the step was not replayed.
    std::int64_t replay_reserve_bytes = -1, replay_pinned_bytes = -1;
    std::int64_t cpu_bytes = 0;  // host memory (offload, llama.cpp CPU layers)

    GpuSpec gpu;
    double target_utilization = 0.9;              // the share of GPU memory a plan may use (the scenario's)
    bool fits = false;                            // needed_bytes <= gpu.memory_bytes (and, for vLLM, the engine starts)
    std::optional<std::int64_t> max_micro_batch;  // training: largest micro_batch within target utilisation
    // What that figure assumes (the scenario's checkpointing and seq_len), and the same solve with full
    // checkpointing, the largest activation saver, when the scenario does not already recompute its layers.
    std::string max_micro_batch_checkpointing;
    std::int64_t max_micro_batch_seq_len = 0;
    std::optional<std::int64_t> max_micro_batch_full_checkpointing;
    // The largest micro_batch that runs at all: needed_bytes within 100 % of the GPU (when the target is lower).
    std::optional<std::int64_t> max_micro_batch_runs;
    std::optional<std::int64_t> max_batch;    // inference: largest batch within target utilisation
    std::optional<std::int64_t> max_seq_len;  // training: longest seq_len at this micro_batch
    std::string peak_phase;                   // where in the step the peak falls
    std::vector<TimelinePoint> timeline;      // allocated bytes through one training step
    std::int64_t torch_uncounted_bytes = 0;   // on the GPU but outside torch's allocator (paged optimizer states)
    std::int64_t paged_to_host_bytes = 0;     // of those, what CUDA unified memory keeps in host RAM (GPU full)
    // Inference: vLLM's preallocated KV block pool and how many sequences of prompt_len + gen_len it holds;
    // the largest concurrency and the longest context (prompt + generated tokens) the GPU allows.
    std::optional<std::int64_t> kv_pool_bytes;
    std::optional<std::int64_t> kv_pool_sequences;
    std::optional<std::int64_t> max_concurrent_sequences;
    std::optional<std::int64_t> max_context;
    std::optional<ServingBudget> serving_budget;  // vLLM: the budget its KV pool fills
    // The common rule of thumb beside the detailed figure (inference: params x bytes x 1.2; training:
    // 16 B/param for Adam, LoRA/QLoRA variants), with the formula and its source in words.
    std::int64_t rule_of_thumb_bytes = 0;
    std::string rule_of_thumb_formula;
    std::string layout;  // multi-GPU: the layout and which rank the bill is for
    std::vector<std::string> warnings;
    std::vector<std::string> notes;  // what a figure is bounded by, that is not a problem
    std::optional<Speed> speed;      // estimate() only (not estimate_peak)

    std::int64_t component(const std::string& id) const {
        for (const auto& c : components)
            if (c.id == id) return c.bytes;
        return 0;
    }
};

}  // namespace vramcalc
