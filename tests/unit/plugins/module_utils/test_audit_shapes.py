"""The wrapper shapes that defeated the audit, on synthetic sources, and on the real wheels where they occur.

Each synthetic tree is a minimal SGLang-like package (sglang/srt/...); the EAGLE-3 names are
called on the target from srt/speculative/eagle_worker.py, as in 0.5.9.
"""

import os
import re

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils import _eagle3_audit as eagle3_audit
from ansible_collections.gpufleet.sglang.plugins.module_utils._delegation import plan_patch
from ansible_collections.gpufleet.sglang.plugins.module_utils._python_classes import SourceError, SourceIndex
from gpufleet_testlib.source_tree import write_tree

EAGLE3 = ["get_embed_and_head", "set_eagle3_layers_to_capture", "set_embed_and_head"]

WORKER = """
    class EAGLEWorker:
        def init(self):
            embed, head = self.target_worker.model_runner.model.get_embed_and_head()
            self.target_worker.model_runner.model.set_eagle3_layers_to_capture()
            self.draft_model_runner.model.set_embed_and_head(embed, head)
    """

CAUSAL_LM = """
    from torch import nn
    class LlamaForCausalLM(nn.Module):
        def get_embed_and_head(self):
            return 1, 2
        def set_embed_and_head(self, embed, head):
            pass
        def set_eagle3_layers_to_capture(self, layer_ids=None):
            pass
    class Qwen2ForCausalLM(LlamaForCausalLM):
        pass
    class BareForCausalLM(nn.Module):
        pass
    """


def tree(tmp_path, models, extra=None):
    files = {"__init__.py": "", "version.py": "__version__ = '9.9.9'\n",
             "srt/speculative/eagle_worker.py": WORKER, "srt/models/causal.py": CAUSAL_LM}
    files.update(("srt/models/" + name, text) for name, text in models.items())
    files.update(extra or {})
    write_tree(tmp_path / "sglang", files)
    return str(tmp_path / "sglang")


def audit(root, name, inner_attr="auto", class_name=None):
    return eagle3_audit.audit(root, "srt/models/%s.py" % name, class_name, inner_attr)


def test_inner_model_built_by_a_method_follows_the_subclass_override(tmp_path):
    root = tree(tmp_path, {"wrap.py": """
        from torch import nn
        from sglang.srt.models.causal import LlamaForCausalLM, Qwen2ForCausalLM
        class Base(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.llm = self.init_llm(config)
            def init_llm(self, config):
                raise NotImplementedError
        class V2(Base):
            def init_llm(self, config):
                if config.big:
                    return Qwen2ForCausalLM(config)
                model = LlamaForCausalLM(config)
                return model
        EntryClass = V2
        """})
    result = audit(root, "wrap")
    assert result["inner_attr"] == "llm"
    assert result["inner_class"] == ["Qwen2ForCausalLM", "LlamaForCausalLM"]
    assert result["delegatable"] == result["missing"] == EAGLE3
    # The abstract base alone returns nothing: that is said, not guessed.
    base = audit(root, "wrap", class_name="Base")
    assert base["inner_class"] == []
    assert base["undetermined"][0]["reason"] == "init_llm returns nothing in the source (abstract, or raises)"


def test_inner_model_assigned_in_a_grandparent_init_reached_through_super(tmp_path):
    root = tree(tmp_path, {"wrap.py": """
        from torch import nn
        from sglang.srt.models.causal import LlamaForCausalLM
        class Grand(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.language_model = LlamaForCausalLM(config)
        class Parent(Grand):
            def __init__(self, config):
                super().__init__(config)
                self.vision = None
        class Child(Parent):
            def __init__(self, config):
                Parent.__init__(self, config)
        class Stops(Grand):
            def __init__(self, config):
                nn.Module.__init__(self)
        EntryClass = Child
        """})
    assert audit(root, "wrap")["inner_class"] == ["LlamaForCausalLM"]
    with pytest.raises(SourceError, match="never assigns self.language_model in __init__ .nor in an __init__"):
        audit(root, "wrap", inner_attr="language_model", class_name="Stops")


def test_a_class_passed_up_to_the_base_init_is_followed(tmp_path):
    """The Qwen3-VL shape: the subclass hands its language model class to the base __init__."""
    root = tree(tmp_path, {"wrap.py": """
        from torch import nn
        from sglang.srt.models.causal import LlamaForCausalLM, Qwen2ForCausalLM
        class VL(nn.Module):
            def __init__(self, config, language_model_cls=LlamaForCausalLM):
                super().__init__()
                self.model = language_model_cls(config)
        class VLQwen(VL):
            def __init__(self, config, language_model_cls=Qwen2ForCausalLM):
                super().__init__(config, language_model_cls)
        class VLKeyword(VL):
            def __init__(self, config):
                super().__init__(config, language_model_cls=Qwen2ForCausalLM)
        EntryClass = [VL, VLQwen, VLKeyword]
        """})
    assert audit(root, "wrap", "model", "VL")["inner_class"] == ["LlamaForCausalLM"]
    assert audit(root, "wrap", "model", "VLQwen")["inner_class"] == ["Qwen2ForCausalLM"]
    assert audit(root, "wrap", "model", "VLKeyword")["inner_class"] == ["Qwen2ForCausalLM"]


def test_a_class_attribute_naming_the_class_is_followed(tmp_path):
    root = tree(tmp_path, {"wrap.py": """
        from torch import nn
        from sglang.srt.models import causal
        class Wrapper(nn.Module):
            body_cls = causal.LlamaForCausalLM
            def __init__(self, config):
                super().__init__()
                self.model = self.body_cls(config)
        EntryClass = Wrapper
        """})
    assert audit(root, "wrap")["inner_class"] == ["LlamaForCausalLM"]


FORWARDING = """
    from torch import nn
    from sglang.srt.models.causal import LlamaForCausalLM, BareForCausalLM
    class Forwards:
        def __init__(self, config):
            self.inner = LlamaForCausalLM(config)
        def __getattr__(self, name):
            if name == "inner":
                return None
            return getattr(self.inner, name)
    class ForwardsToBare:
        def __init__(self, config):
            self.inner = BareForCausalLM(config)
        def __getattr__(self, name):
            return getattr(self.inner, name)
    class OwnMethodWins(Forwards):
        def get_embed_and_head(self):
            return None
    class Opaque:
        def __init__(self, config):
            self.inner = LlamaForCausalLM(config)
        def __getattr__(self, name):
            return self.__dict__["_" + name]
    EntryClass = Forwards
    """


def test_getattr_forwarding_provides_what_the_forwarded_object_has(tmp_path):
    root = tree(tmp_path, {"fwd.py": FORWARDING})
    result = audit(root, "fwd")
    assert result["inner_attr"] == "inner" and result["missing"] == [] and result["present"] == EAGLE3
    wrapper = next(m for m in result["methods"] if m["name"] == "get_embed_and_head")["wrapper"]
    assert wrapper["kind"] == "forwarded"
    assert wrapper["defined_in"] == "LlamaForCausalLM via Forwards.__getattr__ to self.inner"
    # Normal lookup comes first: an own method is what Python finds, not the forwarded one.
    own = audit(root, "fwd", class_name="OwnMethodWins")
    assert next(m for m in own["methods"] if m["name"] == "get_embed_and_head")["wrapper"]["kind"] == "method"


def test_what_the_forwarded_object_lacks_is_missing_and_not_delegatable(tmp_path):
    root = tree(tmp_path, {"fwd.py": FORWARDING})
    result = audit(root, "fwd", class_name="ForwardsToBare")
    assert result["missing"] == EAGLE3 and result["undelegatable"] == EAGLE3 and result["delegatable"] == []


def test_a_getattr_that_does_not_forward_is_undetermined(tmp_path):
    root = tree(tmp_path, {"fwd.py": FORWARDING})
    result = audit(root, "fwd", inner_attr="inner", class_name="Opaque")
    assert result["missing"] == [] and result["present"] == []
    [entry] = result["undetermined"]
    assert entry["reason"].startswith("Opaque.__getattr__ answers names the source does not tell")
    assert entry["site"] == "srt/models/fwd.py:22" and entry["names"] == EAGLE3


def test_the_patch_adds_nothing_the_forwarding_already_provides(tmp_path):
    root = tree(tmp_path, {"fwd.py": FORWARDING})
    path = os.path.join(root, "srt/models/fwd.py")
    plan = plan_patch(path, open(path, "rb").read(), "Forwards", "inner", EAGLE3, "present")
    assert not plan.changed and plan.already_present == EAGLE3


@pytest.mark.parametrize("assignment, reason", [
    ("cls = REGISTRY[config.arch]\n                self.language_model = cls(config)",
     "the class is chosen at run time from a registry (cls = REGISTRY[config.arch])"),
    ("cls = REGISTRY.get(config.arch)\n                self.language_model = cls(config)",
     "the class is chosen at run time from a registry (cls = REGISTRY.get(config.arch))"),
    ("self.language_model = getattr(causal, config.arch)(config)",
     "getattr(causal, config.arch)(config) calls the result of an expression"),
    ("self.language_model = make(config)", "make is a parameter without a default"),
])
def test_what_the_source_does_not_tell_is_undetermined_with_its_site(tmp_path, assignment, reason):
    root = tree(tmp_path, {"wrap.py": """
        from torch import nn
        from sglang.srt.models import causal
        REGISTRY = {"llama": causal.LlamaForCausalLM}
        class Wrapper(nn.Module):
            def __init__(self, config, make):
                super().__init__()
                %s
        EntryClass = Wrapper
        """ % assignment})
    result = audit(root, "wrap", "language_model")
    assert result["inner_class"] == [] and result["delegatable"] == result["undelegatable"] == []
    assert result["missing"] == EAGLE3  # the wrapper itself settles that it lacks them
    [entry] = result["undetermined"]
    assert entry["reason"] == reason and entry["site"].startswith("srt/models/wrap.py:")
    assert entry["names"] == EAGLE3
    path = os.path.join(root, "srt/models/wrap.py")
    with pytest.raises(Exception, match=re.escape("cannot be determined from the source: " + reason)):
        plan_patch(path, open(path, "rb").read(), "Wrapper", "language_model", EAGLE3, "present")


def test_the_mro_is_c3_not_depth_first(tmp_path):
    """class D(B, C), B(A), C(A): Python looks in B, C, A; depth first would find A's before C's."""
    root = tree(tmp_path, {"mro.py": """
        class A:
            def get_embed_and_head(self):
                pass
        class B(A):
            pass
        class C(A):
            def get_embed_and_head(self):
                pass
        class D(B, C):
            pass
        """})
    index = SourceIndex(tmp_path)
    info = index.class_in_file(os.path.join(root, "srt/models/mro.py"), "D")
    assert [c.name for c in index.mro(info)] == ["D", "B", "C", "A"]
    assert index.provides(info, "get_embed_and_head").owner == "C"


def test_a_base_reexported_by_a_relative_import_is_found(tmp_path):
    root = tree(tmp_path, {"wrap.py": """
        from sglang.srt.multimodal.evs import EVS
        class Wrapper(EVS):
            pass
        """}, {"srt/multimodal/evs/__init__.py": "from .evs_module import EVS\n",
               "srt/multimodal/evs/evs_module.py": "import torch\nclass EVS(torch.nn.Module):\n    pass\n"})
    index = SourceIndex(tmp_path)
    info = index.class_in_file(os.path.join(root, "srt/models/wrap.py"), "Wrapper")
    assert [c.name for c in index.mro(info)] == ["Wrapper", "EVS"]
    assert index.provides(info, "named_modules").owner == "torch.nn.Module"


def test_a_helper_the_eagle_worker_calls_is_on_the_eagle_path(tmp_path):
    """A name called on the target in a helper module (not *eagle*) that an EAGLE module calls is required;
    the same call in a function no EAGLE module reaches is not."""
    root = tree(tmp_path, {"wrap.py": """
        from torch import nn
        from sglang.srt.models.causal import LlamaForCausalLM
        class Wrapper(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.language_model = LlamaForCausalLM(config)
        EntryClass = Wrapper
        """}, {
        "srt/speculative/eagle_worker.py": WORKER + """
            from sglang.srt.speculative.draft_helpers import bind_draft
            def start(target_model):
                bind_draft(target_model)
            """,
        "srt/speculative/draft_helpers.py": """
            def bind_draft(target_model):
                return _hot(target_model)
            def _hot(target_model):
                return target_model.get_hot_token_ids()
            def unrelated(target_model):
                return target_model.only_elsewhere()
            """})
    result = audit(root, "wrap")
    hot = next(m for m in result["methods"] if m["name"] == "get_hot_token_ids")
    assert hot["required"] is True and hot["call_sites"] == ["srt/speculative/draft_helpers.py:5"]
    assert next(m for m in result["methods"] if m["name"] == "only_elsewhere")["required"] is False
    assert "get_hot_token_ids" in result["undelegatable"]


# The real wheels where the shapes occur.

def test_0523_minicpmv_forwards_to_a_class_chosen_from_a_registry(pristine_trees):
    result = audit(pristine_trees["0.5.23"], "minicpmv", class_name="MiniCPMV4_6ForConditionalGeneration")
    assert result["inner_attr"] == "minicpmv" and result["missing"] == []
    [entry] = result["undetermined"]
    assert entry["reason"] == ("the class is chosen at run time from a registry "
                               "(instance_class = _SUPPORT_VERSION.get(version))")
    assert entry["site"] == "srt/models/minicpmv.py:1750" and "get_embed_and_head" in entry["names"]


def test_0523_minicpmv_versions_build_their_llm_with_init_llm(pristine_trees):
    result = audit(pristine_trees["0.5.23"], "minicpmv", class_name="MiniCPMV2_6")
    assert result["inner_attr"] == "llm" and result["inner_class"] == ["Qwen2ForCausalLM"]


def test_059_qwen3_5_hands_its_class_to_the_qwen3_vl_init(pristine_trees):
    result = audit(pristine_trees["0.5.9"], "qwen3_5", class_name="Qwen3_5ForConditionalGeneration")
    assert result["inner_attr"] == "model" and result["inner_class"] == ["Qwen3_5ForCausalLM"]


def test_059_mistral3_forwards_to_its_inner_llava(pristine_trees):
    result = audit(pristine_trees["0.5.9"], "mistral", class_name="Mistral3ForConditionalGeneration")
    assert result["inner_attr"] == "inner" and result["inner_class"] == ["LlavaForConditionalGeneration"]
    assert result["missing"] == EAGLE3 and result["delegatable"] == []


def test_0523_minicpmv4_7_builds_its_llm_in_a_grandparent_init_from_a_conditional_class(pristine_trees):
    """MiniCPMV4_7 -> MiniCPMV4_6 -> MiniCPMBaseModel.__init__ calls self.init_llm, which 4_6 overrides:
    llm_cls = Qwen3_5MoeForCausalLM if ... else Qwen3_5ForCausalLM; return llm_cls(...)."""
    result = audit(pristine_trees["0.5.23"], "minicpmv", class_name="MiniCPMV4_7")
    assert result["inner_attr"] == "llm" and result["undetermined"] == []
    assert result["inner_class"] == ["Qwen3_5MoeForCausalLM", "Qwen3_5ForCausalLM"]


def test_a_name_assigned_in_a_circle_ends_undetermined(tmp_path):
    root = tree(tmp_path, {"wrap.py": """
        from torch import nn
        class Wrapper(nn.Module):
            def __init__(self, config):
                super().__init__()
                a = b
                b = a
                self.language_model = a(config)
        EntryClass = Wrapper
        """})
    [entry] = audit(root, "wrap")["undetermined"]
    assert entry["reason"].endswith("is assigned through too many names to follow")
