// The one table of scenario keys (scenario_keys.hpp): name, type, range, default, help text, where it
// applies, and how the reader and writer reach the Scenario field. Row order is the order of links. The
// inference rows are keys_inference.cpp; how a row binds its member is key_binding.hpp.
#include "key_binding.hpp"

namespace vramcalc {
namespace detail {
namespace {

// Keys of both workloads.
std::vector<KeyRow> both_rows() {
    return {
        {{.name = "model", .type = T::model, .workload = W::both, .default_note = "required", .help = "A preset id, an inline config.json object, or {\"name\", \"parameters\"} for a model known only by its size."},
         {&read_model, &write_model, &always, nullptr}},
        {{.name = "workload", .type = T::enumeration, .workload = W::both, .help = "Training keeps weights, gradients, optimizer states and activations; inference keeps weights and the KV cache."},
         member<&Scenario::workload>()},
        {{.name = "framework", .type = T::enumeration, .workload = W::both, .help = "Sets the defaults a user of that framework gets: master weights, loss implementation, LoRA defaults, checkpointing."},
         member<&Scenario::framework>()},
        {{.name = "gpu", .type = T::gpu, .workload = W::both, .help = "The card's memory as the driver reports it (what nvidia-smi shows as total), not the marketed figure."},
         {&read_gpu, &write_gpu, &always, nullptr}},
        {{.name = "gpu.name", .type = T::string, .workload = W::both, .default_note = "custom GPU", .help = "Display name of a custom GPU."}, {}},
        {{.name = "gpu.memory_gib", .type = T::number, .workload = W::both, .min = 0.001, .max = 1 << 20, .default_note = "required (or memory_bytes)", .help = "A custom GPU's memory in GiB (2^30 bytes), as the driver reports it."}, {}},
        {{.name = "gpu.memory_bytes", .type = T::integer, .workload = W::both, .min = 1 << 20, .max = static_cast<double>(std::int64_t{1} << 50), .default_note = "required (or memory_gib)", .help = "A custom GPU's memory in bytes, as the driver reports it."}, {}},
        {{.name = "gpu.arch", .type = T::string, .workload = W::both, .default_note = "unknown", .help = "volta, turing, ampere, ada, hopper, ...: Volta and Turing stacks load every CUDA kernel eagerly (a larger CUDA context)."}, {}},
        {{.name = "gpu.bf16", .type = T::boolean, .workload = W::both, .default_note = "true", .help = "Whether the card computes in bf16."}, {}},
        // A custom GPU's compute peaks and links (the catalog's keys, presets/gpus.json; docs/scenario-extensions.md).
        {{.name = "gpu.peak_fp32_tflops", .type = T::number, .workload = W::both, .min = 0, .max = 1e6, .default_note = "0 (the bf16 peak is used)", .help = "Dense FP32 TFLOPS without tensor cores: the rate of fp32 matmuls (PyTorch does not use TF32 for them by default)."}, {}},
        {{.name = "gpu.peak_tf32_tflops", .type = T::number, .workload = W::both, .min = 0, .max = 1e6, .default_note = "0 (none)", .help = "Dense TF32 tensor-core TFLOPS: the rate of fp32 convolutions (cuDNN's default allows TF32)."}, {}},
        {{.name = "gpu.peak_bf16_tflops", .type = T::number, .workload = W::both, .min = 0, .max = 1e6, .default_note = "0 (no time estimate)", .help = "Dense BF16 tensor-core TFLOPS (FP32 accumulate), from the vendor's datasheet (halve a with-sparsity figure)."}, {}},
        {{.name = "gpu.peak_fp16_tflops", .type = T::number, .workload = W::both, .min = 0, .max = 1e6, .default_note = "0 (as bf16)", .help = "Dense FP16 tensor-core TFLOPS (FP32 accumulate)."}, {}},
        {{.name = "gpu.peak_fp8_tflops", .type = T::number, .workload = W::both, .min = 0, .max = 1e6, .default_note = "0 (none)", .help = "Dense FP8 tensor-core TFLOPS: the rate of float8 training's linears."}, {}},
        {{.name = "gpu.memory_bandwidth_gbps", .type = T::number, .workload = W::both, .min = 0, .max = 1e7, .default_note = "0 (no time estimate)", .help = "Peak memory bandwidth in GB/s."}, {}},
        {{.name = "gpu.gpu_link_gbps", .type = T::number, .workload = W::both, .min = 0, .max = 1e5, .default_note = "0 (PCIe)", .help = "Per-direction GPU-to-GPU bandwidth of NVLink or Infinity Fabric in GB/s (half the bidirectional datasheet figure)."}, {}},
        {{.name = "gpu.pcie_gen", .type = T::integer, .workload = W::both, .min = 3, .max = 6, .default_note = "4 (with a warning)", .help = "PCIe generation of the host link (offload traffic; collectives without NVLink)."}, {}},
        {{.name = "gpu.pcie_lanes", .type = T::integer, .workload = W::both, .min = 1, .max = 16, .default_note = "16", .help = "PCIe lanes of the host link."}, {}},
        {{.name = "gpu.sm_count", .type = T::integer, .workload = W::both, .min = 1, .max = 1024, .default_note = "0 (not given)", .help = "Streaming multiprocessors (NVIDIA whitepaper): with max_threads_per_sm, prices kernels that leave SMs idle."}, {}},
        {{.name = "gpu.max_threads_per_sm", .type = T::integer, .workload = W::both, .min = 32, .max = 4096, .default_note = "0 (not given)", .help = "Resident threads per SM (CUDA Programming Guide, compute capabilities: 2048 on sm_80/90, 1536 on sm_86/89)."}, {}},
        {{.name = "num_gpus", .type = T::integer, .workload = W::both, .min = 1, .max = kCount, .help = "GPUs in the job; sharding and parallel degrees divide the work between them."},
         member<&Scenario::num_gpus>()},
        {{.name = "target_utilization", .type = T::number, .workload = W::both, .min = 0.05, .max = 1.0, .help = "Share of the GPU's memory the max-batch solver may plan for; practitioners aim at 85-95 % to leave room for fragmentation."},
         member<&Scenario::target_utilization>()},
        {{.name = "mfu", .type = T::number, .workload = W::both, .min = 0, .max = 1, .default_note = "the published figure for the GPU's architecture", .help = "Model-FLOPs utilisation the time estimate assumes (compute at this share of the GPU's dense bf16 peak); "
                                                                                                                                                                "0 takes torchtitan's published figure for the GPU's architecture.",
          .shown_at_default = false},
         member<&Scenario::mfu>()},
        {{.name = "dataset_tokens", .type = T::number, .workload = W::both, .min = 0, .max = 1e18, .default_note = "none", .help = "Training: tokens in one epoch of the dataset; inference: tokens to generate. The bill then gives the time they take.", .shown_at_default = false},
         member<&Scenario::dataset_tokens>()},
        {{.name = "epochs", .type = T::number, .workload = W::train, .min = 0.001, .max = 1e6, .help = "Passes over dataset_tokens (a fraction is allowed).", .shown_at_default = false},
         member<&Scenario::epochs>()},
    };
}

// Training keys (workload "train") before lora.
std::vector<KeyRow> training_rows() {
    return {
        {{.name = "transformers", .type = T::integer, .workload = W::train, .frameworks = "hf", .min = 4, .max = 5, .help = "The transformers release whose defaults the run follows. 5 (today's): from_pretrained loads the checkpoint "
                                                                                                                            "in its own dtype (bf16 for most models, so a LoRA's frozen base is 2 B/param even under *-mixed) and the "
                                                                                                                            "Trainer steps fused AdamW. 4: the releases the published runs used (an fp32 model under AMP, foreach AdamW).",
          .shown_at_default = false},
         member<&Scenario::transformers>()},
        {{.name = "load_dtype", .type = T::enumeration, .workload = W::train, .frameworks = "hf", .help = "The dtype from_pretrained loads the model in. auto (transformers 5's default): the checkpoint's own "
                                                                                                          "(config.json's torch_dtype, bf16 for most models). float32: transformers 4's default, and TRL's "
                                                                                                          "(ModelConfig dtype, TRL 0.27 on). Without precision, a 16-bit load trains in 16 bits and a float32 load "
                                                                                                          "under bf16 autocast; a LoRA's frozen base keeps the loaded dtype under *-mixed.",
          .shown_at_default = false},
         member<&Scenario::load_dtype>()},
        {{.name = "method", .type = T::enumeration, .workload = W::train, .help = "full: every weight trains (gradients + optimizer states for all). lora: small adapters train, the base is frozen. "
                                                                                  "qlora: as lora with a 4-bit base. freeze: only the last N layers train. llama-adapter: learned prompt tokens "
                                                                                  "with a zero-init gate in the upper layers (LitGPT adapter.py). adapter-v2: llama-adapter plus a bias and scale "
                                                                                  "on every linear and trainable norms (LitGPT adapter_v2.py)."},
         member<&Scenario::method>()},
        {{.name = "precision", .type = T::enumeration, .workload = W::train, .default_note = "hf: the checkpoint's dtype, bf16-mixed for a float32 one", .help = "fp32: 4 B per weight, activations in fp32. *-mixed: fp32 weights, half-precision compute (activations halve, weights "
                                                                                                                                                                 "stay 4 B, plus casts). bf16/fp16: everything in 16 bits (2 B per weight, gradient and Adam state). "
                                                                                                                                                                 "transformers 5 loads a checkpoint in its own dtype, so a LoRA's frozen base stays 16-bit under *-mixed too."},
         member<&Scenario::precision>()},
        {{.name = "optimizer", .type = T::enumeration, .workload = W::train, .help = "AdamW keeps two states per trained parameter (8 B in fp32); 8-bit AdamW about 2 B; SGD with momentum one state; "
                                                                                     "Adafactor factored second moments (tiny)."},
         member<&Scenario::optimizer>()},
        {{.name = "adamw_impl", .type = T::enumeration, .workload = W::train, .help = "How AdamW steps: foreach (torch's default from 2.0, Trainer adamw_torch: a transient the size of one state "
                                                                                      "for all parameters), for-loop (one parameter at a time: transformers' AdamW, the Trainer's default "
                                                                                      "adamw_hf before transformers 4.32; a transient of the largest parameter) or fused (adamw_torch_fused: none).",
          .shown_at_default = false},
         member<&Scenario::adamw_impl>()},
    };
}

// Training keys after lora: what trains, batch and sequence, memory savers, parallelism.
std::vector<KeyRow> training_more_rows() {
    return {
        {{.name = "quantization", .type = T::enumeration, .workload = W::train, .methods = "qlora llama-adapter adapter-v2", .default_note = "method qlora: nf4", .help = "Base-weight format for QLoRA: nf4 about 4.5 bits per weight with its scales, nf4-dq about 4.13, int8 8 bits plus row scales; "
                                                                                                                                                                          "gptq-int4 / awq-int4: a pre-quantised checkpoint (4 bits + fp16 scale and packed zero per group of 128 inputs) that "
                                                                                                                                                                          "PEFT trains LoRA on."},
         special<&Scenario::quantization>(&read_quantization)},
        {{.name = "trainable_layers", .type = T::integer, .workload = W::train, .methods = "freeze", .min = 1, .max = 10000, .help = "method freeze: how many of the last layers train."},
         member<&Scenario::trainable_layers>()},
        {{.name = "adapter_prompt_length", .type = T::integer, .workload = W::train, .methods = "llama-adapter adapter-v2", .min = 1, .max = 100000, .help = "Learned prompt tokens per adapted layer (LitGPT adapter_prompt_length)."},
         member<&Scenario::adapter_prompt_length>()},
        {{.name = "adapter_start_layer", .type = T::integer, .workload = W::train, .methods = "llama-adapter adapter-v2", .min = 0, .max = 10000, .help = "First layer with adapter prompts (LitGPT adapter_start_layer); llama-adapter "
                                                                                                                                                          "runs the layers below it without gradients."},
         member<&Scenario::adapter_start_layer>()},
        {{.name = "micro_batch", .type = T::integer, .workload = W::train, .min = 1, .max = kCount, .help = "Sequences per GPU per forward/backward. Activations and logits grow linearly with it."},
         member<&Scenario::micro_batch>()},
        {{.name = "seq_len", .type = T::integer, .workload = W::train, .min = 1, .max = kTokens, .help = "Tokens per sequence. Activations grow linearly (quadratically for eager attention's scores)."},
         member<&Scenario::seq_len>()},
        {{.name = "grad_accum", .type = T::integer, .workload = W::train, .min = 1, .max = kCount, .help = "Micro-batches per optimizer step. Costs no activations, but the gradients then persist between micro-batches."},
         member<&Scenario::grad_accum>()},
        {{.name = "optimizer_in_backward", .type = T::boolean, .workload = W::train, .help = "Steps each parameter's optimizer as soon as its gradient is ready, so the full set of gradients never exists at once.", .shown_at_default = false},
         member<&Scenario::optimizer_in_backward>()},
        {{.name = "zero_grad_set_to_none", .type = T::boolean, .workload = W::train, .help = "zero_grad(set_to_none): true frees the gradients after each step (PyTorch 2.0 on); false keeps them allocated "
                                                                                             "and zeroed through the next forward (PyTorch 1.x defaults; the HF Trainer before transformers PR #22136, 2023-03).",
          .shown_at_default = false},
         member<&Scenario::zero_grad_set_to_none>()},
        {{.name = "keep_outputs", .type = T::boolean, .workload = W::train, .help = "true: a hand-written loop (out = model(**batch); out.loss.backward(); optimizer.step()) keeps the model's outputs, "
                                                                                    "its logits among them, to the end of the step. false: the HF Trainer's way, which keeps only the loss.",
          .shown_at_default = false},
         member<&Scenario::keep_outputs>()},
        {{.name = "compile", .type = T::boolean, .workload = W::train, .help = "torch.compile: the compiler recomputes cheap pointwise ops in backward instead of keeping their outputs.", .shown_at_default = false},
         member<&Scenario::compile>()},
        {{.name = "compile_loss", .type = T::boolean, .workload = W::train, .help = "With compile: the loss is compiled too (torchtune's compile_loss). false: only the layers are, as "
                                                                                    "torchtitan did until 2025 (its train.py left `torch.compile(loss_fn)` commented out).",
          .shown_at_default = false},
         member<&Scenario::compile_loss>()},
        {{.name = "fsdp_no_sync", .type = T::boolean, .workload = W::train, .help = "FSDP with gradient accumulation: skip the gradient reduce-scatter until the last micro-batch (no_sync), keeping "
                                                                                    "unsharded gradients meanwhile. On by default for LitGPT.",
          .shown_at_default = false},
         member<&Scenario::fsdp_no_sync>()},
        {{.name = "checkpointing", .type = T::enumeration, .workload = W::train, .help = "full: keep only each layer's input and recompute the layer in backward (one more forward pass: about a third more "
                                                                                         "compute, Chen et al. 2016). selective: recompute attention only. offload: layer inputs go to CPU memory. selective-op: "
                                                                                         "torchtitan's per-op checkpointing (keep attention's and every other matmul's outputs)."},
         member<&Scenario::checkpointing>()},
        {{.name = "attention", .type = T::enumeration, .workload = W::train, .help = "eager keeps the seq x seq scores and probabilities per head; sdpa/flash keep only q, k, v, output and a small log-sum-exp."},
         member<&Scenario::attention>()},
        {{.name = "loss", .type = T::enumeration, .workload = W::train, .help = "standard materialises vocab x tokens logits in fp32 plus their gradient (often the largest single peak); chunked and fused "
                                                                                "(Liger's fused linear cross-entropy) do not, cce (Cut Cross-Entropy) keeps no logits at all, liger-ce keeps the logits "
                                                                                "but no log-softmax. chunked-nll: TRL's SFT loss (loss_type chunked_nll, the SFTTrainer's default from TRL 1.7): "
                                                                                "256 tokens' logits at a time, each chunk recomputed in backward."},
         member<&Scenario::loss>()},
        {{.name = "float8", .type = T::enumeration, .workload = W::train, .methods = "full", .help = "torchao float8 training: the linears cast input and weight to float8 for each matmul (transients; the "
                                                                                                     "16-bit input and weight stay saved for backward, so peak memory barely moves). mxfp8 is torchao's MX "
                                                                                                     "recipe (torchtitan's mxfp8_cublas / mxfp8_rceil; Blackwell). Speed is not modelled."},
         member<&Scenario::float8>()},
        {{.name = "float8_all_gather", .type = T::boolean, .workload = W::train, .methods = "full", .help = "With float8 tensorwise and FSDP: the weights are all-gathered in float8. Recorded, no memory effect: "
                                                                                                            "torchao's published torchtitan runs peak 0.25 % higher with it than in bf16."},
         member<&Scenario::float8_all_gather>()},
        {{.name = "sharding", .type = T::enumeration, .workload = W::train, .help = "ZeRO/FSDP split model states across data-parallel GPUs: zero1 optimizer, zero2 + gradients, zero3/fsdp-full + weights."},
         member<&Scenario::sharding>()},
        {{.name = "offload", .type = T::enumeration, .workload = W::train, .help = "Moves optimizer states (and weights) to host memory; the bill then reports CPU memory too."},
         member<&Scenario::offload>()},
        {{.name = "tp", .type = T::integer, .workload = W::train, .min = 1, .max = kDegree, .help = "Tensor parallel degree: weights and most activations split across GPUs."},
         member<&Scenario::tp>()},
        {{.name = "pp", .type = T::integer, .workload = W::train, .min = 1, .max = kDegree, .help = "Pipeline stages: layers split; the first stage keeps several micro-batches in flight."},
         member<&Scenario::pp>()},
        {{.name = "cp", .type = T::integer, .workload = W::train, .min = 1, .max = kDegree, .help = "Context parallel degree: each GPU keeps the activations of a slice of the sequence."},
         member<&Scenario::cp>()},
        {{.name = "ep", .type = T::integer, .workload = W::train, .min = 1, .max = kDegree, .help = "Expert parallel degree: the routed experts of MoE layers split across GPUs."},
         member<&Scenario::ep>()},
        {{.name = "sp", .type = T::boolean, .workload = W::train, .help = "Megatron sequence parallelism: the activations outside tensor-parallel regions split across the tp GPUs too."},
         member<&Scenario::sp>()},
    };
}

// The lora object and its keys.
std::vector<KeyRow> lora_rows() {
    return {
        {{.name = "lora", .type = T::object, .workload = W::train, .methods = "lora qlora", .default_note = "per framework: the rows below", .help = "The adapters: {\"rank\", \"alpha\", \"dropout\", \"targets\", \"train_embeddings\", \"use_dora\"}."},
         {&read_lora, &write_lora, &same_lora, nullptr}},
        {{.name = "lora.rank", .type = T::integer, .workload = W::train, .methods = "lora qlora", .min = 1, .max = 1 << 16, .help = "Adapter rank r: each adapted matrix adds r x (in + out) trainable parameters and keeps an r-wide activation.", .alias = "r"}, {}},
        {{.name = "lora.alpha", .type = T::number, .workload = W::train, .methods = "lora qlora", .min = 0, .max = 1e9, .help = "Scaling of the adapter output; no effect on memory."}, {}},
        {{.name = "lora.dropout", .type = T::number, .workload = W::train, .methods = "lora qlora", .min = 0, .max = 1, .help = "Dropout > 0 keeps a dropout mask and a dropped copy of each adapted layer's input."}, {}},
        {{.name = "lora.targets", .type = T::list, .workload = W::train, .methods = "lora qlora", .default_note = "the model type's default (PEFT's mapping; q_proj, v_proj for Llama)", .help = "Which linear layers get adapters: the model's default (q and v for Llama-style models), a list of module names, or all linear layers."}, {}},
        {{.name = "lora.train_embeddings", .type = T::boolean, .workload = W::train, .methods = "lora qlora", .help = "The embeddings and output layer train in full alongside the adapters."}, {}},
        {{.name = "lora.use_dora", .type = T::boolean, .workload = W::train, .methods = "lora qlora", .default_note = "false", .help = "DoRA, as PEFT runs it: a trainable magnitude per output of each adapted linear; each keeps its base and "
                                                                                                                                       "adapter outputs, and builds its full-size merged weight to take its norm."},
         {}},
    };
}

// The rlhf object and its keys (docs/methodology.md, "RLHF").
std::vector<KeyRow> rlhf_rows() {
    return {
        {{.name = "rlhf", .type = T::object, .workload = W::train, .default_note = "none", .help = "PPO, DPO or GRPO: the reference, reward and critic models besides the policy, and the rollout engine.", .shown_at_default = false},
         {&read_rlhf, &write_rlhf, &no_rlhf, nullptr}},
        {{.name = "rlhf.algorithm", .type = T::enumeration, .workload = W::train, .default_note = "required", .help = "ppo (verl: actor, critic, reference, reward), dpo (TRL: policy and reference), grpo (TRL: policy, reference, G completions)."},
         {.values = &rlhf_algorithm_values}},
        {{.name = "rlhf.critic", .type = T::object, .workload = W::train, .help = "The trained value model: false, true (the policy's model and settings) or {\"model\", \"method\", \"precision\", \"sharding\", \"offload\"}."}, {}},
        {{.name = "rlhf.reference", .type = T::object, .workload = W::train, .help = "The frozen reference model (bf16): false (precomputed log-probabilities), true or an object as for critic."}, {}},
        {{.name = "rlhf.reward", .type = T::object, .workload = W::train, .help = "The frozen reward model (bf16): false, true or an object as for critic."}, {}},
        {{.name = "rlhf.group_size", .type = T::integer, .workload = W::train, .min = 1, .max = kDegree, .help = "GRPO: completions generated per prompt (G)."}, {}},
        {{.name = "rlhf.prompt_len", .type = T::integer, .workload = W::train, .min = 1, .max = kTokens, .help = "Rollout prompt tokens per sequence."}, {}},
        {{.name = "rlhf.gen_len", .type = T::integer, .workload = W::train, .min = 1, .max = kTokens, .help = "Rollout generated tokens per sequence."}, {}},
        {{.name = "rlhf.rollout", .type = T::object, .workload = W::train, .help = "The generation engine: false, true or {\"engine\", \"placement\", \"gpu_memory_utilization\", \"released\", \"tp\", \"batch\"}."}, {}},
        {{.name = "rlhf.rollout.engine", .type = T::enumeration, .workload = W::train, .help = "vllm preallocates its share of the GPU; hf generates with the policy's own weights."},
         {.values = &rollout_engine_values}},
        {{.name = "rlhf.rollout.placement", .type = T::enumeration, .workload = W::train, .help = "colocated: on the training GPUs; separate: on GPUs of its own."},
         {.values = &placement_values}},
        {{.name = "rlhf.rollout.gpu_memory_utilization", .type = T::number, .workload = W::train, .min = 0.01, .max = 1.0, .help = "The share of the GPU the colocated vLLM engine takes."}, {}},
        {{.name = "rlhf.rollout.released", .type = T::boolean, .workload = W::train, .help = "The engine frees its memory outside the rollout phase (sleep mode)."}, {}},
        {{.name = "rlhf.rollout.tp", .type = T::integer, .workload = W::train, .min = 1, .max = kDegree, .help = "The rollout engine's tensor-parallel degree."}, {}},
        {{.name = "rlhf.rollout.batch", .type = T::integer, .workload = W::train, .min = 0, .max = kCount, .default_note = "takes micro_batch", .help = "Prompts generated per GPU at once."}, {}},
    };
}

// Kept for the record (reference data), not read.
std::vector<KeyRow> record_rows() {
    return {
        {{.name = "model_hub_id", .type = T::string, .workload = W::both, .help = "The model's Hugging Face id, for the record.", .read = false}, {}},
        {{.name = "extra", .type = T::object, .workload = W::both, .help = "Anything else, for the record.", .read = false}, {}},
    };
}

// The table: top-level keys in link order, each followed by the keys of its object.
const std::vector<KeyRow>& rows() {
    static const std::vector<KeyRow> r = [] {
        std::vector<KeyRow> v;
        for (auto part : {both_rows, training_rows, lora_rows, training_more_rows, rlhf_rows, inference_rows, record_rows})
            for (auto& row : part()) v.push_back(std::move(row));
        return v;
    }();
    return r;
}

}  // namespace

std::span<const KeyRow> key_rows() { return rows(); }

}  // namespace detail
}  // namespace vramcalc
