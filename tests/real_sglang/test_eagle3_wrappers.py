"""SGLang's own classes decide: each wrapper, built by the real release on the CPU from a tiny config,
gets the calls SGLang's EAGLE-3 path makes on the target model. As the release ships it, a wrapper
the audit finds lacking raises SGLang's own AttributeError for exactly the names the audit lists, and
one it finds complete raises nothing; after the collection's delegation_patch, every call reaches
the inner language model (its own embedding and head come back; it captures the hidden states)."""

import json
import os
import subprocess

import pytest

from gpufleet_testlib import ROOT, real_sglang
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.module_utils._eagle3_audit import audit
from ansible_collections.gpufleet.sglang.plugins.modules import delegation_patch
import tiny_models

PROBE = os.path.join(ROOT, "tests", "real_sglang", "probe.py")
EAGLE3 = ["get_embed_and_head", "set_eagle3_layers_to_capture", "set_embed_and_head"]
CALLED = ["set_eagle3_layers_to_capture", "set_eagle3_layers_to_capture", "get_embed_and_head"]


class Case(object):
    """One wrapper of one release. The patch goes to patch_class/patch_inner (the class the wrapper reaches
    at run time, for one that forwards through __getattr__), by default the wrapper itself."""

    def __init__(self, release, model_file, class_name, inner_attr, config, patch_class=None, patch_inner=None,
                 cpu_stop=None):
        self.release, self.model_file, self.class_name, self.inner_attr = release, model_file, class_name, inner_attr
        self.config = config
        # Where the release itself stops building the wrapper on a machine without a GPU, when it does.
        self.cpu_stop = cpu_stop
        self.patch_class, self.patch_inner = patch_class or class_name, patch_inner or inner_attr
        self.id = "%s@%s" % (class_name, release)


CASES = [
    # The collection's reason to exist: 0.5.9's Kimi-K2.5 wrapper lacks all three.
    Case("0.5.9", "srt/models/kimi_k25.py", "KimiK25ForConditionalGeneration", "language_model", tiny_models.kimi_k25()),
    Case("0.5.9", "srt/models/kimi_vl.py", "KimiVLForConditionalGeneration", "language_model", tiny_models.kimi_vl()),
    # 0.5.9's MiniCPM-V moves its resampler to the GPU by name while it is built: no CPU build exists.
    Case("0.5.9", "srt/models/minicpmv.py", "MiniCPMV2_6", "llm", tiny_models.minicpmv_2_6(),
         cpu_stop='return resampler.to(device="cuda", dtype=torch.get_default_dtype())'),
    # 0.5.10 added the delegations: the audit finds 0.5.23's complete, and SGLang raises nothing.
    Case("0.5.23", "srt/models/kimi_k25.py", "KimiK25ForConditionalGeneration", "language_model", tiny_models.kimi_k25()),
    # A wrapper that still lacks them, all delegatable.
    Case("0.5.23", "srt/models/kimi_vl.py", "KimiVLForConditionalGeneration", "language_model", tiny_models.kimi_vl()),
    # An inner model built by a method the subclass overrides (self.llm = self.init_llm(...)).
    Case("0.5.23", "srt/models/minicpmv.py", "MiniCPMV2_6", "llm", tiny_models.minicpmv_2_6()),
    # A wrapper that forwards through __getattr__ to a class chosen at run time from a registry: the
    # audit cannot settle it from the source; the patch goes to the class the config selects.
    Case("0.5.23", "srt/models/minicpmv.py", "MiniCPMV", "minicpmv", tiny_models.minicpmv_2_6(),
         patch_class="MiniCPMV2_6", patch_inner="llm"),
]
RELEASES = sorted(set(case.release for case in CASES))


def write_config(directory, config):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as handle:
        json.dump(config, handle)
    return directory


@pytest.fixture(scope="session")
def releases(tmp_path_factory):
    """Per release: the audit of each case, a copy of the release linked to it whose model file
    delegation_patch patched (one per case: two cases may patch one file), and the probe's report of every
    case of that release (one process: SGLang's setup once)."""
    found = {}
    for release in RELEASES:
        work = tmp_path_factory.mktemp("real-sglang-" + release)
        shipped = os.path.join(real_sglang.site_packages(release), "sglang")
        cases, audits, patches = [], {}, {}
        for case in CASES:
            if case.release != release:
                continue
            audits[case.id] = audit(shipped, case.model_file, case.class_name, case.inner_attr)
            copy = real_sglang.linked_copy(shipped, str(work / case.id / "sglang"))
            patched = os.path.join(copy, case.model_file)
            patches[case.id] = run_module(delegation_patch, dict(
                path=patched, sglang_root=copy, class_name=case.patch_class, inner_attr=case.patch_inner,
                methods="auto", fail_on_gaps=True, cache_dir=str(work / "cache")))
            entry = {"id": case.id, "module": "sglang." + case.model_file[:-3].replace("/", "."),
                     "class": case.class_name, "patched_file": patched}
            if "class" in case.config:
                entry["config"] = case.config
            else:
                entry["config_dir"] = write_config(str(work / case.id / "model"), case.config)
            cases.append(entry)
        spec = work / "spec.json"
        spec.write_text(json.dumps({"setup_dir": write_config(str(work / "setup"), tiny_models.llama()),
                                    "cases": cases}))
        result = subprocess.run([real_sglang.python(release), PROBE, str(spec)], capture_output=True, text=True,
                                env=real_sglang.environment(), timeout=900, check=False)
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
        report = json.loads(result.stdout.strip().splitlines()[-1])
        assert report["version"] == release
        found[release] = {"audits": audits, "patches": patches, "reports": report["cases"]}
    return found


def raised(calls):
    return sorted(set(call["call"].split("(")[0] for call in calls if not call["ok"]))


BUILT = [case for case in CASES if not case.cpu_stop]
STOPPED = [case for case in CASES if case.cpu_stop]


@pytest.mark.parametrize("case", BUILT, ids=[case.id for case in BUILT])
def test_sglang_raises_what_the_audit_finds_missing_and_nothing_after_the_patch(releases, case):
    found = releases[case.release]
    verdict, patch, report = found["audits"][case.id], found["patches"][case.id], found["reports"][case.id]
    shipped, patched = report["shipped"], report["patched"]
    assert "build_error" not in shipped, shipped.get("build_error")
    called_missing = sorted(set(verdict["missing"]) & set(CALLED))
    undetermined = [name for item in verdict["undetermined"] for name in item["names"]]
    if not undetermined:
        # SGLang agrees with the audit: the names it lists raise, with SGLang's own message, and no other.
        assert raised(shipped["calls"]) == called_missing, (shipped, verdict["missing"])
        for call in shipped["calls"]:
            if not call["ok"]:
                assert call["error"] == "AttributeError: '%s' object has no attribute '%s'" % (
                    case.class_name, call["call"].split("(")[0])
    else:
        # The audit could not settle it from the source, and says why; SGLang's answer is the audit of the
        # class it reaches at run time (the patch target's).
        assert verdict["undetermined"][0]["reason"]
        assert raised(shipped["calls"]) == sorted(set(patch["audit"]["missing"]) & set(CALLED)), shipped
    assert not patch.get("failed"), patch.get("msg")
    assert "build_error" not in patched, patched.get("build_error")
    assert raised(patched["calls"]) == [], patched
    # The calls reached the inner language model: its own embedding and head, its hidden states captured.
    inner = case.patch_inner
    assert all(name.startswith(inner + ".") for name in patched["embed_and_head"]), patched["embed_and_head"]
    assert patched["embed_and_head"][0].endswith("embed_tokens.weight")
    assert patched["embed_and_head"][1].endswith("lm_head.weight")
    assert inner in patched["capturing"], patched["capturing"]


def test_0_5_9_kimi_k25_is_the_crash_and_the_patch_is_its_fix(releases):
    """The seed: 0.5.9's launch dies with set_eagle3_layers_to_capture first, then get_embed_and_head."""
    found = releases["0.5.9"]
    case_id = "KimiK25ForConditionalGeneration@0.5.9"
    assert found["audits"][case_id]["missing"] == EAGLE3
    assert found["patches"][case_id]["delegated"] == EAGLE3
    errors = [call["error"] for call in found["reports"][case_id]["shipped"]["calls"]]
    assert errors[0] == ("AttributeError: 'KimiK25ForConditionalGeneration' object has no attribute "
                         "'set_eagle3_layers_to_capture'")
    assert errors[2] == "AttributeError: 'KimiK25ForConditionalGeneration' object has no attribute 'get_embed_and_head'"


@pytest.mark.parametrize("case", STOPPED, ids=[case.id for case in STOPPED])
def test_a_wrapper_the_release_builds_only_on_a_gpu_stops_where_it_reaches_for_one(releases, case):
    """Reported, not papered over: the traceback ends in the release's own line that needs CUDA."""
    report = releases[case.release]["reports"][case.id]
    for label in ("shipped", "patched"):
        error = report[label]["build_error"]
        assert case.cpu_stop in error and "Found no NVIDIA driver on your system" in error, error
    assert not releases[case.release]["patches"][case.id].get("failed")  # the patch itself applies
