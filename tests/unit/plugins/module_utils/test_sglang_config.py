"""SGLang's context-length rule, on configs shaped like the ones SGLang reads."""

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_config import context_length


@pytest.mark.parametrize("config, expected", [
    # An EAGLE-3 draft of Kimi-K2.5: a Llama-shaped config with a 131072-token context.
    ({"architectures": ["LlamaForCausalLMEagle3"], "max_position_embeddings": 131072}, 131072),
    # The first key of SGLang's CONTEXT_LENGTH_KEYS that is set wins.
    ({"seq_length": 4096, "max_position_embeddings": 131072}, 4096),
    ({"seq_length": None, "max_position_embeddings": 8192}, 8192),
    # Rope scaling multiplies, except with original_max_position_embeddings or llama3 rope.
    ({"max_position_embeddings": 32768, "rope_scaling": {"type": "yarn", "factor": 4.0}}, 131072),
    ({"max_position_embeddings": 32768, "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 8192}},
     32768),
    ({"max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, 131072),
    ({"max_position_embeddings": 4096, "rope_scaling": None}, 4096),
    # Multimodal configs: the language model's part.
    ({"architectures": ["KimiK25ForConditionalGeneration"], "max_position_embeddings": 1,
      "text_config": {"max_position_embeddings": 262144}}, 262144),
    ({"thinker_config": {"text_config": {"max_position_embeddings": 32768}}}, 32768),
    ({"thinker_config": {"max_position_embeddings": 16384}}, 16384),
    ({"llm_config": {"max_position_embeddings": 8192}}, 8192),
    # Llava*ForCausalLM reads its own keys, not the unused text_config.
    ({"architectures": ["LlavaLlamaForCausalLM"], "max_position_embeddings": 4096,
      "text_config": {"max_position_embeddings": 1}}, 4096),
    # Nothing set: SGLang's 2048.
    ({}, 2048),
])
def test_context_length(config, expected):
    assert context_length(config) == expected
