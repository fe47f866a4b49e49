#!/usr/bin/env python3
"""Copy the vLLM startup-log records (shared/reference/vllm_startup_logs.json) into
tests/data/vllm_startup_logs.json, each with the vramcalc scenario of its run.

Run from the repository root:  python3 tools/vllm_startup/add_scenarios.py SHARED_FILE
The raw fields (uuid, csv_metadata, log_config, log_memory, estimator_inputs) and `source` are kept
unchanged except for the notes appended to `source`; each record gains `scenario` (or `scenario: null` and `why`). The settings come from the
record's runtime_args (the source's caveat 1: the v0.20 logs' gpu_memory_utilization 0.9 is the parser's
default, runtime_args says 0.92) and, where runtime_args is silent, vLLM's serve defaults on >= 70 GiB
GPUs (caveat 4: max_num_batched_tokens 8192, max_num_seqs 1024, vllm/engine/arg_utils.py).
"""
import json
import sys

# Hub id -> (vramcalc model preset id, `weights` value, note). Weight formats, from each checkpoint's
# quantization_config as vLLM reads it:
#  - compressed-tensors FP8-dynamic (RedHatAI/*-FP8-dynamic): float8_e4m3 weights with a per-output-channel
#    fp32 weight_scale, activations quantised per token at run time; lm_head (and embeddings, norms,
#    router gates) stay bf16 ("ignore": ["lm_head"] plus non-Linear modules) -> `fp8-channel`.
#  - DeepSeek-R1-0528: quant_method fp8, weight_block_size [128, 128]: e4m3 weights with one fp32
#    weight_scale_inv per 128x128 block -> `fp8-block`; same architecture as DeepSeek-V3 (its preset).
#  - Ministral-3 (quant_method fp8, per-tensor) and Nemotron modelopt FP8 (per-tensor): `fp8`.
MODELS = {
    "meta-llama/Llama-3.3-70B-Instruct": ("llama-3.3-70b", "bf16"),
    "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic": ("llama-3.3-70b", "fp8-channel"),
    "deepseek-ai/DeepSeek-R1-0528": ("deepseek-v3", "fp8-block"),
    # Instruct-2507 has the architecture of Qwen3-235B-A22B; only max_position_embeddings differs (262144 vs
    # 40960): vLLM's rope cos/sin cache is then 64 MiB instead of 10 MiB per GPU, under 0.05 % of its weights.
    "Qwen/Qwen3-235B-A22B-Instruct-2507": ("qwen3-235b-a22b", "bf16"),
    "RedHatAI/Qwen3-235B-A22B-FP8-dynamic": ("qwen3-235b-a22b", "fp8-channel"),
    "Qwen/Qwen3-VL-30B-A3B-Instruct": ("qwen3-vl-30b-a3b", "bf16"),
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct": ("llama-4-maverick-17b-128e-instruct", "bf16"),
    "RedHatAI/Llama-4-Maverick-17B-128E-Instruct-FP8": ("llama-4-maverick-17b-128e-instruct", "fp8-channel"),
    "RedHatAI/Ministral-3-14B-Instruct-2512": ("ministral-3-14b-instruct-2512", "fp8"),
    # Kimi-K2.5: compressed-tensors pack-quantized int4, group 32, on the routed experts (the text_config's
    # quantization_config) -> `w4a16`.
    "moonshotai/Kimi-K2.5": ("kimi-k2.5", "w4a16"),
    # The checkpoint's own preset: its quantization_config keeps DeltaNet and the shared experts in bf16.
    "RedHatAI/Qwen3.5-397B-A17B-FP8-dynamic": ("qwen3.5-397b-a17b-fp8-dynamic", "fp8-channel"),
    "google/gemma-4-31B-it": ("gemma-4-31b-it", "bf16"),
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8": ("nvidia-nemotron-3-nano-30b-a3b", "fp8"),
}
NOT_MODELLED = {}
GPUS = {"H200": "h200", "B200": "b200", "MI300X": "mi300x"}


# Appended to the source's text: what this script adds to each scenario beyond the settings, and why.
SCENARIO_NOTES = " (6) vramcalc's 'scenario' of each record (added in this project): vllm_sampler 'sort' for releases before v0.17 (from log_config.vllm_version): vLLM PR #33538 (commit c656ba3b4, 2026-02-17, after the v0.16.0 branch point) replaced the sampler's full-vocabulary sort with a Triton top-k/top-p kernel from v0.17. (7) vramcalc's scenario of each MI300X record (added in this project): vllm_rocm_load_measure 'total-free', because every MI300X record is from vLLM v0.11.2 to v0.18.0, between PR #12624 (2025-02-11, ROCm's get_current_memory_usage becomes total - free of torch.cuda.mem_get_info) and PR #39801 (2026-04-27, back to empty_cache + max_memory_allocated). vllm_rocm_aiter true only for the v0.13.1.dev8+g2841a84ac Qwen3-VL-30B-A3B record: no record states VLLM_ROCM_USE_AITER, and of the three settings only AITER on reproduces that build's +1.61 GiB over the H200 figure (AITER off: +20.7 GiB as in the rhai builds; no MoE padding: +0.04 GiB); its Ministral and Llama records, which have no bf16 MoE, match the rhai builds to 0.03 GiB. docs/methodology.md, 'vLLM on AMD GPUs'."


def before(version, minor):
    """Whether "v0.MINOR..." is an earlier release than v0.`minor` (rhai and dev builds count as their release)."""
    return int(version.lstrip("v").split(".")[1]) < minor


def runtime_args(text):
    out = {}
    for part in text.split(";"):
        k, _, v = part.strip().partition(":")
        if k.strip():
            out[k.strip()] = v.strip()
    return out


def scenario(rec):
    meta, cfg = rec["csv_metadata"], rec["log_config"]
    hub = meta["model"]
    if hub in NOT_MODELLED:
        return None, NOT_MODELLED[hub]
    preset, weights = MODELS[hub]
    args = runtime_args(meta["runtime_args"])
    tp = int(args.get("tensor-parallel-size", cfg["tensor_parallel_size"]))
    assert tp == cfg["tensor_parallel_size"], rec["id"]
    max_len = int(cfg["max_seq_len"])
    s = {
        "model": preset,
        "model_hub_id": hub,
        "workload": "infer",
        "framework": "vllm",
        "gpu": GPUS[meta["accelerator"]],
        "num_gpus": tp,
        "tp": tp,
        "weights": weights,
        "batch": 1,
        "prompt_len": max_len - 1,
        "gen_len": 1,
        "gpu_memory_utilization": float(args.get("gpu-memory-utilization", "0.9")),
        "max_model_len": max_len,
        "max_num_batched_tokens": int(args.get("max-num-batched-tokens", "8192")),
        "max_num_seqs": int(args.get("max-num-seqs", "1024")),
    }
    kv = args.get("kv-cache-dtype", cfg["kv_cache_dtype"])
    if kv in ("fp8", "fp8_e4m3"):
        s["kv_dtype"] = "fp8"
    extra = {"vllm_version": cfg["vllm_version"]}
    if args.get("enable-expert-parallel") == "True":
        extra["enable_expert_parallel"] = True
    if args.get("mm-encoder-tp-mode") == "data":  # the vision tower whole on every rank (vLLM's default shards it)
        s["vllm_mm_encoder_dp"] = True
    if args.get("language-model-only") == "True":  # no vision tower is built or loaded
        s["vllm_language_model_only"] = True
    s["extra"] = extra
    version = cfg["vllm_version"]
    if before(version, 17):  # caveat 6: the sampler's full-vocabulary sort until PR #33538
        s["vllm_sampler"] = "sort"
    if s["gpu"] == "mi300x":  # caveat 7: ROCm's total - free loading figure from PR #12624 until PR #39801
        assert before(version, 20), rec["id"]
        s["vllm_rocm_load_measure"] = "total-free"
        if "dev8" in version and hub == "Qwen/Qwen3-VL-30B-A3B-Instruct":
            s["vllm_rocm_aiter"] = True
    return s, None


def main():
    src = json.load(open(sys.argv[1]))
    out = {"source": src["source"] + SCENARIO_NOTES, "records": []}
    for rec in src["records"]:
        s, why = scenario(rec)
        r = dict(rec)
        r["scenario"] = s
        if why:
            r["why"] = why
        out["records"].append(r)
    with open("tests/data/vllm_startup_logs.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
