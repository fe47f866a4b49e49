#!/usr/bin/env python3
"""Measure the peak GPU memory of one scenario on a real GPU (vramcalc tools/measure).

Runs on the GPU machine (torch, transformers, peft, accelerate; bitsandbytes when installed). Nothing is
downloaded: the model is built from the preset's config.json (presets/models/*.json) with random
weights. For training it runs warm-up + measured optimizer steps; for inference an HF generate. It
prints one reference-run entry (shared/spec/scenario.md, "Reference runs") as JSON and, with --out,
appends it to a JSON array file.

  python3 tools/measure/measure.py SCENARIO.json [--id ID] [--out results.json] [--steps 2]

One scenario per process: the CUDA context, the allocator's counters and the device figure then belong
to this scenario alone (run_matrix.py starts one process per scenario).
"""

import argparse
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mapping  # noqa: E402
from gpu_probe import Probe, gpu_name, trainer_default_optim, versions  # noqa: E402
from model_build import build_model, count_params  # noqa: E402
from run_steps import run_infer, run_train, setup_training  # noqa: E402

SCRIPT_VERSION = "0.1"


def measure(entry_id, scenario, steps=2, warmup=1, presets=None):
    """Run one scenario; returns the reference-run entry (dict). Raises on unsupported scenarios."""
    import torch
    presets = presets or mapping.load_presets()
    settings = mapping.plan(scenario, presets, trainer_default_optim())
    cfg, _ = mapping.resolve_config(scenario, presets)
    needs = []
    if settings.get("quantization") is not None or \
            settings.get("optimizer", {}).get("class", "").startswith("bitsandbytes."):
        needs.append("bitsandbytes")
    if settings.get("attn_implementation") == "flash_attention_2":
        needs.append("flash_attn")
    if settings.get("lora") is not None or settings.get("prepare_model_for_kbit_training"):
        needs.append("peft")
    for pkg in needs:
        try:
            __import__(pkg)
        except Exception as e:  # reported as skipped with the reason, not as a failure
            raise mapping.Unsupported("%s is not importable on this machine (%s)" % (pkg, e))
    if settings.get("tf32"):
        torch.backends.cuda.matmul.allow_tf32 = True  # memory-neutral; only speeds fp32 matmuls
        torch.backends.cudnn.allow_tf32 = True
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # creates the context
    probe = Probe(torch)
    t0 = time.time()
    base = probe.now()  # CUDA context (+ whatever else lives on the device) before any model
    model = build_model(torch, cfg, settings)
    if settings["workload"] == "train":
        model = setup_training(torch, model, settings)
    gc.collect()
    torch.cuda.empty_cache()  # set-up transients (init, quantisation) are not part of the step
    total, trainable = count_params(model)
    after_load = probe.now()
    setup_peak = probe.peak()["max_allocated"]
    build_s = time.time() - t0
    if settings["workload"] == "train":
        r = run_train(torch, model, settings, probe, steps, warmup)
    else:
        r = run_infer(torch, model, settings, probe)
    end = probe.now()  # the caching allocator only grows after the set-up: device use at the end ~ its peak
    phases = dict(r["phases"])
    phases["after_weights_allocated"] = after_load["allocated"]
    phases["setup_peak_allocated"] = setup_peak
    dev = end.get("process_nvml") or end["device_used"]
    name = gpu_name(torch)
    entry = {
        "id": entry_id,
        "source": "vramcalc tools/measure v%s on %s" % (SCRIPT_VERSION, name),
        "scenario": scenario,
        "measured": {"bytes": int(r["peak_allocated"]), "metric": "allocated"},
        "confidence": "high",
        "notes": ("torch.cuda.max_memory_allocated over %d warm-up + %d measured steps after set-up (random "
                  "weights from the preset's config.json)" % (warmup, steps)) if settings["workload"] == "train"
                 else "torch.cuda.max_memory_allocated over HF generate (prefill + decode), random weights",
        "script_version": SCRIPT_VERSION,
        "versions": versions(),
        "gpu_name": name,
        "reserved_bytes": int(r["peak_reserved"]),
        "device_bytes": int(dev),
        "device_bytes_method": "nvml process usedGpuMemory" if end.get("process_nvml") else "cudaMemGetInfo total-free",
        "context_bytes": int(base["device_used"] - base["reserved"]),
        "non_torch_bytes_end": int(end["device_used"] - end["reserved"]),
        "phases": phases,
        "parameters": {"total": total, "trainable": trainable},
        "settings": settings,
        "timing_s": {"build": round(build_s, 2), "run": round(r["steps_s"], 2)},
    }
    if settings["workload"] == "train":
        entry["peak_allocated_measured_steps"] = int(r["peak_allocated_measured_steps"])
        entry["peak_allocated_warmup"] = int(r["peak_allocated_warmup"])
    return entry


def oom_entry(entry_id, scenario, message):
    import torch
    name = gpu_name(torch)
    return {"id": entry_id, "source": "vramcalc tools/measure v%s on %s" % (SCRIPT_VERSION, name),
            "scenario": scenario, "measured": {"oom": True}, "confidence": "high",
            "notes": "torch.cuda.OutOfMemoryError: " + message.splitlines()[0][:300],
            "script_version": SCRIPT_VERSION, "versions": versions(), "gpu_name": name}


def append_json(path, entry):
    data = []
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    data = [e for e in data if e.get("id") != entry["id"]] + [entry]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario", help="scenario JSON file (or '-' for stdin)")
    ap.add_argument("--id", default=None, help="entry id (default: the file name)")
    ap.add_argument("--out", default=None, help="append the entry to this JSON array file")
    ap.add_argument("--steps", type=int, default=2, help="measured optimizer steps (training)")
    ap.add_argument("--warmup", type=int, default=1, help="warm-up steps before measuring (training)")
    a = ap.parse_args(argv)
    text = sys.stdin.read() if a.scenario == "-" else open(a.scenario, encoding="utf-8").read()
    scenario = json.loads(text)
    entry_id = a.id or ("local-" + os.path.splitext(os.path.basename(a.scenario))[0])
    try:
        entry = measure(entry_id, scenario, a.steps, a.warmup)
    except mapping.Unsupported as e:
        print(json.dumps({"id": entry_id, "skipped": str(e)}))
        return 3
    except mapping.BadScenario as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    except Exception as e:  # torch.cuda.OutOfMemoryError is a RuntimeError subclass
        if type(e).__name__ == "OutOfMemoryError" or "out of memory" in str(e):
            entry = oom_entry(entry_id, scenario, str(e))
        else:
            raise
    if a.out:
        append_json(a.out, entry)
    print(json.dumps(entry))
    return 0


if __name__ == "__main__":
    sys.exit(main())
