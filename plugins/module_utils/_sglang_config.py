# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What SGLang derives from a model's config.json, read the way SGLang reads it.

From SGLang 0.5.9's ``srt/utils/hf_transformers_utils.py`` (``get_hf_text_config``,
``get_context_length`` and ``CONTEXT_LENGTH_KEYS``). Private to the collection: not a public API.
"""

from __future__ import annotations

import json

# SGLang's CONTEXT_LENGTH_KEYS: the first one a config sets is the context length.
CONTEXT_LENGTH_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                       "max_position_embeddings")
DEFAULT_CONTEXT_LENGTH = 2048


TEXT_CONFIG_KEYS = ("text_config", "llm_config", "language_config")


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value):
    return json.dumps(value)[:60]


def _text_problem(text, where):
    if not isinstance(text, dict):
        return "%s is %s, not an object" % (where, _shown(text))
    rope = text.get("rope_scaling")
    if rope is not None and not isinstance(rope, dict):
        return "%s.rope_scaling is %s, not an object" % (where, _shown(rope))
    if rope and "factor" in rope and not (_number(rope["factor"]) and 0 < rope["factor"] <= 2 ** 20):
        return "%s.rope_scaling.factor is %s, not a scaling factor" % (where, _shown(rope["factor"]))
    if rope and not isinstance(rope.get("rope_type", ""), str):
        return "%s.rope_scaling.rope_type is %s, not a string" % (where, _shown(rope["rope_type"]))
    for key in CONTEXT_LENGTH_KEYS:
        value = text.get(key)
        if value is not None and not (_number(value) and 0 < value < 2 ** 40):
            return "%s.%s is %s, not a positive number of tokens" % (where, key, _shown(value))
    return None


def config_problem(config):
    """What in a parsed config.json is not of the type SGLang reads it as (one sentence), or None.

    Checks what ``text_config``, ``context_length`` and ``is_eagle3_draft`` read, so that they never meet a
    value of another type."""
    if not isinstance(config, dict):
        return "the config is %s, not an object" % _shown(config)
    architectures = config.get("architectures")
    if architectures is not None and not (isinstance(architectures, list)
                                          and all(isinstance(name, str) for name in architectures)):
        return "architectures is %s, not a list of class names" % _shown(architectures)
    for key in TEXT_CONFIG_KEYS + ("thinker_config",):
        if key in config and not isinstance(config[key], dict):
            return "%s is %s, not an object" % (key, _shown(config[key]))
    thinker = config.get("thinker_config") or {}
    if "text_config" in thinker and not isinstance(thinker["text_config"], dict):
        return "thinker_config.text_config is %s, not an object" % _shown(thinker["text_config"])
    text = text_config(config)
    return _text_problem(text, "the text config" if text is not config else "the config")


def text_config(config):
    """The language model's part of a (possibly multimodal) config, as get_hf_text_config picks it."""
    architectures = config.get("architectures") or []
    if architectures and architectures[0].startswith("Llava") and architectures[0].endswith("ForCausalLM"):
        return config
    for key in TEXT_CONFIG_KEYS:
        if key in config:
            return config[key]
    if "thinker_config" in config:
        thinker = config["thinker_config"]
        return thinker.get("text_config", thinker)
    return config


def context_length(config):
    """The context length SGLang derives from ``config`` (a config.json as a dict), in tokens.

    A rope scaling factor multiplies it, except with ``original_max_position_embeddings`` or
    the ``llama3`` rope type. ``config`` is one that ``config_problem`` passed.
    """
    text = text_config(config)
    rope = text.get("rope_scaling") or {}
    factor = rope.get("factor", 1) if rope else 1
    if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
        factor = 1
    for key in CONTEXT_LENGTH_KEYS:
        if text.get(key) is not None:
            return int(factor * text[key])
    return DEFAULT_CONTEXT_LENGTH


def is_eagle3_draft(config):
    """Whether a config.json is an EAGLE-3 draft's: an ``eagle_config`` or an ``*Eagle3*`` architecture."""
    return "eagle_config" in config or any("Eagle3" in name for name in config.get("architectures") or [])


def draft_context_refusal(path, config, served, allow_longer):
    """SGLang's startup rule for a draft whose context is shorter than the served one, as a refusal
    that says what to change (None when the draft passes)."""
    derived = context_length(config)
    if derived >= served or allow_longer:
        return None
    return ("The draft %s has a context of %d tokens, shorter than sglang_context_length %d, and "
            "sglang_allow_overwrite_longer_context_len is false. SGLang would stop with: ValueError: Warning: "
            "Target model's context_length (%d) is greater than the derived context_length (%d). ... To allow "
            "overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1. Set "
            "sglang_allow_overwrite_longer_context_len to true, or lower sglang_context_length to %d."
            % (path, derived, served, served, derived, derived))
