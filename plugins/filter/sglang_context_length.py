# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: sglang_context_length
version_added: 0.1.0
short_description: The context length SGLang derives from a model's config.json
description:
  - Reads a model's C(config.json) the way SGLang does at startup (C(get_hf_text_config) and
    C(get_context_length) in SGLang's C(srt/utils/hf_transformers_utils.py)), so that a draft whose
    context is shorter than the served one is caught before a restart.
  - The language model's part of a multimodal config (C(text_config), C(llm_config), C(language_config),
    C(thinker_config)) is read; the first of C(max_sequence_length), C(seq_length), C(max_seq_len),
    C(model_max_length), C(max_position_embeddings) that it sets is the length, times the rope scaling
    factor (except with C(original_max_position_embeddings) or the C(llama3) rope type); 2048 when none is set.
positional: _input
options:
  _input:
    description: The model's C(config.json), parsed.
    type: dict
    required: true
"""

EXAMPLES = r"""
derived: "{{ (raw.content | b64decode | from_json) | gpufleet.sglang.sglang_context_length }}"
# {"max_position_embeddings": 131072} => 131072
"""

RETURN = r"""
_value:
  description: The context length in tokens.
  type: int
"""

from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_config import context_length


class FilterModule(object):
    def filters(self):
        return {"sglang_context_length": context_length}
