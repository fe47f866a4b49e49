#!/usr/bin/env python3
"""CPU dry run of the GPU measurement matrix (a CTest: tests/CMakeLists.txt).

For every scenario of tools/measure/matrix.json:
  1. mapping (pure Python, always runs): the scenario maps to real framework settings — load dtype and
     autocast per precision, a real optimizer class with arguments its constructor takes, a real
     attn_implementation, peft.LoraConfig fields, the reentrant checkpointing HF uses;
  2. CLI (with --cli): `vramcalc estimate FILE --json` accepts it without warnings and the bill fits the
     scenario's GPU with room for the estimator's known error; tests/data/measured_local.json passes
     `vramcalc validate` and each of its entries carries a matrix scenario and the script version;
  3. meta-device build (only when torch and transformers import): the model is built on the meta device
     from its config.json, its parameter count equals `vramcalc inspect`, and with peft the LoRA targets
     exist and the trainable count equals the bill's trainable_parameters. Reported as not run otherwise.

  python3 tools/measure/test_dry_run.py [--cli build/x/cli/vramcalc] [--require-meta]
"""

import argparse
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mapping  # noqa: E402

ROOT = mapping.REPO_ROOT
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


# Constructor arguments of the optimizers (torch/optim/adamw.py, torch/optim/sgd.py,
# bitsandbytes/optim/adamw.py, transformers/optimization.py); replaced by the real signature when
# the package imports.
KNOWN_KWARGS = {
    "torch.optim.AdamW": {"lr", "betas", "eps", "weight_decay", "amsgrad", "foreach", "maximize", "capturable",
                          "differentiable", "fused"},
    "torch.optim.SGD": {"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach",
                        "differentiable", "fused"},
    "bitsandbytes.optim.AdamW8bit": {"lr", "betas", "eps", "weight_decay", "amsgrad", "optim_bits", "args",
                                     "min_8bit_size", "percentile_clipping", "block_wise", "is_paged"},
    "bitsandbytes.optim.PagedAdamW8bit": {"lr", "betas", "eps", "weight_decay", "amsgrad", "optim_bits", "args",
                                          "min_8bit_size", "percentile_clipping", "block_wise"},
    "transformers.optimization.Adafactor": {"lr", "eps", "clip_threshold", "decay_rate", "beta1", "weight_decay",
                                            "scale_parameter", "relative_step", "warmup_init"},
}
# peft.LoraConfig fields the mapping uses (peft/tuners/lora/config.py).
LORA_FIELDS = {"r", "lora_alpha", "lora_dropout", "target_modules", "bias", "task_type", "modules_to_save", "use_dora"}
ATTN = {"eager", "sdpa", "flash_attention_2"}  # transformers attn_implementation values


def real_kwargs(cls_path):
    mod, name = cls_path.rsplit(".", 1)
    try:
        cls = getattr(__import__(mod, fromlist=[name]), name)
    except Exception:
        return KNOWN_KWARGS[cls_path], False
    return set(inspect.signature(cls.__init__).parameters) - {"self", "params"}, True


def check_mapping(items, presets):
    seen = {}
    for it in items:
        sid, s = it["id"], it["scenario"]
        try:
            st = mapping.plan(s, presets, "adamw_torch")
        except (mapping.Unsupported, mapping.BadScenario) as e:
            check(False, "%s: mapping failed: %s" % (sid, e))
            continue
        seen[sid] = st
        check(st["attn_implementation"] in ATTN, "%s: attn_implementation %r" % (sid, st["attn_implementation"]))
        if st["workload"] == "infer":
            check(st["generate"]["max_new_tokens"] == s["gen_len"] >= 1, "%s: generate length" % sid)
            continue
        prec = s["precision"]
        want = {"fp32": ("float32", None), "bf16-mixed": ("float32", "bfloat16"), "fp16-mixed": ("float32", "float16"),
                "bf16": ("bfloat16", None), "fp16": ("float16", None)}[prec]
        if s["method"] == "qlora":
            check(st["quantization"] and st["quantization"]["bits"] in (4, 8) and st["prepare_model_for_kbit_training"],
                  "%s: qlora needs a bitsandbytes base and prepare_model_for_kbit_training" % sid)
            check(st["quantization"].get("double_quant") == (s["quantization"] == "nf4-dq") or
                  st["quantization"]["bits"] == 8, "%s: double quantisation flag" % sid)
            want = ("bfloat16", want[1])
        check((st["load_dtype"], st["autocast_dtype"]) == want,
              "%s: precision %s mapped to %s/%s" % (sid, prec, st["load_dtype"], st["autocast_dtype"]))
        opt = st["optimizer"]
        allowed, _ = real_kwargs(opt["class"])
        check(set(opt["kwargs"]) <= allowed, "%s: %s does not take %s" % (sid, opt["class"], set(opt["kwargs"]) - allowed))
        ck = st["checkpointing"]
        check(ck["enabled"] == (s["checkpointing"] == "full") and ck["use_reentrant"] is True,
              "%s: checkpointing mapping" % sid)
        check(ck["enable_input_require_grads"] == (ck["enabled"] and s["method"] != "full"),
              "%s: frozen embeddings under reentrant checkpointing need enable_input_require_grads" % sid)
        check(st["loss"]["kind"] == s["loss"] and (st["loss"]["chunks"] == 8) == (s["loss"] == "chunked"),
              "%s: loss mapping" % sid)
        if s["method"] in ("lora", "qlora"):
            lo = st["lora"]
            check(set(lo) <= LORA_FIELDS, "%s: LoraConfig fields %s" % (sid, set(lo) - LORA_FIELDS))
            check(lo["r"] == s["lora"]["rank"] and lo["lora_alpha"] == s["lora"]["alpha"] and
                  lo["lora_dropout"] == s["lora"]["dropout"], "%s: LoRA rank/alpha/dropout" % sid)
        else:
            check(st["lora"] is None, "%s: no LoRA for method %s" % (sid, s["method"]))
    # Bad input is refused with the field named.
    for bad, field in (({"model": "qwen2.5-0.5b", "precision": "bf17"}, "precision"),
                       ({"model": "nope"}, "model"), ({"model": "qwen2.5-0.5b", "micro_batch": 0}, "micro_batch")):
        try:
            mapping.plan(bad, presets)
            check(False, "bad scenario %r accepted" % bad)
        except mapping.BadScenario as e:
            check(str(e).startswith(field), "bad scenario message %r names %s" % (str(e), field))
    try:
        mapping.plan({"model": "qwen2.5-0.5b", "framework": "torchtune"}, presets)
        check(False, "framework torchtune should be reported unsupported")
    except mapping.Unsupported:
        pass
    return seen


def check_axes(items):
    """The matrix covers every axis the issue names."""
    tr = [i["scenario"] for i in items if i["scenario"]["workload"] == "train"]
    inf = [i["scenario"] for i in items if i["scenario"]["workload"] == "infer"]
    check(len(items) >= 60, "matrix has %d scenarios, needs >= 60" % len(items))
    check(len({i["id"] for i in items}) == len(items), "matrix ids are not unique")
    for key, values in (("method", {"full", "lora", "qlora"}), ("precision", {"fp32", "bf16-mixed", "bf16"}),
                        ("optimizer", {"adamw", "sgd", "adamw-8bit"}), ("attention", {"eager", "sdpa"}),
                        ("checkpointing", {"none", "full"}), ("loss", {"standard", "chunked"})):
        have = {s[key] for s in tr}
        check(values <= have, "matrix lacks %s values %s" % (key, values - have))
    seqs = {s["seq_len"] for s in tr}
    mbs = {s["micro_batch"] for s in tr}
    check(min(seqs) <= 256 and max(seqs) >= 8192, "seq_len range %s" % sorted(seqs))
    check(min(mbs) == 1 and max(mbs) >= 16, "micro_batch range %s" % sorted(mbs))
    check(len({(s["prompt_len"], s["batch"]) for s in inf}) >= 4, "inference needs several contexts")
    total = sum(i["expected_s"] for i in items)
    check(total <= 1500, "expected matrix time %.0f s exceeds 25 min on one H100" % total)


def run_cli(cli, args):
    p = subprocess.run([cli] + args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check_cli(cli, items):
    bills = {}
    with tempfile.TemporaryDirectory() as d:
        for it in items:
            path = os.path.join(d, "s.json")
            with open(path, "w") as f:
                json.dump(it["scenario"], f)
            rc, out, err = run_cli(cli, ["estimate", path, "--json"])
            if not check(rc == 0, "%s: vramcalc estimate exit %d: %s" % (it["id"], rc, err.strip())):
                continue
            check("warning" not in err, "%s: vramcalc warns: %s" % (it["id"], err.strip()))
            b = json.loads(out)
            bills[it["id"]] = b
            # e.g. "no module matches the LoRA targets": PEFT would refuse such a scenario on the GPU.
            check(not b["warnings"], "%s: the bill warns: %s" % (it["id"], b["warnings"]))
            pg = b["per_gpu"]
            check(pg["peak_allocated_bytes"] > 0, "%s: zero estimate" % it["id"])
            # Room for the estimator's known underestimates (QLoRA up to 35 %, docs/methodology.md §8).
            check(pg["device_bytes"] <= 0.8 * b["gpu"]["memory_bytes"],
                  "%s: estimate %.1f GiB leaves too little room on %s" % (it["id"], pg["device_bytes"] / 2**30,
                                                                          b["gpu"]["name"]))
    # The measured entries: validate runs them; each carries a matrix scenario and the script version.
    local = os.path.join(ROOT, "tests", "data", "measured_local.json")
    rc, out, err = run_cli(cli, ["validate", local, "--json"])
    if check(rc == 0, "vramcalc validate measured_local.json exit %d: %s" % (rc, err.strip())):
        rep = json.loads(out)
        for e in rep["entries"]:
            check(e["status"] not in ("error", "no-scenario", "skipped"),
                  "measured_local %s: %s %s" % (e["id"], e["status"], e.get("message", "")))
        print("measured_local.json: %d entries, %d compared, median %.1f %%, p90 %.1f %%" % (
            len(rep["entries"]), rep["count"], rep["median_abs_pct_error"], rep["p90_abs_pct_error"]))
    with open(local) as f:
        entries = json.load(f)
    by_scenario = [json.dumps(dict(i["scenario"], gpu=None), sort_keys=True) for i in items]
    for e in entries:
        check(e.get("script_version") and "tools/measure" in e.get("source", ""), "%s: no script version" % e.get("id"))
        key = json.dumps(dict(e["scenario"], gpu=None), sort_keys=True)
        check(key in by_scenario, "%s: scenario is not one of matrix.json's" % e.get("id"))
    return bills


def check_meta(items, presets, cli, bills, require):
    try:
        import torch
        import transformers  # noqa: F401
    except Exception as e:
        msg = "meta-device build: NOT RUN (%s: %s)" % (type(e).__name__, e)
        print(msg)
        check(not require, msg)
        return
    import model_build
    try:
        import peft
    except Exception:
        peft = None
    built = {}
    for it in items:
        s = it["scenario"]
        st = mapping.plan(s, presets, "adamw_torch")
        cfg, label = mapping.resolve_config(s, presets)
        key = json.dumps(cfg, sort_keys=True)
        if key not in built:
            config = model_build.hf_config(cfg, st)
            with torch.device("meta"):
                model = model_build.from_config(config, model_build.torch_dtype(torch, "bfloat16"), st["attn_implementation"])
            n = sum(p.numel() for p in model.parameters())
            if cli and isinstance(s["model"], str):
                rc, out, _ = run_cli(cli, ["inspect", s["model"], "--json"])
                check(rc == 0 and json.loads(out)["parameters"] == n,
                      "%s: meta model has %d parameters, vramcalc inspect says %s" % (label, n, out[:80]))
            built[key] = True
        else:
            config = model_build.hf_config(cfg, st)
            with torch.device("meta"):
                model = model_build.from_config(config, model_build.torch_dtype(torch, "bfloat16"), st["attn_implementation"])
        if st["workload"] == "train" and st["lora"] is not None and peft is not None:
            pm = peft.get_peft_model(model, peft.LoraConfig(**st["lora"]))
            trainable = sum(p.numel() for p in pm.parameters() if p.requires_grad)
            if it["id"] in bills:
                check(trainable == bills[it["id"]]["model"]["trainable_parameters"],
                      "%s: PEFT trains %d parameters, the bill says %d" % (
                          it["id"], trainable, bills[it["id"]]["model"]["trainable_parameters"]))
        if st["workload"] == "train" and st["method"] == "freeze":
            check(len(model_build.decoder_layers(model, st)) == st["layers"], "%s: decoder layers" % it["id"])
    print("meta-device build: %d models built, %s" % (len(built), "LoRA checked with peft %s" % peft.__version__
                                                       if peft else "peft not importable: LoRA targets not checked"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", help="path to the vramcalc binary (checks each scenario through the CLI)")
    ap.add_argument("--matrix", default=os.path.join(HERE, "matrix.json"))
    ap.add_argument("--require-meta", action="store_true", help="fail when the meta-device build cannot run")
    a = ap.parse_args()
    t0 = time.time()
    with open(a.matrix) as f:
        items = json.load(f)["scenarios"]
    presets = mapping.load_presets()
    check_axes(items)
    if os.path.abspath(a.matrix) == os.path.join(HERE, "matrix.json"):
        import make_matrix
        fresh = make_matrix.scenarios()
        for i in fresh:
            i["expected_s"] = make_matrix.time_estimate(i["scenario"])
        check(fresh == items, "matrix.json differs from what make_matrix.py writes: run python3 tools/measure/make_matrix.py")
    seen = check_mapping(items, presets)
    print("mapping: %d/%d scenarios map to framework settings" % (len(seen), len(items)))
    bills = check_cli(a.cli, items) if a.cli else {}
    if a.cli:
        print("CLI: %d/%d scenarios estimated" % (len(bills), len(items)))
    check_meta(items, presets, a.cli, bills, a.require_meta)
    for f in failures:
        print("FAIL: " + f)
    print("%s in %.1f s" % ("FAILED" if failures else "passed", time.time() - t0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
