# End-to-end checks of the real `vramcalc` binary: outputs and exit codes (0 ok, 2 bad input).
# Run by CTest with -DCLI=<path> -DDATA=<tests/data>.
function(expect_run code needle)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL code)
    message(FATAL_ERROR "vramcalc ${ARGN}: exit ${rc}, expected ${code}\nstdout: ${out}\nstderr: ${err}")
  endif()
  string(FIND "${out}${err}" "${needle}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "vramcalc ${ARGN}: output lacks '${needle}'\nstdout: ${out}\nstderr: ${err}")
  endif()
endfunction()

function(expect_absent needle)
  execute_process(COMMAND ${CLI} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${out}${err}" "${needle}" pos)
  if(NOT pos EQUAL -1)
    message(FATAL_ERROR "vramcalc ${ARGN}: output has '${needle}'\nstdout: ${out}\nstderr: ${err}")
  endif()
endfunction()

set(tmp "${CMAKE_CURRENT_BINARY_DIR}/cli_test_tmp")
file(MAKE_DIRECTORY "${tmp}")

expect_run(0 "\"parameters\": 8030261248" inspect llama-3.1-8b --json)
expect_run(0 "\"active_parameters\": 8030261248" inspect llama-3.1-8b --json)
expect_run(0 "6,738,415,616" inspect llama-2-7b)
# A real config.json file on disk (a preset's config written out).
file(WRITE "${tmp}/config.json" [=[{"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": 50257,
  "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024, "n_inner": null}]=])
expect_run(0 "\"parameters\": 124439808" inspect ${tmp}/config.json --json)
expect_run(0 "llama-3.1-8b" presets)
expect_run(0 "\"gpus\"" presets --json)
expect_run(0 "peak allocated" estimate --model llama-3.1-8b --method lora --gpu a100-80gb)
expect_run(0 "\"peak_allocated_bytes\"" estimate --model qwen2.5-7b --workload infer --batch 8 --json)
file(WRITE "${tmp}/scenario.json" [=[{"model": "llama-3.1-8b", "method": "lora", "lora": {"rank": 16, "targets": "all-linear"}}]=])
expect_run(0 "\"components\"" estimate ${tmp}/scenario.json --json)
file(WRITE "${tmp}/scenario_path.json" "{\"model\": \"${tmp}/config.json\", \"workload\": \"infer\"}")
expect_run(0 "kv_cache" estimate ${tmp}/scenario_path.json)
# Issue 41: vLLM's defaults fill 90 % of the GPU by design, and that is a fit, with no advice to add GPUs;
# the largest micro-batch names its checkpointing and the figure with full checkpointing; no "largest ... 0".
file(WRITE "${tmp}/vllm_h100.json" [=[{"model": "llama-3.1-8b", "workload": "infer", "framework": "vllm", "gpu": "h100-80gb"}]=])
expect_run(0 "FITS on NVIDIA H100 80GB HBM3 (SXM): fits: the weights and overheads leave vLLM's 90 % budget" estimate ${tmp}/vllm_h100.json)
expect_absent("more GPUs" estimate ${tmp}/vllm_h100.json)
expect_run(0 "\"verdict\": \"fits\"" estimate ${tmp}/vllm_h100.json --json)
file(WRITE "${tmp}/vllm_70b.json" [=[{"model": "llama-3.1-70b", "workload": "infer", "framework": "vllm", "gpu": "h100-80gb"}]=])
expect_run(0 "DOES NOT FIT on NVIDIA H100" estimate ${tmp}/vllm_70b.json)
# Issue 41: counts said plainly ("none, not even 1", never "largest batch 0"); the longest context stops at
# vLLM's max_model_len, with a note; the rule of thumb compared without the KV blocks vLLM reserves beyond the batch.
expect_run(0 "Largest batch within the target utilisation: none, not even 1" estimate --model llama-3.1-70b --workload infer --gpu rtx-3060-12gb)
expect_run(0 "Longest context (prompt + generated tokens) at this batch: none fits" estimate --model llama-3.1-70b --workload infer --gpu rtx-3060-12gb)
expect_absent("utilisation: 0" estimate --model llama-3.1-70b --workload infer --gpu rtx-3060-12gb)
expect_run(0 "at this batch: 8192 tokens" estimate --model llama-3.1-8b --workload infer --framework vllm --max-model-len 8192)
expect_run(0 "note: longest context capped at max_model_len 8192 (memory alone would allow " estimate --model llama-3.1-8b --workload infer --framework vllm --max-model-len 8192)
expect_run(0 "against this bill without the KV blocks vLLM reserves beyond the batch" estimate ${tmp}/vllm_h100.json)
expect_run(0 "\"rule_of_thumb_basis_bytes\"" estimate ${tmp}/vllm_h100.json --json)
file(WRITE "${tmp}/lora_none.json" [=[{"model": "llama-3.1-8b", "method": "lora", "gpu": "h100-80gb", "checkpointing": "none"}]=])
expect_run(0 "(seq_len 2048, no checkpointing; " estimate ${tmp}/lora_none.json)
expect_run(0 " with full checkpointing)" estimate ${tmp}/lora_none.json)
expect_run(0 "\"max_micro_batch_full_checkpointing\"" estimate ${tmp}/lora_none.json --json)
# Full fine-tuning as transformers 4 ran it (an fp32 model under AMP, 16 B/param); transformers 5's bf16 model fits.
file(WRITE "${tmp}/full_h100.json" [=[{"model": "llama-3.1-8b", "gpu": "h100-80gb", "transformers": 4}]=])
expect_run(0 "does not fit at micro-batch 1" estimate ${tmp}/full_h100.json)
expect_absent("largest micro-batch 0" estimate ${tmp}/full_h100.json)
# A layer stack (issue 21): ResNet-50 at micro-batch 64 with its largest micro-batch; a bad stack names the layer.
expect_run(0 "Largest micro-batch within the target utilisation" estimate --model resnet50 --micro-batch 64)
# A CNN's speed counts images, as the page says (issue 41 item 8), and its JSON names the unit.
expect_run(0 "images/s" estimate --model resnet50 --micro-batch 64)
expect_run(0 "\"unit\": \"images\"" estimate --model resnet50 --micro-batch 64 --json)
file(WRITE "${tmp}/stack.json" [=[{"model": {"input": [3, 8, 8], "layers": [{"type": "conv2d", "out_channels": 4, "kernel_size": 3},
  {"type": "flatten"}, {"type": "linear", "in_features": 100, "out_features": 10}]}}]=])
expect_run(2 "model.layers[2] (2): linear expects 100 input features, got 144" estimate ${tmp}/stack.json)
expect_run(0 "\"params_exact\": 27" validate ${DATA}/param_counts.json --json)
expect_run(0 "\"formulas_total\": 74" validate ${DATA}/formula_cases.json --json)
expect_run(0 "\"oom_total\"" validate ${DATA}/measured_runs.json --json)

# Bad input: exit 2 with the field named.
expect_run(2 "unknown preset id" estimate --model not-a-model)
expect_run(2 "micro_batch: got 0" estimate --model gpt2 --micro-batch 0)
expect_run(2 "neither a preset id" inspect /no/such/file.json)
file(WRITE "${tmp}/broken.json" "{ \"model\": ")
expect_run(2 "not valid JSON" estimate ${tmp}/broken.json)
file(WRITE "${tmp}/bad_config.json" [=[{"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096}]=])
expect_run(2 "num_hidden_layers" inspect ${tmp}/bad_config.json)
expect_run(2 "unknown command" frobnicate)
expect_run(2 "needs a value" estimate --model)
expect_run(0 "full-catalog solve" bench)

# Checkpoint headers (tests/data/checkpoints: header-only files written to the safetensors and GGUF specs).
expect_run(0 "\"checkpoint_bytes\": 8740864" weights ${DATA}/checkpoints/gptq-layer.safetensors --json)
expect_run(0 "\"checkpoint_bytes\": 524296192" weights ${DATA}/checkpoints/sharded --json)
expect_run(0 "\"files\": 2" weights ${DATA}/checkpoints/sharded/model.safetensors.index.json --json)
expect_run(0 "q6_k" weights ${DATA}/checkpoints/q4_k-layer.gguf)
# The page's Hub fixtures (checkpoints/hub, make_fixtures.py): FP8 sharded with an index, GPTQ and bf16 single files.
expect_run(0 "\"checkpoint_bytes\": 9081202432" weights ${DATA}/checkpoints/hub/neuralmagic/Meta-Llama-3-8B-Instruct-FP8 --json)
expect_run(0 "\"checkpoint_bytes\": 459297536" weights ${DATA}/checkpoints/hub/Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4 --json)
expect_run(0 "\"checkpoint_bytes\": 988065536" weights ${DATA}/checkpoints/hub/Qwen/Qwen2.5-0.5B/model.safetensors --json)
expect_run(2 "not a safetensors or GGUF file" weights ${DATA}/param_counts.json)
expect_run(2 "cannot open" weights ${tmp}/no-such.safetensors)

# Serving: the context x concurrency matrix in the bill JSON and the text table.
expect_run(0 "\"serving_matrix\"" estimate --model qwen2.5-7b --workload infer --framework vllm --json)
expect_run(0 "concurrent sequences per context length" estimate --model llama-3.1-8b --workload infer --framework llama.cpp --weights gguf-q4_k_m)

# Import (docs/imports.md): scenario JSON on stdout, the report on stderr; --from feeds estimate.
execute_process(COMMAND ${CLI} import ${DATA}/imports/vllm_serve_qwen3_14b.sh RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
if(_rc EQUAL 0)  # built with yaml-cpp
  expect_run(0 "\"max_model_len\": 16384" import ${DATA}/imports/vllm_serve_qwen3_14b.sh)
  expect_run(0 "--tensor-parallel-size 4 -> tp" import ${DATA}/imports/vllm_serve_qwen3_14b.sh)
  expect_run(0 "\"unknown\": []" import ${DATA}/imports/axolotl_llama3_qlora.yml --json)
  expect_run(0 "imported axolotl" estimate --from ${DATA}/imports/axolotl_llama3_qlora.yml --gpu rtx-4090)
  expect_run(0 "zero3" estimate --from ${DATA}/imports/deepspeed_ds_z3_offload_config.json --model llama-3.1-8b --num-gpus 8 --json)
  file(WRITE "${tmp}/bad.yaml" "stage: sft\nlora_rank: eight\n")
  expect_run(2 "line 2, key lora_rank" import ${tmp}/bad.yaml)
  expect_run(2 "model: missing" estimate --from ${DATA}/imports/accelerate_fsdp_qlora.yaml)
endif()
