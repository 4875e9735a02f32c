"""The EAGLE-3 audit on the real sources of released SGLang wheels."""

import os

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils import _eagle3_audit as eagle3_audit
from ansible_collections.gpufleet.sglang.plugins.module_utils._python_classes import SourceError
from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_package import PackageError
from gpufleet_testlib.source_tree import write_tree

EAGLE3 = ["get_embed_and_head", "set_eagle3_layers_to_capture", "set_embed_and_head"]


def method(result, name):
    return next(m for m in result["methods"] if m["name"] == name)


def test_059_kimi_wrapper_lacks_every_eagle3_method(pristine_trees):
    result = eagle3_audit.audit(pristine_trees["0.5.9"])

    assert result["sglang_version"] == "0.5.9"
    assert result["class_name"] == "KimiK25ForConditionalGeneration"
    assert result["inner_class"] == ["DeepseekV3ForCausalLM"]
    assert result["required"] == EAGLE3
    assert result["missing"] == EAGLE3
    assert result["delegatable"] == EAGLE3
    assert result["undelegatable"] == []
    assert result["present"] == []


def test_059_call_sites_come_from_the_source(pristine_trees):
    result = eagle3_audit.audit(pristine_trees["0.5.9"])

    capture = method(result, "set_eagle3_layers_to_capture")
    assert any(site.startswith("srt/model_executor/cuda_graph_runner.py:") for site in capture["call_sites"])
    assert any(site.startswith("srt/model_executor/model_runner.py:") for site in capture["call_sites"])
    assert capture["called_on"] == ["target"]
    embed = method(result, "get_embed_and_head")
    assert "srt/speculative/eagle_worker.py:157" in embed["call_sites"]
    assert embed["called_on"] == ["target"]
    # set_embed_and_head is called on the draft only, and still required of the wrapper.
    assert method(result, "set_embed_and_head")["called_on"] == ["draft"]


def test_059_call_site_lines_point_at_the_call(pristine_trees):
    result = eagle3_audit.audit(pristine_trees["0.5.9"])

    for name in EAGLE3:
        for site in method(result, name)["call_sites"]:
            path, line = site.rsplit(":", 1)
            with open(os.path.join(pristine_trees["0.5.9"], path)) as handle:
                text = handle.read().splitlines()[int(line) - 1]
            assert name in text, site


def test_059_inner_class_inherits_the_methods_across_files(pristine_trees):
    result = eagle3_audit.audit(pristine_trees["0.5.9"])

    inner = method(result, "get_embed_and_head")["inner"]
    assert inner == {"kind": "method", "defined_in": "DeepseekV2ForCausalLM", "inherited": True}


def test_059_nn_module_methods_are_not_gaps(pristine_trees):
    result = eagle3_audit.audit(pristine_trees["0.5.9"])

    forward = method(result, "forward")
    assert forward["required"] is False
    assert forward["wrapper"]["defined_in"] == "KimiK25ForConditionalGeneration"
    assert method(result, "named_parameters")["wrapper"]["defined_in"] == "torch.nn.Module"
    assert "forward" not in result["missing"]


@pytest.mark.parametrize("version", ["0.5.10", "0.5.23"])
def test_fixed_releases_have_nothing_missing(pristine_trees, version):
    result = eagle3_audit.audit(pristine_trees[version])

    assert result["sglang_version"] == version
    assert set(EAGLE3) <= set(result["required"])
    assert result["present"] == result["required"]
    assert result["missing"] == [] and result["undetermined"] == []
    for name in EAGLE3:
        assert method(result, name)["wrapper"]["defined_in"] == "KimiK25ForConditionalGeneration"


def test_0523_call_sites_moved_and_are_found(pristine_trees):
    result = eagle3_audit.audit(pristine_trees["0.5.23"])

    capture = method(result, "set_eagle3_layers_to_capture")["call_sites"]
    assert any(s.startswith("srt/model_executor/model_runner_components/attention_backend_setup.py:")
               for s in capture)
    embed = method(result, "get_embed_and_head")["call_sites"]
    assert any(s.startswith("srt/speculative/pp_draft_embedding.py:") for s in embed)
    assert not os.path.exists(os.path.join(pristine_trees["0.5.23"], "srt/speculative/eagle_worker.py"))


def test_0523_helpers_the_eagle_modules_call_are_on_the_path(pristine_trees):
    """0.5.23's EAGLE worker gets the target's embedding through pp_draft_embedding.py, which walks
    target_model.named_modules() unprobed: a name required of the target beyond the EAGLE-3 set."""
    result = eagle3_audit.audit(pristine_trees["0.5.23"])

    named = method(result, "named_modules")
    assert named["required"] is True
    assert "srt/speculative/pp_draft_embedding.py:63" in named["call_sites"]
    assert named["wrapper"] == {"kind": "method", "defined_in": "torch.nn.Module", "inherited": True}
    # Probed first (hasattr), so not required even on the path:
    assert method(result, "get_embed_and_head_for_draft")["required"] is False


def test_another_wrapper_can_be_audited(pristine_trees):
    root = pristine_trees["0.5.23"]
    result = eagle3_audit.audit(root, "srt/models/kimi_vl.py")

    assert result["class_name"] == "KimiVLForConditionalGeneration"
    assert set(result["missing"]) == set(result["delegatable"]) | set(result["undelegatable"])


def test_model_file_missing_in_older_release(tmp_path, pristine_trees):
    with pytest.raises(SourceError, match="does not exist in this sglang"):
        eagle3_audit.audit(pristine_trees["0.5.9"], "srt/models/not_a_model.py")


def test_not_an_sglang_directory(tmp_path):
    with pytest.raises(PackageError, match="not an sglang package directory"):
        eagle3_audit.audit(str(tmp_path))


def test_unknown_class_and_inner_attr(pristine_trees):
    with pytest.raises(SourceError, match="class NoSuchClass is not defined"):
        eagle3_audit.audit(pristine_trees["0.5.9"], class_name="NoSuchClass")
    with pytest.raises(SourceError, match="never assigns self.text_model"):
        eagle3_audit.audit(pristine_trees["0.5.9"], inner_attr="text_model")


def test_scan_classifies_calls_probes_and_model_side(tmp_path):
    """A synthetic SGLang-like tree: a new target call in an EAGLE worker becomes required."""
    write_tree(tmp_path / "sglang", {
        "__init__.py": "",
        "version.py": "__version__ = '9.9.9'\n",
        "srt/speculative/eagle_worker.py": """
            class EAGLEWorker:
                def init(self):
                    embed, head = self.target_worker.model_runner.model.get_embed_and_head()
                    self.target_worker.model_runner.model.get_hot_tokens(3)
                    if hasattr(self.target_worker.model_runner.model, "maybe_thing"):
                        self.target_worker.model_runner.model.maybe_thing()
                    self.draft_model_runner.model.set_embed_and_head(embed, head)
            """,
        "srt/model_executor/model_runner.py": """
            class ModelRunner:
                def load(self):
                    self.model.set_eagle3_layers_to_capture()
                    self.model.forward_split_prefill()
            """,
        "srt/models/base.py": """
            import torch.nn as nn
            class Inner(nn.Module):
                def get_embed_and_head(self):
                    return 1, 2
                def set_embed_and_head(self, embed, head):
                    pass
                def set_eagle3_layers_to_capture(self, layer_ids=None):
                    pass
                def get_hot_tokens(self, n):
                    return n
            """,
        "srt/models/wrapper.py": """
            from torch import nn
            from sglang.srt.models.base import Inner
            class Wrapper(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.language_model = Inner()
                def forward(self):
                    pass
            EntryClass = Wrapper
            """,
    })
    result = eagle3_audit.audit(str(tmp_path / "sglang"), "srt/models/wrapper.py")

    assert result["sglang_version"] == "9.9.9"
    assert result["required"] == sorted(EAGLE3 + ["get_hot_tokens"])
    assert result["delegatable"] == result["missing"] == result["required"]
    maybe = method(result, "maybe_thing")
    assert maybe["required"] is False  # probed with hasattr first: optional
    assert maybe["call_sites"] == ["srt/speculative/eagle_worker.py:6", "srt/speculative/eagle_worker.py:7"]
    assert method(result, "forward_split_prefill")["required"] is False
    assert method(result, "set_embed_and_head")["called_on"] == ["draft"]


def test_a_dummy_load_needs_the_inner_models_post_load_weights_that_the_059_wrapper_lacks(pristine_trees):
    """SGLang's dummy loader probes post_load_weights on the top-level model and calls it there only: on 0.5.9's
    Kimi wrapper the probe fails, the inner DeepSeek-V3 never sets up its absorbed weights, and the first request
    fails (shown on SGLang's own server in tests/real_sglang/test_dummy_load.py)."""
    dummy = eagle3_audit.audit(pristine_trees["0.5.9"], load_format="dummy")
    assert dummy["load_format"] == "dummy"
    assert dummy["required"] == sorted(EAGLE3 + ["post_load_weights"])
    assert dummy["delegatable"] == sorted(EAGLE3 + ["post_load_weights"])
    found = method(dummy, "post_load_weights")
    assert found["status"] == "missing" and found["inner"]["defined_in"] == "DeepseekV2WeightLoaderMixin"
    assert "srt/model_loader/utils.py:129" in found["call_sites"]
    launch = eagle3_audit.audit(pristine_trees["0.5.9"])
    assert "post_load_weights" not in launch["required"]  # real weights: the inner model's loader calls it itself
    assert launch["required"] == EAGLE3


def test_a_wrapper_that_has_post_load_weights_owes_nothing_for_a_dummy_load(pristine_trees):
    dummy = eagle3_audit.audit(pristine_trees["0.5.23"], load_format="dummy")
    assert "post_load_weights" in dummy["required"] and dummy["missing"] == []
    assert method(dummy, "post_load_weights")["status"] == "present"
