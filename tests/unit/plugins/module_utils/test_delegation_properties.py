"""Property-based: on any class layout, apply -> apply is a fixed point and apply -> absent restores the bytes."""

from hypothesis import given, settings, HealthCheck
from hypothesis import strategies as st

from ansible_collections.gpufleet.sglang.plugins.module_utils._delegation import plan_patch

INNER_METHODS = ["get_embed_and_head", "set_eagle3_layers_to_capture", "set_embed_and_head", "start_layer"]


@st.composite
def layouts(draw):
    unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    nested = draw(st.booleans())
    own = draw(st.lists(st.sampled_from(INNER_METHODS + ["forward", "load_weights"]), unique=True, max_size=3))
    requested = draw(st.lists(st.sampled_from(INNER_METHODS), unique=True, min_size=1))
    docstring = draw(st.booleans())
    decorated = draw(st.booleans())
    after = draw(st.sampled_from(["", "\n\nEntryClass = [Wrapper]\n", "\n# trailing comment\n", "\n\n\n"]))
    final_newline = draw(st.booleans())

    inner = ["class Inner:"]
    for name in INNER_METHODS:
        if name == "start_layer":
            inner.append(unit + "@property")
        inner += [unit + "def %s(self, *args):" % name, unit * 2 + "return args"]

    base = unit if nested else ""
    wrapper = ["class Outer:"] if nested else []
    if decorated:
        wrapper.append(base + "@staticmethod_like")
    wrapper.append(base + "class Wrapper:")
    if docstring:
        wrapper.append(base + unit + '"""Wraps a language model."""')
    wrapper += [base + unit + "def __init__(self):", base + unit * 2 + "self.language_model = Inner()"]
    for name in own:
        wrapper += ["", base + unit + "def %s(self):" % name, base + unit * 2 + "return 0"]

    text = newline.join(["staticmethod_like = lambda cls: cls", ""] + inner + ["", ""] + wrapper)
    text += after.replace("\n", newline) if after else ""
    if final_newline and not text.endswith(newline):
        text += newline
    if not final_newline:
        text = text.rstrip("\r\n")
    class_name = "Outer.Wrapper" if nested else "Wrapper"
    return text, class_name, requested


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=layouts())
def test_apply_is_a_fixed_point_and_absent_restores_bytes(tmp_path, layout):
    text, class_name, requested = layout
    path = str(tmp_path / "model.py")
    data = text.encode()
    compile(text, path, "exec")

    first = plan_patch(path, data, class_name, "language_model", requested, "present")
    compile(first.new, path, "exec")
    second = plan_patch(path, first.new.encode(), class_name, "language_model", requested, "present")
    assert second.new == first.new and not second.changed

    removed = plan_patch(path, first.new.encode(), class_name, "language_model", [], "absent")
    assert removed.new.encode() == data
