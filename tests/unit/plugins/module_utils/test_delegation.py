"""The delegation patch: the generic contract on synthetic files, and SGLang 0.5.9's real file."""

import ast
import os
import textwrap

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils import _delegation as delegation, _eagle3_audit as eagle3_audit
from ansible_collections.gpufleet.sglang.plugins.module_utils._delegation import (
    BEGIN_MARKER,
    END_MARKER,
    PatchError,
    plan_patch,
)

EAGLE3 = ["get_embed_and_head", "set_eagle3_layers_to_capture", "set_embed_and_head"]

INNER = """\
class Inner:
    def get_embed_and_head(self):
        return "embed", "head"

    def set_eagle3_layers_to_capture(self, layer_ids=None):
        return layer_ids

    @property
    def start_layer(self):
        return 7
"""


def source(body):
    return INNER + "\n\n" + textwrap.dedent(body)


def apply(path, data, methods, class_name="Wrapper", state="present", strict=True):
    return plan_patch(str(path), data, class_name, "language_model", methods, state, strict=strict)


def roundtrip(tmp_path, text, methods, class_name="Wrapper"):
    """apply, apply again, remove: returns the patched text after checking the contract."""
    path = tmp_path / "model.py"
    data = text.encode()
    path.write_bytes(data)
    first = apply(path, data, methods, class_name)
    assert first.changed
    compile(first.new, str(path), "exec")
    second = apply(path, first.new.encode(), methods, class_name)
    assert not second.changed and second.new == first.new
    removed = apply(path, first.new.encode(), [], class_name, state="absent")
    assert removed.new.encode() == data
    return first.new


WRAPPER = """
class Wrapper:
    def __init__(self):
        self.language_model = Inner()

    def forward(self):
        return 1
"""


def test_adds_one_marked_block_at_the_end_of_the_class(tmp_path):
    new = roundtrip(tmp_path, source(WRAPPER), ["get_embed_and_head", "start_layer"])

    assert new.endswith(textwrap.dedent("""\
        def forward(self):
                return 1

            %s
            def get_embed_and_head(self, *args, **kwargs):
                return self.language_model.get_embed_and_head(*args, **kwargs)

            @property
            def start_layer(self):
                return self.language_model.start_layer
            %s
        """ % (BEGIN_MARKER, END_MARKER)).replace("def forward", "    def forward", 1))


def test_decorated_class(tmp_path):
    text = source("""
        import functools

        @functools.total_ordering
        @functools.lru_cache
        class Wrapper:
            def __init__(self):
                self.language_model = Inner()
        """)
    new = roundtrip(tmp_path, text, EAGLE3[:2])
    assert new.count(BEGIN_MARKER) == 1


def test_nested_class_by_dotted_name(tmp_path):
    text = source("""
        class Outer:
            class Wrapper:
                def __init__(self):
                    self.language_model = Inner()

            def after(self):
                return 2
        """)
    new = roundtrip(tmp_path, text, ["get_embed_and_head"], class_name="Outer.Wrapper")
    assert "        " + BEGIN_MARKER in new
    assert "            return self.language_model.get_embed_and_head(*args, **kwargs)" in new
    tree = ast.parse(new)
    outer = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Outer")
    nested = outer.body[0]
    assert [n.name for n in nested.body] == ["__init__", "get_embed_and_head"]
    assert [n.name for n in outer.body][1] == "after"


def test_class_as_last_statement_without_final_newline(tmp_path):
    text = source(WRAPPER).rstrip("\n")
    new = roundtrip(tmp_path, text, EAGLE3[:2])
    assert new.endswith(END_MARKER)


def test_tabs_are_kept(tmp_path):
    text = source(WRAPPER).replace("    ", "\t")
    new = roundtrip(tmp_path, text, EAGLE3[:2])
    assert "\n\tdef get_embed_and_head(self, *args, **kwargs):\n\t\treturn self.language_model" in new


def test_crlf_is_kept(tmp_path):
    text = source(WRAPPER).replace("\n", "\r\n")
    new = roundtrip(tmp_path, text, EAGLE3[:2])
    assert "\n" not in new.replace("\r\n", "")


def test_two_space_indentation_is_kept(tmp_path):
    text = source(WRAPPER).replace("    ", "  ")
    new = roundtrip(tmp_path, text, EAGLE3[:2])
    assert "\n  def get_embed_and_head(self, *args, **kwargs):\n    return self." in new


def test_docstring_only_class_that_inherits_the_inner_assignment(tmp_path):
    text = source("""
        class Base:
            def __init__(self):
                self.language_model = Inner()

        class Wrapper(Base):
            \"\"\"Only a docstring.\"\"\"
        """)
    new = roundtrip(tmp_path, text, EAGLE3[:2])
    assert '"""Only a docstring."""\n\n    ' + BEGIN_MARKER in new


def test_never_adds_a_method_the_class_has_or_inherits(tmp_path):
    text = source("""
        class Base:
            def get_embed_and_head(self):
                return "own"

        class Wrapper(Base):
            def __init__(self):
                self.language_model = Inner()

            def set_eagle3_layers_to_capture(self, layer_ids=None):
                return "own"
        """)
    path = tmp_path / "m.py"
    plan = apply(path, text.encode(), EAGLE3[:2] + ["start_layer"])
    assert plan.already_present == EAGLE3[:2]
    assert plan.delegated == ["start_layer"]


def test_nothing_to_add_changes_nothing(tmp_path):
    text = source("""
        class Wrapper:
            def __init__(self):
                self.language_model = Inner()

            def get_embed_and_head(self):
                return 1
        """)
    plan = apply(tmp_path / "m.py", text.encode(), ["get_embed_and_head"])
    assert not plan.changed and plan.delegated == []


def test_block_with_other_methods_is_rewritten_not_duplicated(tmp_path):
    text = source(WRAPPER)
    path = tmp_path / "m.py"
    one = apply(path, text.encode(), ["get_embed_and_head"])
    two = apply(path, one.new.encode(), ["get_embed_and_head", "set_eagle3_layers_to_capture"])

    assert two.changed and two.previous == ["get_embed_and_head"]
    assert two.new.count(BEGIN_MARKER) == 1 and two.new.count("def get_embed_and_head") == 2
    assert two.new == apply(path, text.encode(), two.delegated).new


def test_a_hand_edited_block_is_restored(tmp_path):
    path = tmp_path / "m.py"
    patched = apply(path, source(WRAPPER).encode(), ["get_embed_and_head"]).new
    edited = patched.replace("return self.language_model.get_embed_and_head", "return None and self.x")
    plan = apply(path, edited.encode(), ["get_embed_and_head"])
    assert plan.changed and plan.new == patched


@pytest.mark.parametrize("data, message", [
    (b"\xff\xfe\x00binary", "is not a UTF-8 Python source file"),
    (b"this is: not python\n", "is not valid Python"),
    (source(WRAPPER).encode(), "class Missing is not defined"),
])
def test_bad_input_fails_with_what_to_change(tmp_path, data, message):
    class_name = "Missing" if b"Wrapper" in data else "Wrapper"
    with pytest.raises(PatchError, match=message):
        apply(tmp_path / "m.txt", data, ["get_embed_and_head"], class_name=class_name)


def test_inner_attribute_never_assigned(tmp_path):
    text = source("""
        class Wrapper:
            def __init__(self):
                self.model = Inner()
        """)
    with pytest.raises(PatchError, match="never assigns self.language_model in __init__ .*; set inner_attr"):
        apply(tmp_path / "m.py", text.encode(), ["get_embed_and_head"])


def test_name_the_inner_class_lacks(tmp_path):
    with pytest.raises(PatchError, match=r"Inner \(the class of self.language_model\) does not have "
                                         r"set_embed_and_head, .*remove it from methods"):
        apply(tmp_path / "m.py", source(WRAPPER).encode(), EAGLE3)
    lenient = apply(tmp_path / "m.py", source(WRAPPER).encode(), EAGLE3, strict=False)
    assert lenient.lacking == ["set_embed_and_head"] and lenient.delegated == EAGLE3[:2]


def test_ambiguous_class_name(tmp_path):
    text = source("""
        class A:
            class Wrapper:
                pass

        class B:
            class Wrapper:
                pass
        """)
    with pytest.raises(PatchError, match="defined 2 times .*A.Wrapper, B.Wrapper"):
        apply(tmp_path / "m.py", text.encode(), ["x"])


def test_body_on_the_class_line(tmp_path):
    text = INNER + "\nclass Wrapper: language_model = Inner()\n"
    with pytest.raises(PatchError, match="on its class line"):
        apply(tmp_path / "m.py", text.encode(), ["get_embed_and_head"])


def test_damaged_block(tmp_path):
    patched = apply(tmp_path / "m.py", source(WRAPPER).encode(), ["get_embed_and_head"]).new
    damaged = patched.replace(END_MARKER, "# end")
    with pytest.raises(PatchError, match="BEGIN marker .* but no END marker"):
        apply(tmp_path / "m.py", damaged.encode(), ["get_embed_and_head"])


def test_result_that_would_not_compile_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(delegation, "render_block", lambda *a: "    def broken(:\n")
    with pytest.raises(PatchError, match="would not compile .*left as it was"):
        apply(tmp_path / "m.py", source(WRAPPER).encode(), ["get_embed_and_head"])


# --- SGLang 0.5.9's real kimi_k25.py -----------------------------------------------------


class Recorder(object):
    """Stands in for the DeepseekV3ForCausalLM instance (which needs torch and a GPU)."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        def record(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return ("returned-by", name)
        return record


def load_patched_class(path, class_name):
    """Execute the patched class's own methods, without its module's torch imports."""
    tree = ast.parse(open(path).read())
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    node.bases, node.keywords, node.decorator_list = [], [], []
    node.body = [n for n in node.body if isinstance(n, ast.FunctionDef)]
    for func in node.body:  # annotations name torch types; they do not matter here
        func.returns = None
        for arg in func.args.args + func.args.kwonlyargs:
            arg.annotation = None
    module = ast.Module(body=[node], type_ignores=[])
    namespace = {}
    exec(compile(ast.fix_missing_locations(module), path, "exec"), namespace)
    return namespace[class_name]


def test_059_patch_adds_the_three_methods_and_they_forward(sglang_copy):
    root = sglang_copy("0.5.9")
    path = os.path.join(root, "srt/models/kimi_k25.py")
    original = open(path, "rb").read()
    required = eagle3_audit.audit(root)["required"]

    plan = plan_patch(path, original, "KimiK25ForConditionalGeneration", "language_model", required,
                      "present", strict=False)
    assert plan.delegated == EAGLE3
    with open(path, "w") as handle:
        handle.write(plan.new)

    cls = load_patched_class(path, "KimiK25ForConditionalGeneration")
    wrapper = cls.__new__(cls)
    wrapper.language_model = Recorder()
    assert wrapper.set_eagle3_layers_to_capture() == ("returned-by", "set_eagle3_layers_to_capture")
    assert wrapper.set_eagle3_layers_to_capture([2, 30, 58]) == ("returned-by", "set_eagle3_layers_to_capture")
    assert wrapper.get_embed_and_head() == ("returned-by", "get_embed_and_head")
    wrapper.set_embed_and_head("E", head="H")
    assert wrapper.language_model.calls == [
        ("set_eagle3_layers_to_capture", (), {}),
        ("set_eagle3_layers_to_capture", ([2, 30, 58],), {}),
        ("get_embed_and_head", (), {}),
        ("set_embed_and_head", ("E",), {"head": "H"}),
    ]

    after = eagle3_audit.audit(root)
    assert after["missing"] == [] and after["present"] == EAGLE3
    again = plan_patch(path, plan.new.encode(), "KimiK25ForConditionalGeneration", "language_model",
                       after["required"], "present", strict=False)
    assert not again.changed
    restored = plan_patch(path, plan.new.encode(), "KimiK25ForConditionalGeneration", "language_model",
                          [], "absent")
    assert restored.new.encode() == original


@pytest.mark.parametrize("version", ["0.5.10", "0.5.23"])
def test_fixed_releases_are_not_changed(pristine_trees, version):
    root = pristine_trees[version]
    path = os.path.join(root, "srt/models/kimi_k25.py")
    required = eagle3_audit.audit(root)["required"]
    plan = plan_patch(path, open(path, "rb").read(), "KimiK25ForConditionalGeneration", "language_model",
                      required, "present", strict=False)
    assert not plan.changed
    assert plan.already_present == required and set(EAGLE3) <= set(required)
