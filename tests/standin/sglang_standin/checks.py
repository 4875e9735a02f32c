"""SGLang's startup checks that gpufleet.sglang exists to satisfy, with SGLang's own messages."""

import json
import os

from sglang_standin.source import class_attributes, find_class

ENV_OVERWRITE = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"
# SGLang's get_context_length looks at these keys of the (text) config, in this order.
CONTEXT_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings")
# The order in which a 0.5.9 launch with EAGLE-3 first touches them on the target model:
# ModelRunner.__init__ sets the layers to capture, then the EAGLE worker shares embed and head.
EAGLE3_TARGET_CALLS = ("set_eagle3_layers_to_capture", "get_embed_and_head")


class StartupError(Exception):
    """SGLang would stop with this message (an exception type and text, as it prints them)."""


def read_config(model_path):
    """The config.json of a local model directory, or None when the path is not a local directory."""
    path = os.path.join(model_path, "config.json")
    if not os.path.isfile(path):
        return None
    with open(path) as handle:
        return json.load(handle)


def derived_context_length(config):
    """SGLang's get_context_length (utils/hf_transformers_utils.py) on the text config."""
    text_config = config.get("text_config", config)
    rope_scaling = text_config.get("rope_scaling") or {}
    factor = rope_scaling.get("factor", 1)
    if "original_max_position_embeddings" in rope_scaling or rope_scaling.get("rope_type") == "llama3":
        factor = 1
    for key in CONTEXT_KEYS:
        if text_config.get(key) is not None:
            return int(factor * text_config[key])
    return 2048


def env_true(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "y", "on")


def check_context_length(context_length, config, is_draft):
    """SGLang's ModelConfig._derive_context_length (configs/model_config.py)."""
    if context_length is None or config is None:
        return
    derived = derived_context_length(config)
    if context_length > derived and not env_true(ENV_OVERWRITE):
        reason = "Target model's" if is_draft else "User-specified"
        raise StartupError(
            "ValueError: Warning: %s context_length (%d) is greater than the derived context_length (%d). "
            "This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length "
            "may differ from max_position_embeddings in the model's config. To allow overriding this maximum, "
            "set the env var %s=1" % (reason, context_length, derived, ENV_OVERWRITE))


def check_eagle3_target(root, target_config):
    """The target's wrapper class must answer the EAGLE-3 calls, or SGLang dies with AttributeError."""
    for class_name in (target_config or {}).get("architectures", []):
        node, tree = find_class(root, class_name)
        if node is None:
            raise StartupError("ValueError: Model architectures ['%s'] are not supported for now." % class_name)
        names = class_attributes(node, tree)
        for method in EAGLE3_TARGET_CALLS:
            if method not in names:
                raise StartupError("AttributeError: '%s' object has no attribute '%s'" % (class_name, method))
