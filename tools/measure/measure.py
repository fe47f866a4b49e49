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
import contextlib
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mapping  # noqa: E402

SCRIPT_VERSION = "0.1"


def versions():
    import torch
    out = {"python": sys.version.split()[0], "torch": torch.__version__, "cuda": torch.version.cuda}
    for name in ("transformers", "peft", "accelerate", "bitsandbytes"):
        try:
            out[name] = __import__(name).__version__
        except Exception:  # not installed: recorded as absent
            out[name] = None
    return out


def trainer_default_optim():
    """TrainingArguments().optim of the installed transformers ("adamw_torch" or "adamw_torch_fused")."""
    try:
        import inspect
        from transformers import TrainingArguments
        default = inspect.signature(TrainingArguments.__init__).parameters["optim"].default
        default = getattr(default, "value", default)
        if isinstance(default, str) and default.startswith("adamw"):
            return default
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            return str(getattr(TrainingArguments(output_dir=d, report_to=[]).optim, "value", "adamw_torch"))
    except Exception:
        return "adamw_torch"


class Probe:
    """torch.cuda counters and the device-level figure."""

    def __init__(self, torch):
        self.t = torch
        self.nvml = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        except Exception:
            self.nvml = None

    def sync(self):
        self.t.cuda.synchronize()

    def now(self):
        self.sync()
        free, total = self.t.cuda.mem_get_info()
        d = {"allocated": self.t.cuda.memory_allocated(), "reserved": self.t.cuda.memory_reserved(),
             "device_used": total - free}
        p = self.process_bytes()
        if p is not None:
            d["process_nvml"] = p
        return d

    def process_bytes(self):
        if self.nvml is None:
            return None
        try:
            for proc in self.nvml.nvmlDeviceGetComputeRunningProcesses(self.handle):
                if proc.pid == os.getpid() and proc.usedGpuMemory is not None:
                    return int(proc.usedGpuMemory)
        except Exception:
            return None
        return None

    def reset_peak(self):
        self.sync()
        self.t.cuda.reset_peak_memory_stats()

    def peak(self):
        self.sync()
        return {"max_allocated": self.t.cuda.max_memory_allocated(), "max_reserved": self.t.cuda.max_memory_reserved()}


def torch_dtype(torch, name):
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def hf_config(cfg, settings):
    from transformers import AutoConfig
    d = dict(cfg)
    model_type = d.pop("model_type")
    for k in ("architectures", "torch_dtype", "transformers_version", "_name_or_path", "name"):
        d.pop(k, None)
    config = AutoConfig.for_model(model_type, **d)
    config.use_cache = settings["workload"] == "infer"
    return config


def from_config(config, dtype, attn):
    from transformers import AutoModelForCausalLM
    try:
        return AutoModelForCausalLM.from_config(config, torch_dtype=dtype, attn_implementation=attn)
    except TypeError:  # transformers versions that renamed torch_dtype to dtype
        return AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attn)


def build_model(torch, cfg, settings):
    """The model with random weights on the GPU, quantised when the settings say so."""
    config = hf_config(cfg, settings)
    dtype = torch_dtype(torch, settings["load_dtype"])
    attn = settings["attn_implementation"]
    quant = settings.get("quantization")
    if quant is None:
        # Built directly on the GPU: transformers' own random init (_init_weights) runs there.
        with torch.device("cuda"):
            model = from_config(config, dtype, attn)
        return model.to("cuda")
    # Quantised: a CPU skeleton without init (no 16-bit copy of the whole model on the GPU), then each
    # decoder nn.Linear is filled with N(0, 0.02) on the GPU and replaced by its bitsandbytes layer, as
    # transformers' bitsandbytes integration does at load time (lm_head kept, get_keys_to_not_convert).
    with skip_random_init(torch):
        model = from_config(config, dtype, attn)
    quantize_linears(torch, model, quant, dtype, std=getattr(config, "initializer_range", 0.02))
    # Everything left (embeddings, norms, lm_head, buffers) moves to the GPU and is re-initialised there.
    for mod in model.modules():
        if _is_bnb(mod):
            continue
        for name, p in list(mod._parameters.items()):
            if p is None or p.device.type == "cuda":
                continue
            p.data = p.data.to("cuda")
            if p.dim() >= 2:
                p.data.normal_(0.0, getattr(config, "initializer_range", 0.02))
            else:
                p.data.fill_(1.0 if "norm" in type(mod).__name__.lower() or "ln" in name else 0.0)
        for name, b in list(mod._buffers.items()):
            if b is not None and b.device.type != "cuda":
                mod._buffers[name] = b.to("cuda")
    for attr in ("is_loaded_in_4bit", "is_loaded_in_8bit"):
        try:
            setattr(model, attr, attr.endswith(str(quant["bits"]) + "bit"))
        except Exception:
            pass
    try:
        model.is_quantized = True
    except Exception:
        pass
    return model


@contextlib.contextmanager
def skip_random_init(torch):
    """No random draws while the CPU skeleton is built (a 32B model would take minutes on the CPU).
    transformers' own no_init_weights moved between versions, so the RNG fills are stubbed directly:
    torch.nn.init's functions and the Tensor methods HF's _init_weights calls. The decoder linears are
    filled on the GPU afterwards; the rest is re-initialised on the GPU in build_model."""
    noop = lambda t, *a, **k: t  # noqa: E731
    saved_init = {n: getattr(torch.nn.init, n) for n in ("normal_", "uniform_", "trunc_normal_", "kaiming_uniform_",
                                                         "kaiming_normal_", "xavier_uniform_", "xavier_normal_",
                                                         "orthogonal_") if hasattr(torch.nn.init, n)}
    # Tensor.normal_/uniform_ live on torch._C.TensorBase: shadow them on torch.Tensor, then remove the shadow.
    saved_tensor = {n: torch.Tensor.__dict__.get(n) for n in ("normal_", "uniform_")}
    try:
        for n in saved_init:
            setattr(torch.nn.init, n, noop)
        for n in saved_tensor:
            setattr(torch.Tensor, n, noop)
        yield
    finally:
        for n, f in saved_init.items():
            setattr(torch.nn.init, n, f)
        for n, f in saved_tensor.items():
            if f is None:
                delattr(torch.Tensor, n)
            else:
                setattr(torch.Tensor, n, f)


def _is_bnb(mod):
    return type(mod).__module__.startswith("bitsandbytes")


def quantize_linears(torch, model, quant, dtype, std):
    import bitsandbytes as bnb
    skip = set(quant.get("skip_modules", ["lm_head"]))
    compute = torch_dtype(torch, quant.get("compute_dtype", "float16"))
    for parent in list(model.modules()):
        for child_name, child in list(parent.named_children()):
            if type(child) is not torch.nn.Linear or child_name in skip:
                continue
            w = torch.empty(child.out_features, child.in_features, dtype=dtype, device="cuda").normal_(0.0, std)
            bias = child.bias is not None
            if quant["bits"] == 4:
                new = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=bias, compute_dtype=compute,
                                        compress_statistics=quant["double_quant"], quant_type=quant["quant_type"],
                                        device="meta")
                kw = dict(requires_grad=False, compress_statistics=quant["double_quant"], quant_type=quant["quant_type"])

                def params4bit(data):
                    try:
                        return bnb.nn.Params4bit(data, module=new, **kw).to("cuda")  # quantises on the move
                    except TypeError:  # bitsandbytes before 0.43 has no module argument
                        return bnb.nn.Params4bit(data, **kw).to("cuda")
                param = params4bit(w)
                if param.dtype not in (torch.uint8, torch.int8):  # older bitsandbytes quantise only from CPU data
                    param = params4bit(w.cpu())
                new.weight = param
            else:
                new = bnb.nn.Linear8bitLt(child.in_features, child.out_features, bias=bias, has_fp16_weights=False,
                                          threshold=quant["threshold"], device="meta")
                # Int8Params quantises in .cuda() from CPU data (bitsandbytes nn/modules.py).
                new.weight = bnb.nn.Int8Params(w.cpu(), requires_grad=False, has_fp16_weights=False).to("cuda")
            if new.weight.dtype not in (torch.uint8, torch.int8):
                raise RuntimeError("bitsandbytes did not quantise %s (dtype %s)" % (child_name, new.weight.dtype))
            if bias:
                new.bias = torch.nn.Parameter(torch.zeros(child.out_features, dtype=dtype, device="cuda"),
                                              requires_grad=False)
            del w
            setattr(parent, child_name, new)
            del child


def decoder_layers(model, settings):
    path = mapping.LAYER_PATHS.get(settings["model_type"], "model.layers")
    obj = model
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def make_optimizer(torch, params, opt):
    kw = dict(opt["kwargs"])
    if "betas" in kw:
        kw["betas"] = tuple(kw["betas"])
    cls = opt["class"]
    if cls == "torch.optim.AdamW":
        return torch.optim.AdamW(params, **kw)
    if cls == "torch.optim.SGD":
        return torch.optim.SGD(params, **kw)
    if cls.startswith("bitsandbytes."):
        import bitsandbytes as bnb
        return getattr(bnb.optim, cls.rsplit(".", 1)[1])(params, **kw)
    if cls == "transformers.optimization.Adafactor":
        from transformers.optimization import Adafactor
        return Adafactor(params, **kw)
    raise mapping.Unsupported("optimizer class %s" % cls)


def chunked_loss(torch, model, ids, labels, chunks):
    """torchtune-style chunked cross-entropy (CEWithChunkedOutputLoss): the output projection per chunk of
    positions, all chunks' logits alive when the loss starts, each chunk upcast to fp32 on its own."""
    causal = model
    while not hasattr(causal, "lm_head") and hasattr(causal, "base_model") and causal.base_model is not causal:
        causal = causal.base_model
    if not hasattr(causal, "lm_head") and hasattr(causal, "model"):
        causal = causal.model
    out = causal.get_decoder()(input_ids=ids, use_cache=False)
    hidden = out[0] if isinstance(out, tuple) else out.last_hidden_state
    del out
    logits = [causal.lm_head(h) for h in hidden.chunk(chunks, dim=1)]
    del hidden
    # The HF shift: position t predicts token t+1; the last position has no target.
    shifted = torch.nn.functional.pad(labels, (0, 1), value=-100)[:, 1:]
    targets = shifted.chunk(chunks, dim=1)
    total = None
    for lg, tg in zip(logits, targets):
        part = torch.nn.functional.cross_entropy(lg.float().reshape(-1, lg.shape[-1]), tg.reshape(-1),
                                                 ignore_index=-100, reduction="sum")
        total = part if total is None else total + part
    del logits
    return total / (shifted != -100).sum()


def setup_training(torch, model, settings):
    if settings["method"] in ("full", "freeze"):
        for p in model.parameters():
            p.requires_grad_(settings["method"] == "full")
        if settings["method"] == "freeze":
            for layer in list(decoder_layers(model, settings))[-settings["trainable_layers"]:]:
                for p in layer.parameters():
                    p.requires_grad_(True)
    ck = settings["checkpointing"]
    if settings["prepare_model_for_kbit_training"]:
        from peft import prepare_model_for_kbit_training
        try:
            model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=ck["enabled"],
                                                    gradient_checkpointing_kwargs={"use_reentrant": ck["use_reentrant"]})
        except TypeError:
            model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=ck["enabled"])
    elif ck["enabled"]:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": ck["use_reentrant"]})
        if ck["enable_input_require_grads"]:
            model.enable_input_require_grads()
    if settings["lora"] is not None:
        from peft import LoraConfig, get_peft_model
        cfg = LoraConfig(**settings["lora"])
        try:
            model = get_peft_model(model, cfg, autocast_adapter_dtype=settings["peft_autocast_adapter_dtype"])
        except TypeError:  # PEFT before 0.12 has no autocast_adapter_dtype (adapters follow the base dtype)
            model = get_peft_model(model, cfg)
    model.config.use_cache = False
    model.train()
    return model


def count_params(model):
    total = trainable = 0
    for p in model.parameters():
        n = p.numel()
        # bitsandbytes packs two 4-bit weights per uint8 element
        if type(p).__name__ == "Params4bit":
            n = n * 2
        total += n
        if p.requires_grad:
            trainable += n
    return total, trainable


def run_train(torch, model, settings, probe, steps, warmup):
    mb, seq, vocab = settings["micro_batch"], settings["seq_len"], settings["vocab_size"]
    params = [p for p in model.parameters() if p.requires_grad]
    opt = make_optimizer(torch, params, settings["optimizer"])
    ac = settings["autocast_dtype"]
    scaler = torch.cuda.amp.GradScaler() if settings["grad_scaler"] else None
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)

    def batch():
        return torch.randint(0, vocab, (mb, seq), device="cuda", generator=gen)

    def forward_loss(ids):
        ctx = torch.autocast("cuda", dtype=torch_dtype(torch, ac)) if ac else contextlib.nullcontext()
        with ctx:
            if settings["loss"]["kind"] == "chunked":
                return chunked_loss(torch, model, ids, ids, settings["loss"]["chunks"])
            out = model(input_ids=ids, labels=ids, use_cache=False)
            loss = out.loss
            del out  # HF Trainer.compute_loss keeps only the loss
            return loss

    phases = {}

    def note(name, value):
        phases[name] = max(phases.get(name, 0), value)

    def step(measured):
        for _ in range(settings["grad_accum"]):
            ids = batch()
            if measured:
                probe.reset_peak()
            loss = forward_loss(ids)
            if measured:
                note("forward_peak_allocated", probe.peak()["max_allocated"])
                note("after_forward_allocated", probe.now()["allocated"])
                probe.reset_peak()
            (scaler.scale(loss) if scaler else loss).backward()
            del loss, ids
            if measured:
                note("backward_peak_allocated", probe.peak()["max_allocated"])
                note("after_backward_allocated", probe.now()["allocated"])
        if measured:
            probe.reset_peak()
        if scaler:
            scaler.unscale_(opt)
        if settings["max_grad_norm"]:
            torch.nn.utils.clip_grad_norm_(params, settings["max_grad_norm"])
        if scaler:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        if measured:
            note("optimizer_peak_allocated", probe.peak()["max_allocated"])
            note("after_optimizer_allocated", probe.now()["allocated"])
        opt.zero_grad(set_to_none=True)
        if measured:
            note("after_zero_grad_allocated", probe.now()["allocated"])
            note("max_reserved", probe.peak()["max_reserved"])

    probe.reset_peak()
    t0 = time.time()
    for _ in range(warmup):
        step(False)
    warm = probe.peak()
    for _ in range(steps):
        step(True)
    elapsed = time.time() - t0
    peak_steady = max(phases["forward_peak_allocated"], phases["backward_peak_allocated"],
                      phases["optimizer_peak_allocated"])
    return {
        "peak_allocated": max(peak_steady, warm["max_allocated"]),
        "peak_allocated_measured_steps": peak_steady,
        "peak_allocated_warmup": warm["max_allocated"],
        "peak_reserved": max(warm["max_reserved"], phases["max_reserved"]),
        "phases": phases, "steps_s": elapsed,
    }


def run_infer(torch, model, settings, probe):
    b, prompt, vocab = settings["batch"], settings["prompt_len"], settings["vocab_size"]
    model.eval()
    g = settings["generate"]
    gc_ = model.generation_config
    gc_.eos_token_id = None  # exactly gen_len new tokens
    gc_.pad_token_id = 0
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    ids = torch.randint(0, vocab, (b, prompt), device="cuda", generator=gen)
    mask = torch.ones_like(ids)
    phases = {}
    t0 = time.time()
    with torch.inference_mode():
        short = min(prompt, 16)  # warm-up: kernels and library handles, not the measured sizes
        model.generate(ids[:1, :short], attention_mask=mask[:1, :short], max_new_tokens=2, min_new_tokens=2,
                       do_sample=False, use_cache=True)
        probe.reset_peak()
        out = model.generate(ids, attention_mask=mask, max_new_tokens=1, min_new_tokens=1, do_sample=False,
                             use_cache=True)
        del out
        phases["prefill_peak_allocated"] = probe.peak()["max_allocated"]
        phases["after_prefill_allocated"] = probe.now()["allocated"]
        probe.reset_peak()
        out = model.generate(ids, attention_mask=mask, max_new_tokens=g["max_new_tokens"],
                             min_new_tokens=g["min_new_tokens"], do_sample=g["do_sample"], use_cache=g["use_cache"])
        pk = probe.peak()
        phases["generate_peak_allocated"] = pk["max_allocated"]
        phases["generated_tokens"] = int(out.shape[1] - prompt)
        del out
    return {"peak_allocated": max(phases["generate_peak_allocated"], phases["prefill_peak_allocated"]),
            "peak_reserved": torch.cuda.max_memory_reserved(), "phases": phases, "steps_s": time.time() - t0}


def gpu_name(torch):
    return torch.cuda.get_device_name(torch.cuda.current_device())


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
