"""The model measure.py runs: built from a preset's config.json with random weights on the GPU (transformers'
from_config), quantised with bitsandbytes the way transformers' integration does at load time."""

import contextlib

import mapping


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
