# Writes the web page's copy of the presets (the C++ file cmake/embed_presets.cmake writes for the CLI,
# the desktop app and the tests), cut to what the page's readers use:
# - no "source" / "source_note" texts (nothing in the page shows them, no number depends on them);
# - no config.json keys that no reader of the core looks at (UNREAD_CONFIG_KEYS: token ids, norm epsilons,
#   RoPE settings, dropout rates, generation defaults), nor the GPU entries' "kind" and "memory_marketed";
# - no indentation (compact JSON, the values unchanged: Python writes the shortest text of each float);
# - with --cli CLI (the native CLI, a build of the same checkout): each config.json preset's spec as the CLI
#   read it (`vramcalc presets --specs`) ("spec", model_spec_json.hpp) instead of its config, so that the page starts without a config.json
#   reader (model/config_reader.hpp).
# The unread keys are 2.2 KB of the page's gzip transfer (328 353 -> 326 194 B). The estimate is the same:
# the CTest "presets: the page's copy drops only keys no reader uses" runs the native CLI on each preset's
# config with and without them (--check below).
# Usage: python3 embed_presets_page.py [--cli CLI] OUT GPUS MODEL... (the same lists as embed_presets.cmake);
#        python3 embed_presets_page.py --check CLI MODEL...: the native CLI reads each preset's config the
#        same with and without the unread keys (inspect, a training and an inference bill), else exit 1.
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

UNREAD_CONFIG_KEYS = {
    "_attn_implementation_autoset", "_name_or_path", "activation_dropout", "activation_scheme",
    "alibi", "apply_residual_connection_post_layernorm", "attention_softmax_in_fp32", "attn_dropout_prob",
    "aux_loss_alpha", "auto_map", "beta_fast", "beta_slow", "bias_dropout_fusion", "boi_token_index",
    "bos_token_id", "cache_implementation", "decoder_start_token_id", "do_sample", "dropout_rate",
    "early_stopping", "emb_dropout_prob", "embd_pdrop", "eoi_token_index", "eos_token_id", "init_std",
    "initializer_factor", "initializer_range", "layer_norm_eps", "layer_norm_epsilon", "layerdrop",
    "length_penalty", "masked_softmax_fusion", "max_window_layers", "min_length", "mscale", "mscale_all_dim",
    "no_repeat_ngram_size", "norm_eps", "norm_topk_prob", "num_beams", "offset_alibi", "onnx_safe",
    "output_past", "output_router_logits", "pad_token_id", "pretraining_tp", "rms_norm_eps", "rope_scaling",
    "rope_theta", "router_aux_loss_coef", "router_jitter_noise", "scale_attn_weights", "skip_bias_add",
    "skip_bias_add_qkv", "slow_but_exact", "summary_activation", "summary_first_dropout",
    "summary_proj_to_labels", "summary_type", "summary_use_proj", "task_specific_params", "tokenizer_class",
    "transformers_version", "unk_token_id", "use_cache", "use_dynamic_ntk", "use_flash_attn", "use_logn_attn",
}
UNREAD_GPU_KEYS = {"kind", "memory_marketed"}
SOURCE_KEYS = {"source", "source_note"}


def drop(value, keys):
    """value without the object members named in keys, at any depth."""
    if isinstance(value, dict):
        return {k: drop(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [drop(v, keys) for v in value]
    return value


def without_sources(value):
    """value without string "source"/"source_note" members, at any depth (as embed_presets.cmake cut them)."""
    if isinstance(value, dict):
        return {k: without_sources(v) for k, v in value.items() if not (k in SOURCE_KEYS and isinstance(v, str))}
    if isinstance(value, list):
        return [without_sources(v) for v in value]
    return value


def compact(value):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if ')vrc"' in text:
        sys.exit("a preset contains the raw-string delimiter )vrc\"")
    return text


def check(cli, models):
    """Each config.json with and without UNREAD_CONFIG_KEYS gives the same CLI answers."""
    cli = os.path.abspath(cli)
    runs = (["inspect", "config.json", "--json"], ["estimate", "--model", "config.json", "--json"],
            ["estimate", "--model", "config.json", "--workload", "infer", "--json"])

    def differences(tmp, path):
        """The runs whose answers differ for one preset (its two configs in folders of their own)."""
        with open(path, encoding="utf-8") as f:
            config = json.load(f).get("config")
        if not isinstance(config, dict):
            return []
        full, cut = os.path.join(tmp, "full"), os.path.join(tmp, "cut")
        os.makedirs(full), os.makedirs(cut)
        for folder, value in ((full, config), (cut, drop(config, UNREAD_CONFIG_KEYS))):
            with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
                json.dump(value, f)
        found = []
        for args in runs:
            a, b = (subprocess.run([cli] + args, cwd=d, capture_output=True, text=True) for d in (full, cut))
            if (a.returncode, a.stdout, a.stderr) != (b.returncode, b.stdout, b.stderr):
                found.append(f"{os.path.basename(path)}: `{' '.join(args)}` differs without the unread keys")
        return found

    # 2 x 3 CLI runs per preset, one preset per core at a time (about 400 runs: 24 s one after another).
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        found = list(pool.map(lambda ip: differences(os.path.join(tmp, str(ip[0])), ip[1]), enumerate(models)))
    bad = 0
    for lines in found:
        for line in lines:
            print(line)
            bad += 1
    print(f"{len(models)} presets checked, {bad} differences")
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2], sys.argv[3:]))
    args, specs = sys.argv[1:], {}
    if args[0] == "--cli":
        run = subprocess.run([args[1], "presets", "--specs"], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{args[1]} presets --specs failed: {run.stderr}")
        specs = json.loads(run.stdout)
        args = args[2:]
    out, gpus, models = args[0], args[1], args[2:]
    src = "// Generated from presets/*.json by cmake/embed_presets_page.py. Do not edit.\n"
    src += "#include <string_view>\n#include <vector>\nnamespace vramcalc::embedded {\n"
    src += "const std::vector<std::string_view>& model_files() {\n  static const std::vector<std::string_view> files = {\n"
    for path in models:
        with open(path, encoding="utf-8") as f:
            preset = without_sources(json.load(f))
        if isinstance(preset.get("config"), dict) and preset.get("id") in specs:
            del preset["config"]
            preset["spec"] = specs[preset["id"]]
        elif isinstance(preset.get("config"), dict):
            preset["config"] = drop(preset["config"], UNREAD_CONFIG_KEYS)
        src += '    R"vrc(' + compact(preset) + ')vrc",\n'
    src += "  };\n  return files;\n}\n"
    with open(gpus, encoding="utf-8") as f:
        catalog = without_sources(json.load(f))
    catalog["gpus"] = [drop(g, UNREAD_GPU_KEYS) for g in catalog.get("gpus", [])]
    src += 'std::string_view gpu_file() {\n  return R"vrc(' + compact(catalog) + ')vrc";\n}\n}  // namespace vramcalc::embedded\n'
    try:
        with open(out, encoding="utf-8") as f:
            if f.read() == src:
                return
    except OSError:
        pass
    with open(out, "w", encoding="utf-8") as f:
        f.write(src)


if __name__ == "__main__":
    main()
