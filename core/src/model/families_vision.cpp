// Vision towers and projectors of multimodal checkpoints: the tensors vLLM loads beside the language model
// (they are in its "Model loading took X GiB"). Written from the Hugging Face modeling files named beside
// each; every tensor has the `vision` role and category and sits in its own layer stack (2), so the
// decoder's per-layer readers (activations, LoRA targets, GGUF type rules) never take it for a layer.
#include "model/inventory.hpp"

namespace vramcalc::detail {

// ---- Qwen3-VL (Qwen3VLVisionModel, also the tower of Qwen3VLMoeForConditionalGeneration) ----
// patch_embed: Conv3d(in_channels, hidden, kernel (temporal_patch_size, patch, patch), bias);
// pos_embed: Embedding(num_position_embeddings, hidden); depth x Qwen3VLVisionBlock: norm1/norm2
// LayerNorm (weight + bias), attn.qkv (h -> 3h, bias), attn.proj (h -> h, bias), mlp.linear_fc1 /
// linear_fc2 (h <-> intermediate, bias, not gated); merger: Qwen3VLVisionPatchMerger over the merged
// width m = h x spatial_merge_size^2 (LayerNorm(h), linear_fc1 m -> m, linear_fc2 m -> out_hidden_size, all
// biased), and one more merger per deepstack_visual_indexes entry whose LayerNorm is over m
// (use_postshuffle_norm=True). Checked: Qwen3-VL-30B-A3B-Instruct's
// 31,070,754,032 = 30,532,122,624 (the Qwen3-30B-A3B text model) + 538,631,408 from this tower.
void qwen3_vl_vision(FieldReader& v, Inventory& inv) {
    constexpr i64 kMax = i64{1} << 20;
    const i64 h = v.integer({"hidden_size"}, 1, kMax).value_or(0);
    const i64 depth = v.integer({"depth"}, 1, 10000).value_or(0);
    const i64 ff = v.integer({"intermediate_size"}, 1, kMax).value_or(0);
    const i64 out = v.integer({"out_hidden_size"}, 1, kMax).value_or(0);
    const i64 patch = v.integer_or({"patch_size"}, 16, 1, 4096);
    const i64 tpatch = v.integer_or({"temporal_patch_size"}, 2, 1, 64);
    const i64 chans = v.integer_or({"in_channels"}, 3, 1, 64);
    const i64 positions = v.integer_or({"num_position_embeddings"}, 2304, 0, kMax);
    const i64 merge = v.integer_or({"spatial_merge_size"}, 2, 1, 64);
    i64 deepstack = 0;
    if (const json* d = v.find({"deepstack_visual_indexes"})) {
        if (!d->is_array()) v.error("deepstack_visual_indexes", "expected a list of vision block indices");
        else deepstack = static_cast<i64>(d->size());
    }
    if (h <= 0 || depth <= 0 || ff <= 0 || out <= 0) return;  // the missing key is already an error
    const int saved = inv.stack;
    inv.stack = 2;
    const PC c = PC::vision;
    const Role r = Role::vision;
    inv.add("visual.patch_embed.proj", c, r, h, chans * tpatch * patch * patch, true, 1, false, false);
    if (positions > 0) inv.add("visual.pos_embed", c, r, positions, h, false, 1, false, false);
    inv.add("visual.blocks.norm1/norm2", c, r, h, 1, true, 2 * depth, false, false);
    inv.linear(c, r, "visual.blocks.attn.qkv", h, 3 * h, true, depth);
    inv.linear(c, r, "visual.blocks.attn.proj", h, h, true, depth);
    inv.linear(c, r, "visual.blocks.mlp.linear_fc1", h, ff, true, depth);
    inv.linear(c, r, "visual.blocks.mlp.linear_fc2", ff, h, true, depth);
    const i64 merged = h * merge * merge;
    inv.add("visual.merger.norm", c, r, h, 1, true, 1, false, false);
    if (deepstack > 0) inv.add("visual.deepstack_merger_list.norm", c, r, merged, 1, true, deepstack, false, false);
    inv.linear(c, r, "visual.merger.linear_fc1", merged, merged, true, 1 + deepstack);
    inv.linear(c, r, "visual.merger.linear_fc2", merged, out, true, 1 + deepstack);
    inv.stack = saved;
}

// ---- Llama 4 (Llama4VisionModel and Llama4MultiModalProjector, transformers models/llama4/modeling_llama4.py) ----
// patch_embedding: Llama4UnfoldConvolution, a Linear(channels x patch^2 -> h, no bias); class_embedding (h);
// positional_embedding_vlm ((image_size / patch)^2 + 1, h); layernorm_pre / layernorm_post (LayerNorm, weight +
// bias); num_hidden_layers x Llama4VisionEncoderLayer: q/k/v/o_proj (h -> h, bias), mlp fc1 (h -> intermediate,
// bias) / fc2 (back, bias), input_layernorm / post_attention_layernorm (LayerNorm); vision_adapter
// (Llama4VisionPixelShuffleMLP): fc1 (intermediate -> projector_input_dim) and fc2 (projector_input_dim ->
// projector_output_dim), no bias; multi_modal_projector.linear_1 (vision_output_dim -> the text hidden size, no
// bias). Checked: Llama-4-Maverick-17B-128E-Instruct's 401,583,781,376 = 400,711,848,960 (text) + 850,960,896
// (tower) + 20,971,520 (projector).
// Absent keys take Llama4VisionConfig's defaults (image 448, patch 14, 3 channels, projector 4096 -> 4096,
// vision_output_dim 7680).
void llama4_vision(FieldReader& v, i64 text_hidden, Inventory& inv) {
    constexpr i64 kMax = i64{1} << 20;
    const i64 h = v.integer({"hidden_size"}, 1, kMax).value_or(0);
    const i64 depth = v.integer({"num_hidden_layers"}, 1, 10000).value_or(0);
    const i64 ff = v.integer({"intermediate_size"}, 1, kMax).value_or(0);
    const i64 image = v.integer_or({"image_size"}, 448, 1, kMax);
    const i64 patch = v.integer_or({"patch_size"}, 14, 1, 4096);
    const i64 chans = v.integer_or({"num_channels"}, 3, 1, 64);
    const i64 proj_in = v.integer_or({"projector_input_dim"}, 4096, 1, kMax);
    const i64 proj_out = v.integer_or({"projector_output_dim"}, 4096, 1, kMax);
    const i64 out = v.integer_or({"vision_output_dim"}, 7680, 1, kMax);
    if (h <= 0 || depth <= 0 || ff <= 0) return;  // the missing key is already an error
    const int saved = inv.stack;
    inv.stack = 2;
    const PC c = PC::vision;
    const Role r = Role::vision;
    const i64 grid = image / patch;
    inv.linear(c, r, "vision_model.patch_embedding.linear", chans * patch * patch, h, false, 1);
    inv.add("vision_model.class_embedding", c, r, h, 1, false, 1, false, false);
    inv.add("vision_model.positional_embedding_vlm", c, r, grid * grid + 1, h, false, 1, false, false);
    inv.add("vision_model.layernorm_pre/post", c, r, h, 1, true, 2, false, false);
    inv.linear(c, r, "vision_model.model.layers.self_attn.q/k/v/o_proj", h, h, true, 4 * depth);
    inv.linear(c, r, "vision_model.model.layers.mlp.fc1", h, ff, true, depth);
    inv.linear(c, r, "vision_model.model.layers.mlp.fc2", ff, h, true, depth);
    inv.add("vision_model.model.layers.input/post_attention_layernorm", c, r, h, 1, true, 2 * depth, false, false);
    inv.linear(c, r, "vision_model.vision_adapter.mlp.fc1", ff, proj_in, false, 1);
    inv.linear(c, r, "vision_model.vision_adapter.mlp.fc2", proj_in, proj_out, false, 1);
    inv.linear(c, r, "multi_modal_projector.linear_1", out, text_hidden, false, 1);
    inv.stack = saved;
}

// ---- Pixtral (PixtralVisionModel) and the Mistral3MultiModalProjector (transformers models/pixtral/
// modeling_pixtral.py, models/mistral3/modeling_mistral3.py), the tower of Mistral3ForConditionalGeneration ----
// patch_conv: Conv2d(channels, h, patch, stride patch, no bias); ln_pre RMSNorm(h); num_hidden_layers x
// PixtralAttentionLayer: attention q/k/v/o_proj (h -> h, no bias), feed_forward gate/up/down_proj (h <->
// intermediate, no bias), attention_norm / ffn_norm (RMSNorm). Projector: norm RMSNorm(h), patch_merger
// .merging_layer (h x spatial_merge_size^2 -> h, no bias), linear_1 (h -> text hidden) and linear_2 (text hidden
// -> text hidden), biased when multimodal_projector_bias. Ministral-3-14B: 403,305,472 + 35,652,608.
void pixtral_vision(FieldReader& v, FieldReader& root, i64 text_hidden, Inventory& inv) {
    constexpr i64 kMax = i64{1} << 20;
    const i64 h = v.integer({"hidden_size"}, 1, kMax).value_or(0);
    const i64 depth = v.integer({"num_hidden_layers"}, 1, 10000).value_or(0);
    const i64 ff = v.integer({"intermediate_size"}, 1, kMax).value_or(0);
    const i64 patch = v.integer_or({"patch_size"}, 16, 1, 4096);
    const i64 chans = v.integer_or({"num_channels"}, 3, 1, 64);
    const i64 merge = root.integer_or({"spatial_merge_size"}, 2, 1, 64);
    const bool bias = root.boolean_or("multimodal_projector_bias", false);
    if (h <= 0 || depth <= 0 || ff <= 0) return;  // the missing key is already an error
    const int saved = inv.stack;
    inv.stack = 2;
    const PC c = PC::vision;
    const Role r = Role::vision;
    inv.add("vision_tower.patch_conv", c, r, h, chans * patch * patch, false, 1, false, false);
    inv.add("vision_tower.ln_pre", c, r, h, 1, false, 1, false, false);
    inv.linear(c, r, "vision_tower.transformer.layers.attention.q/k/v/o_proj", h, h, false, 4 * depth);
    inv.linear(c, r, "vision_tower.transformer.layers.feed_forward.gate/up_proj", h, ff, false, 2 * depth);
    inv.linear(c, r, "vision_tower.transformer.layers.feed_forward.down_proj", ff, h, false, depth);
    inv.add("vision_tower.transformer.layers.attention_norm/ffn_norm", c, r, h, 1, false, 2 * depth, false, false);
    inv.add("multi_modal_projector.norm", c, r, h, 1, false, 1, false, false);
    inv.linear(c, r, "multi_modal_projector.patch_merger.merging_layer", h * merge * merge, h, false, 1);
    inv.linear(c, r, "multi_modal_projector.linear_1", h, text_hidden, bias, 1);
    inv.linear(c, r, "multi_modal_projector.linear_2", text_hidden, text_hidden, bias, 1);
    inv.stack = saved;
}

}  // namespace vramcalc::detail

namespace vramcalc::detail {

// ---- Kimi-K2.5's MoonViT (MoonViT3dPretrainedModel) and KimiK25MultiModalProjector, vLLM
// vllm/model_executor/models/kimi_k25_vit.py @055e47c2 (the remote code's names: vision_tower.*, mm_projector.*) ----
// patch_embed.proj: Conv2d(3, h, patch, stride patch), biased unless patch_embed_proj_bias is false; pos_emb.weight
// [init_pos_emb_height, init_pos_emb_width, h] (its time table is a non-persistent sincos buffer);
// vt_num_hidden_layers x MoonViTEncoderLayer: norm0 / norm1 (LayerNorm, or RMSNorm under norm_type "rmsnorm"), wqkv
// h -> 3 qkv_hidden_size (default h) and wo back, biased under attn_bias (default true), mlp fc0 h -> vt_intermediate_size
// and fc1 back, biased under linear_bias (default true); encoder.final_layernorm. Projector "patchmerger": pre_norm
// LayerNorm(h), linear_1 (h x merge^2 -> same) and linear_2 (-> the text hidden size), both biased; "patchmergerv2":
// the same linears without bias and a post_norm RMSNorm over the text hidden size. Checked: Kimi-K2.5's 416,866,032
// tower parameters against the card's "MoonViT, 400M", plus 54,277,888 in the projector.
void moonvit_vision(FieldReader& v, i64 text_hidden, Inventory& inv) {
    constexpr i64 kMax = i64{1} << 20;
    const i64 h = v.integer({"vt_hidden_size", "hidden_size"}, 1, kMax).value_or(0);
    const i64 depth = v.integer({"vt_num_hidden_layers", "num_hidden_layers"}, 1, 10000).value_or(0);
    const i64 ff = v.integer({"vt_intermediate_size", "intermediate_size"}, 1, kMax).value_or(0);
    const i64 qkv = v.integer_or({"qkv_hidden_size"}, h, 1, kMax);
    const i64 patch = v.integer_or({"patch_size"}, 14, 1, 4096);
    const i64 pos_h = v.integer_or({"init_pos_emb_height"}, 64, 1, 4096), pos_w = v.integer_or({"init_pos_emb_width"}, 64, 1, 4096);
    const i64 out = v.integer_or({"text_hidden_size"}, text_hidden, 1, kMax);
    i64 merge = 4;
    if (const json* k = v.find({"merge_kernel_size"})) {
        if (k->is_array() && k->size() == 2 && (*k)[0].is_number_integer() && (*k)[1].is_number_integer() &&
            (*k)[0].get<i64>() > 0 && (*k)[1].get<i64>() > 0 && (*k)[0].get<i64>() <= 64 && (*k)[1].get<i64>() <= 64)
            merge = (*k)[0].get<i64>() * (*k)[1].get<i64>();
        else v.error("merge_kernel_size", "expected [height, width] of the patch merge");
    }
    const std::string projector = v.string_or("mm_projector_type", "patchmerger");
    if (projector != "patchmerger" && projector != "patchmergerv2")
        v.error("mm_projector_type", "only \"patchmerger\" and \"patchmergerv2\" are described");
    const bool layer_norm = v.string_or("norm_type", "layernorm") != "rmsnorm";
    const bool attn_bias = v.boolean_or("attn_bias", true), linear_bias = v.boolean_or("linear_bias", true);
    if (h <= 0 || depth <= 0 || ff <= 0) return;  // the missing key is already an error
    const int saved = inv.stack;
    inv.stack = 2;
    const PC c = PC::vision;
    const Role r = Role::vision;
    inv.add("vision_tower.patch_embed.proj", c, r, h, 3 * patch * patch, v.boolean_or("patch_embed_proj_bias", true), 1, false, false);
    inv.add("vision_tower.patch_embed.pos_emb.weight", c, r, pos_h * pos_w, h, false, 1, false, false);
    inv.add("vision_tower.encoder.blocks.norm0/norm1", c, r, h, 1, layer_norm, 2 * depth, false, false);
    inv.linear(c, r, "vision_tower.encoder.blocks.wqkv", h, 3 * qkv, attn_bias, depth);
    inv.linear(c, r, "vision_tower.encoder.blocks.wo", qkv, h, attn_bias, depth);
    inv.linear(c, r, "vision_tower.encoder.blocks.mlp.fc0", h, ff, linear_bias, depth);
    inv.linear(c, r, "vision_tower.encoder.blocks.mlp.fc1", ff, h, linear_bias, depth);
    inv.add("vision_tower.encoder.final_layernorm", c, r, h, 1, layer_norm, 1, false, false);
    const bool v2 = projector == "patchmergerv2";
    if (!v2) inv.add("mm_projector.pre_norm", c, r, h, 1, true, 1, false, false);
    inv.linear(c, r, "mm_projector.linear_1", h * merge, h * merge, !v2, 1);
    inv.linear(c, r, "mm_projector.linear_2", h * merge, out, !v2, 1);
    if (v2) inv.add("mm_projector.post_norm", c, r, out, 1, false, 1, false, false);
    inv.stack = saved;
}

}  // namespace vramcalc::detail
