"""A tiny Kimi-K2.5 target with real weights whose next token is known, and EAGLE-3 drafts made from its own
weights that agree or disagree with it by construction (no download). Runs inside a release's venv (torch,
transformers, safetensors).

    python tiny_weights.py DIR    writes DIR/kimi-k25-repeat (the target), DIR/eagle3-agree, DIR/eagle3-disagree

The target repeats its last token: every attention and MLP writes nothing (their output projections are
zero), so each position's hidden state stays its token's embedding, and the head is the embedding itself
with rows of unit length, so the largest logit is the token's own. The drafts read the target's hidden
states the way EAGLE-3 does (three captured layers into ``fc``), pass them through a layer that writes
nothing, and score them with a head: the target's embedding (agree: each draft token is the target's next
token, so every draft is accepted) or the same rows shifted by one (disagree: never accepted).
"""

import json
import os
import sys

import torch

import tiny_models

TARGET_LAYERS = 4
# The draft reads the residual stream before layers 1, 2 and 3 (SGLang captures before layer id + 1).
CAPTURED = [0, 1, 2]
SEED = 20261206


def target_config():
    config = tiny_models.kimi_k25_target()
    config["text_config"]["num_hidden_layers"] = TARGET_LAYERS
    return config


def draft_config():
    config = tiny_models.kimi_k25_eagle3()
    config["eagle_config"]["eagle_aux_hidden_state_layer_ids"] = CAPTURED
    return config


def unit_rows(rows, width, generator):
    embedding = torch.randn(rows, width, generator=generator)
    return embedding / embedding.norm(dim=1, keepdim=True)


def target_weights(generator):
    """The language model's weights under the names of Kimi-K2.5's checkpoint (``language_model.`` + DeepSeek-V3's)."""
    from transformers import DeepseekV3Config, DeepseekV3ForCausalLM

    text = dict(target_config()["text_config"])
    text.pop("architectures", None)
    torch.manual_seed(SEED)
    model = DeepseekV3ForCausalLM(DeepseekV3Config(**text))
    weights = {}
    embedding = unit_rows(text["vocab_size"], text["hidden_size"], generator)
    for name, tensor in model.state_dict().items():
        if name.endswith(("o_proj.weight", "down_proj.weight")):
            tensor = torch.zeros_like(tensor)
        elif name.endswith("norm.weight"):
            tensor = torch.ones_like(tensor)
        elif name.endswith("e_score_correction_bias"):
            tensor = torch.zeros_like(tensor)
        elif name in ("model.embed_tokens.weight", "lm_head.weight"):
            tensor = embedding.clone()
        weights["language_model." + name] = tensor.to(torch.float32).contiguous()
    return weights, embedding


def draft_weights(embedding, head, generator):
    """An EAGLE-3 draft (one Llama layer over [embeds, hidden]) whose output is its first captured hidden state."""
    config = draft_config()
    hidden, heads, kv_heads = config["hidden_size"], config["num_attention_heads"], config["num_key_value_heads"]
    head_dim, inner = hidden // heads, config["intermediate_size"]

    def small(*shape):
        return torch.randn(*shape, generator=generator) * 0.02

    fc = torch.zeros(hidden, 3 * config["target_hidden_size"])
    fc[:, :hidden] = torch.eye(hidden)
    return {
        "fc.weight": fc,
        "midlayer.input_layernorm.weight": torch.ones(hidden),
        "midlayer.hidden_norm.weight": torch.ones(hidden),
        "midlayer.post_attention_layernorm.weight": torch.ones(hidden),
        "midlayer.self_attn.q_proj.weight": small(heads * head_dim, 2 * hidden),
        "midlayer.self_attn.k_proj.weight": small(kv_heads * head_dim, 2 * hidden),
        "midlayer.self_attn.v_proj.weight": small(kv_heads * head_dim, 2 * hidden),
        "midlayer.self_attn.o_proj.weight": torch.zeros(hidden, heads * head_dim),
        "midlayer.mlp.gate_proj.weight": small(inner, hidden),
        "midlayer.mlp.up_proj.weight": small(inner, hidden),
        "midlayer.mlp.down_proj.weight": torch.zeros(hidden, inner),
        "norm.weight": torch.ones(hidden),
        "lm_head.weight": head.clone().contiguous(),
        "d2t": torch.zeros(config["draft_vocab_size"], dtype=torch.long),
    }


def write(directory, config, weights):
    from safetensors.torch import save_file

    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as handle:
        json.dump(config, handle, indent=2)
    save_file(weights, os.path.join(directory, "model.safetensors"))
    tiny_models.write_tokenizer(directory)


def main(directory):
    generator = torch.Generator().manual_seed(SEED)
    weights, embedding = target_weights(generator)
    write(os.path.join(directory, "kimi-k25-repeat"), target_config(), weights)
    write(os.path.join(directory, "eagle3-agree"), draft_config(), draft_weights(embedding, embedding, generator))
    shifted = torch.roll(embedding, shifts=1, dims=0)  # row i scores token i-1's embedding: it predicts t+1
    write(os.path.join(directory, "eagle3-disagree"), draft_config(), draft_weights(embedding, shifted, generator))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv[1])
