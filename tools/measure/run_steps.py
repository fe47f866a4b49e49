"""What measure.py times and measures once the model is built: the training set-up (freezing, checkpointing,
PEFT), the optimizer steps with the allocator's peak per phase, and an HF generate for inference."""

import contextlib
import time

import mapping
from model_build import decoder_layers, torch_dtype


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
