"""gpufleet.sglang.draft_check on a draft whose config.json came from a mirror an attacker controls: every
shape SGLang would not load is one sentence naming the file and the field, no traceback, no hang, no read
without end."""

import json
import os

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import draft_check


def check(path):
    return bounded(lambda: run_module(draft_check, dict(path=str(path), context_length=262144,
                                                        allow_longer_context=True, require_eagle3=True)),
                   seconds=10, memory=8 * MIB)


def one_sentence(result):
    assert result["failed"] and "Traceback" not in result["msg"] and "\n" not in result["msg"], result
    return result["msg"]


@pytest.mark.parametrize("text, says", [
    ("[1]", "holds a JSON list, not a JSON object"),
    ('"LlamaForCausalLMEagle3"', "holds a JSON string, not a JSON object"),
    ("null", "holds a JSON null, not a JSON object"),
    ("42", "holds a JSON number, not a JSON object"),
    ("[" * 100000 + "]" * 100000, "is nested deeper than 32 levels"),
    ('{"max_position_embeddings": NaN}', "NaN is not a JSON number"),
    ('{"max_position_embeddings": Infinity}', "Infinity is not a JSON number"),
    ('{"architectures": "LlamaForCausalLMEagle3"}', 'architectures is "LlamaForCausalLMEagle3", not a list'),
    ('{"architectures": [1, 2]}', "architectures is [1, 2], not a list of class names"),
    ('{"architectures": {"a": 1}}', 'architectures is {"a": 1}, not a list of class names'),
    ('{"text_config": [1]}', "text_config is [1], not an object"),
    ('{"thinker_config": {"text_config": 3}}', "thinker_config.text_config is 3, not an object"),
    ('{"rope_scaling": "yarn"}', 'rope_scaling is "yarn", not an object'),
    ('{"rope_scaling": {"factor": 4}, "max_position_embeddings": "4096"}',
     'max_position_embeddings is "4096", not a positive number of tokens'),
    ('{"rope_scaling": {"factor": 1e308}, "max_position_embeddings": 4096}', "factor is 1e+308, not a scaling factor"),
    ('{"max_position_embeddings": 1e300}', "max_position_embeddings is 1e+300, not a positive number of tokens"),
    ('{"rope_scaling": {"rope_type": 3}}', "rope_type is 3, not a string"),
])
def test_a_config_of_the_wrong_shape_is_one_sentence(tmp_path, text, says):
    (tmp_path / "config.json").write_text(text)
    msg = one_sentence(check(tmp_path))
    assert str(tmp_path / "config.json") in msg and says in msg, msg


def test_a_fifo_a_link_to_dev_zero_and_a_huge_file_are_refused_unread(tmp_path):
    os.mkfifo(str(tmp_path / "config.json"))
    assert "config.json is not a regular file" in one_sentence(check(tmp_path))
    os.unlink(str(tmp_path / "config.json"))
    os.symlink("/dev/zero", str(tmp_path / "config.json"))
    assert "config.json is a symbolic link, not a regular file" in one_sentence(check(tmp_path))
    os.unlink(str(tmp_path / "config.json"))
    with open(str(tmp_path / "config.json"), "wb") as handle:
        handle.truncate(200 * MIB)
    assert "config.json is 200 MiB, more than a config.json can be (4 MiB)" in one_sentence(check(tmp_path))


def test_a_well_formed_draft_still_passes(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLMEagle3"], "max_position_embeddings": 131072,
        "rope_scaling": {"factor": 2.0, "rope_type": "yarn"}}))
    result = check(tmp_path)
    assert not result.get("failed") and result["eagle3"] and result["context_length"] == 262144
