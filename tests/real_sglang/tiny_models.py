"""Tiny configs (a few layers, hidden sizes of 64-128, a one-layer vision tower) in the shapes of real
models, for building SGLang's wrappers on the CPU without weights. Each function returns a config.json
as a dict, or, for a model whose config class lives on the Hub (remote code), the classes to build it from.

    python tiny_models.py DIR NAME...    writes DIR/NAME/config.json for each of MODELS, and a tokenizer
                                         (a 256-word vocabulary, made with the tokenizers package) where
                                         transformers can be imported (a real SGLang venv)
"""

import copy
import json
import os
import sys

# Kimi-K2 / DeepSeek-V3: multi-head latent attention, a dense first layer then MoE, yarn rope scaling
# (SGLang's CPU rotary embedding requires it), as in moonshotai/Kimi-K2.5's text_config.
DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "vocab_size": 256, "hidden_size": 64,
    "intermediate_size": 128, "moe_intermediate_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 4, "n_routed_experts": 4, "n_shared_experts": 1, "num_experts_per_tok": 2,
    "first_k_dense_replace": 1, "moe_layer_freq": 1, "kv_lora_rank": 16, "q_lora_rank": 32, "qk_rope_head_dim": 8,
    "qk_nope_head_dim": 16, "v_head_dim": 16, "n_group": 1, "topk_group": 1, "topk_method": "noaux_tc",
    "scoring_func": "sigmoid", "norm_topk_prob": True, "routed_scaling_factor": 2.5, "ep_size": 1,
    "num_nextn_predict_layers": 0, "max_position_embeddings": 512, "rms_norm_eps": 1e-6, "hidden_act": "silu",
    "tie_word_embeddings": False,
    "rope_scaling": {"type": "yarn", "factor": 2.0, "original_max_position_embeddings": 256, "beta_fast": 32,
                     "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
}

MOONVIT = {"patch_size": 14, "init_pos_emb_height": 4, "init_pos_emb_width": 4, "num_attention_heads": 2,
           "num_hidden_layers": 1, "hidden_size": 32, "intermediate_size": 64, "merge_kernel_size": [2, 2]}

QWEN2 = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "vocab_size": 256, "hidden_size": 128,
         "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
         "max_position_embeddings": 512, "rms_norm_eps": 1e-6, "tie_word_embeddings": False}

LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 256, "hidden_size": 64,
         "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
         "max_position_embeddings": 2048, "rms_norm_eps": 1e-6, "tie_word_embeddings": False, "hidden_act": "silu",
         "rope_theta": 10000.0, "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "bfloat16"}


def kimi_k25():
    """Kimi-K2.5: a MoonViT-3D vision tower and projector around a DeepSeek-V3 text model."""
    return {"architectures": ["KimiK25ForConditionalGeneration"], "model_type": "kimi_k25",
            "text_config": copy.deepcopy(DEEPSEEK_V3),
            "vision_config": dict(MOONVIT, model_type="kimi_k25", init_pos_emb_time=2, text_hidden_size=64,
                                  vt_hidden_size=32, mm_hidden_size=32, merge_type="sd2_tpool",
                                  pos_emb_type="divided_fixed", video_attn_type="spatial_temporal",
                                  mm_projector_type="patchmerger")}


def kimi_vl():
    """Kimi-VL: MoonViT around a DeepSeek-V2-style text model."""
    return {"architectures": ["KimiVLForConditionalGeneration"], "model_type": "kimi_vl",
            "text_config": dict(DEEPSEEK_V3, model_type="deepseek_v2", architectures=["DeepseekV2ForCausalLM"]),
            "vision_config": dict(MOONVIT, model_type="moonvit")}


def minicpmv_2_6():
    """MiniCPM-V 2.6: a Qwen2 language model (built by the class's init_llm) and a SigLIP (Idefics2)
    vision tower; its config class is remote code on the Hub, so the probe builds it from these."""
    return {"class": "transformers.Qwen2Config",
            "values": dict(QWEN2, version=2.6, query_num=4, drop_vision_last_layer=False, batch_vision_input=True),
            "sub": {"vision_config": {"class": "transformers.models.idefics2.configuration_idefics2.Idefics2VisionConfig",
                                      "values": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                                                 "num_attention_heads": 2, "image_size": 28, "patch_size": 14}}}}


def llama():
    """A plain Llama (what the probe's setup and a real server load)."""
    return copy.deepcopy(LLAMA)


def kimi_k25_target():
    """The Kimi-K2.5 target a server loads: its served context, 262144 tokens."""
    config = kimi_k25()
    config["text_config"]["max_position_embeddings"] = 262144
    return config


def kimi_k25_eagle3():
    """An EAGLE-3 draft for it, as AQ-MedAI/Kimi-K25-eagle3 is shaped: one Llama layer fed by the target's
    hidden states, a context of 131072 (shorter than the target's: SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN)."""
    return dict(LLAMA, architectures=["LlamaForCausalLMEagle3"], num_hidden_layers=1,
                max_position_embeddings=131072, draft_vocab_size=256, target_hidden_size=64,
                eagle_config={"eagle_aux_hidden_state_layer_ids": [0, 1], "use_aux_hidden_state": True})


MODELS = {"llama": llama, "kimi-k25-target": kimi_k25_target, "kimi-k25-eagle3": kimi_k25_eagle3}


def write_tokenizer(directory):
    """A word-level tokenizer over the models' 256 ids, as transformers saves one."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = dict([("<unk>", 0), ("<s>", 1), ("</s>", 2)] + [("t%d" % number, number) for number in range(3, 256)])
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>",
                            eos_token="</s>").save_pretrained(directory)


def main(directory, names):
    try:
        import transformers  # noqa: F401 - only a real SGLang venv has it
        tokenizer = True
    except ImportError:
        tokenizer = False
    for name in names:
        target = os.path.join(directory, name)
        os.makedirs(target, exist_ok=True)
        with open(os.path.join(target, "config.json"), "w") as handle:
            json.dump(MODELS[name](), handle, indent=2)
        if tokenizer:
            write_tokenizer(target)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
