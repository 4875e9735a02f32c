"""The draft_check module on drafts written as their config.json: what it reports, and what it refuses."""

import json

from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.modules import draft_check

EAGLE3 = {"architectures": ["LlamaForCausalLMEagle3"], "max_position_embeddings": 262144,
          "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 30, 58]}}
PLAIN = {"architectures": ["LlamaForCausalLM"], "max_position_embeddings": 262144}


def draft(tmp_path, config):
    (tmp_path / "config.json").write_text(json.dumps(config))
    return str(tmp_path)


def test_an_eagle3_draft_passes_and_is_reported(tmp_path):
    result = run_module(draft_check, dict(path=draft(tmp_path, EAGLE3), context_length=262144, require_eagle3=True))
    assert not result.get("failed") and result["found"] and result["eagle3"]
    assert result["architectures"] == ["LlamaForCausalLMEagle3"]


def test_a_draft_that_is_not_eagle3_is_refused_only_when_eagle3_is_required(tmp_path):
    path = draft(tmp_path, PLAIN)
    assert not run_module(draft_check, dict(path=path)).get("failed")
    result = run_module(draft_check, dict(path=path, require_eagle3=True))
    assert result["failed"] and not result["eagle3"]
    assert result["msg"] == ("%s is not an EAGLE-3 draft (architectures ['LlamaForCausalLM'], no eagle_config), which "
                             "--speculative-algorithm EAGLE3 needs. Nothing was stopped: name an EAGLE-3 draft in "
                             "sglang_draft_model_path." % path)


def test_a_draft_not_on_the_host_reports_not_found_and_refuses_nothing(tmp_path):
    result = run_module(draft_check, dict(path=str(tmp_path / "absent"), require_eagle3=True))
    assert not result.get("failed") and not result["found"]
