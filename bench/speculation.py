"""EAGLE-3 in SGLang's own server on this machine's CPU (not part of make test):

    PYTHONPATH=tests:.collections python bench/speculation.py [--runs 3] [--tokens 32]

SGLang 0.5.9 patched by the collection, the tiny Kimi-K2.5 target that repeats its last token, side by side
in one run: without speculation, with a draft that agrees with the target (every draft token accepted) and
with one that disagrees (none accepted). For each: the cold start (launch to the first 200 of /health), the
decode rate of one greedy generation (its completion tokens over its latency, as SGLang reports them, after a
first request that warms the interpreter's caches) and the acceptance length SGLang reports. Each as the
median of --runs servers, with the spread (min-max), and the rates as ratios to no speculation.

These are figures of Triton's interpreter running SGLang's Triton kernels on CPU tensors with a 64-wide model:
they show the shape (agree > none > disagree in tokens per second), not a GPU's speed.
"""

import argparse
import json
import statistics
import sys
import tempfile
import urllib.request

from gpufleet_testlib import cpu_speculation

CONFIGS = (("no speculation", None), ("agreeing draft", "eagle3-agree"), ("disagreeing draft", "eagle3-disagree"))


def generate(url, tokens):
    sampling = {"max_new_tokens": tokens, "temperature": 0, "ignore_eos": True}
    body = json.dumps({"text": "t5 t6 t7", "sampling_params": sampling}).encode()
    request = urllib.request.Request(url + "/generate", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=900) as answer:
        return json.loads(answer.read())["meta_info"]


def spread(values, unit):
    return "%.2f %s (%.2f-%.2f)" % (statistics.median(values), unit, min(values), max(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=32)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="gpufleet-bench-spec-")
    venv = cpu_speculation.patched_venv(work)
    models = cpu_speculation.tiny_models(work)
    figures = dict((name, {"cold": [], "rate": [], "accept": []}) for name, _draft in CONFIGS)
    for run in range(args.runs):
        for name, draft in CONFIGS:  # side by side in each run: the machine's noise falls on all three alike
            with cpu_speculation.server(venv, models, draft) as (url, cold):
                generate(url, 4)
                meta = generate(url, args.tokens)
            figures[name]["cold"].append(cold)
            figures[name]["rate"].append(meta["completion_tokens"] / meta["e2e_latency"])
            figures[name]["accept"].append(meta.get("spec_accept_length") or 1.0)
            print("run %d, %s: cold start %.1f s, %.2f tok/s, accept length %.2f"
                  % (run + 1, name, cold, figures[name]["rate"][-1], figures[name]["accept"][-1]), file=sys.stderr)
    base = statistics.median(figures["no speculation"]["rate"])
    print("EAGLE-3 on the CPU (SGLang 0.5.9, Triton's interpreter), median of %d runs (min-max):" % args.runs)
    for name, _draft in CONFIGS:
        rate = statistics.median(figures[name]["rate"])
        print("  %-18s cold start %s, decode %s (%.2fx no speculation), accept length %s" % (
            name, spread(figures[name]["cold"], "s"), spread(figures[name]["rate"], "tok/s"), rate / base,
            spread(figures[name]["accept"], "")))


if __name__ == "__main__":
    main()
