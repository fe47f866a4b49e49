#!/usr/bin/env python3
"""Writes the header-only Hub checkpoints the page's browser test serves with HTTP Range (README.md here).

Each file is a real safetensors header (huggingface/safetensors, docs "Format": an 8-byte little-endian
length, then the JSON header) of a real model's tensor list, with no data after it: the data region is
virtual (data_offsets run past the end of the file), which a Range server answers without the bytes
existing and the readers never touch. Shapes come from the models' config.json (presets/models/), names
and dtypes from the quantisers' documented layouts (sources in README.md). Run it from anywhere; it
rewrites the files next to it.
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BITS = {"BF16": 16, "F16": 16, "F32": 32, "I32": 32, "F8_E4M3": 8}


def elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def write_safetensors(path, tensors):
    """tensors: [(name, dtype, shape)] in file order; returns {name: bytes}."""
    header, offset, sizes = {"__metadata__": {"format": "pt"}}, 0, {}
    for name, dtype, shape in tensors:
        size = elements(shape) * BITS[dtype] // 8
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        sizes[name] = size
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # safetensors pads the header with spaces to 8 bytes
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
    return sizes


def config(preset, **extra):
    with open(os.path.join(HERE, "../../../../presets/models", preset + ".json")) as f:
        c = json.load(f)["config"]
    c.update(extra)
    return c


def decoder_linears(c):
    """(module, in, out, has_bias) of one decoder layer (Llama/Qwen2 layout, transformers modeling_*)."""
    h, i = c["hidden_size"], c["intermediate_size"]
    hd = h // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * hd
    bias = c["model_type"] == "qwen2"  # Qwen2 q/k/v carry a bias, o_proj none
    return [("self_attn.q_proj", h, h, bias), ("self_attn.k_proj", h, kv, bias), ("self_attn.v_proj", h, kv, bias),
            ("self_attn.o_proj", h, h, False), ("mlp.gate_proj", h, i, False), ("mlp.up_proj", h, i, False),
            ("mlp.down_proj", i, h, False)]


def model_tensors(c, dtype, linear):
    """Every tensor of a decoder-only checkpoint; linear(prefix, in, out, bias) gives a linear's tensors."""
    h = c["hidden_size"]
    out = [("model.embed_tokens.weight", dtype, [c["vocab_size"], h])]
    for n in range(c["num_hidden_layers"]):
        p = f"model.layers.{n}."
        out += [(p + "input_layernorm.weight", dtype, [h]), (p + "post_attention_layernorm.weight", dtype, [h])]
        for module, fan_in, fan_out, bias in decoder_linears(c):
            out += linear(p + module, fan_in, fan_out, bias)
    out.append(("model.norm.weight", dtype, [h]))
    if not c.get("tie_word_embeddings", False):
        out.append(("lm_head.weight", dtype, [c["vocab_size"], h]))
    return out


def save(folder, cfg, files):
    d = os.path.join(HERE, folder)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    weight_map, total = {}, 0
    for name, tensors in files:
        sizes = write_safetensors(os.path.join(d, name), tensors)
        for t, size in sizes.items():
            weight_map[t] = name
            total += size
    if len(files) > 1:
        with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
            f.write("\n")
    print(f"{folder}: {len(weight_map)} tensors, {total} bytes")


# bf16: Qwen/Qwen2.5-0.5B, one model.safetensors (tied embeddings: no lm_head).
qwen = config("qwen2.5-0.5b")
bf16 = lambda p, i, o, b: [(p + ".weight", "BF16", [o, i])] + ([(p + ".bias", "BF16", [o])] if b else [])
save("Qwen/Qwen2.5-0.5B", qwen, [("model.safetensors", model_tensors(qwen, "BF16", bf16))])

# GPTQ int4, group 128 (Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4): auto-gptq's QuantLinear buffers, qweight
# int32 [in/8, out], qzeros int32 [in/group, out/8], scales fp16 [in/group, out], g_idx int32 [in], the
# bias in fp16 where the layer has one; everything else fp16.
gq = dict(qwen, torch_dtype="float16", max_position_embeddings=32768, eos_token_id=151645,
          quantization_config={"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True})
def gptq(p, i, o, b, g=128):
    t = [(p + ".qweight", "I32", [i // 8, o]), (p + ".qzeros", "I32", [i // g, o // 8]), (p + ".scales", "F16", [i // g, o]),
         (p + ".g_idx", "I32", [i])]
    return t + ([(p + ".bias", "F16", [o])] if b else [])
save("Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4", gq, [("model.safetensors", model_tensors(qwen, "F16", gptq))])

# FP8, static activation scales (neuralmagic/Meta-Llama-3-8B-Instruct-FP8, AutoFP8's layout): each linear's
# weight F8_E4M3 [out, in], input_scale and weight_scale F32 scalars; embeddings, norms and lm_head bf16.
# Two shards split after layer 15 (the real repository's split may differ; the sums do not).
llama = config("llama-3-8b")
fq = dict(llama, quantization_config={"quant_method": "fp8", "activation_scheme": "static"})
fp8 = lambda p, i, o, b: [(p + ".weight", "F8_E4M3", [o, i]), (p + ".input_scale", "F32", []), (p + ".weight_scale", "F32", [])]
every = model_tensors(llama, "BF16", fp8)
cut = next(k for k, t in enumerate(every) if t[0].startswith("model.layers.16."))
save("neuralmagic/Meta-Llama-3-8B-Instruct-FP8", fq,
     [("model-00001-of-00002.safetensors", every[:cut]), ("model-00002-of-00002.safetensors", every[cut:])])
