"""Run by the interpreter of a venv with a real SGLang release: build model wrappers on the CPU from
tiny configs and call on each what SGLang's EAGLE-3 path calls on the target model, as it calls it;
each wrapper as the release ships it, and as the collection's delegation_patch left a copy of its file.

    python probe.py SPEC.json      prints one JSON line: {"version", "cases": {id: {"shipped", "patched"}}}

SPEC: {"setup_dir": a model directory for SGLang's server args (the process's setup),
       "cases": [{"id", "module": "sglang.srt.models.kimi_k25", "class": "KimiK25ForConditionalGeneration",
                  "config_dir": a directory with the wrapper's config.json, or
                  "config": {"class": "transformers.Qwen2Config", "values": {...}, "sub": {attr: config}} for a
                  model whose config SGLang does not register (remote code on the Hub),
                  "patched_file": the patched copy of the module's file, or null,
                  "layer_ids": the draft's aux hidden state layers}]}
"""

import importlib
import importlib.util
import json
import socket
import sys
import traceback


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def setup(model_dir):
    """What SGLang's scheduler process sets up before it builds a model, at world size 1 on gloo."""
    import sglang
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.distributed import init_distributed_environment, initialize_model_parallel
    from sglang.srt.layers import dp_attention
    from sglang.srt.server_args import ServerArgs, set_global_server_args_for_scheduler

    args = ServerArgs(model_path=model_dir, device="cpu")
    set_global_server_args_for_scheduler(args)
    published = not hasattr(dp_attention, "compute_dp_attention_local_info")  # 0.5.2x: the runtime context
    if published:
        from sglang.srt.runtime_context import SpawnRanks, publish
        publish(args, role="test", ranks=SpawnRanks(world_rank=0, dp_rank=None, gpu_id=0))
    init_distributed_environment(backend="gloo", world_size=1, rank=0, local_rank=0,
                                 distributed_init_method="tcp://127.0.0.1:%d" % free_port())
    if published:
        initialize_model_parallel()
        dp_attention.initialize_dp_attention(args)
    else:
        initialize_model_parallel(tensor_model_parallel_size=1)
        dp_attention.initialize_dp_attention(server_args=args, model_config=ModelConfig.from_server_args(args))
    return sglang.__version__, ModelConfig.from_server_args(args).hf_config


def build_config(spec):
    module, name = spec["class"].rsplit(".", 1)
    config = getattr(importlib.import_module(module), name)(**spec.get("values", {}))
    for attr, sub in spec.get("sub", {}).items():
        setattr(config, attr, build_config(sub))
    return config


def call(model, name, *args):
    try:
        return {"ok": True, "value": getattr(model, name)(*args)}
    except Exception as exc:  # noqa: BLE001 - what SGLang's caller would get is the result
        return {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}


def load_config(case):
    """The wrapper's config as SGLang's model loader gets it (ModelConfig adds what the wrappers read)."""
    if "config" in case:
        return build_config(case["config"])
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.server_args import ServerArgs
    return ModelConfig.from_server_args(ServerArgs(model_path=case["config_dir"], device="cpu")).hf_config


def patched_module(case):
    """The patched copy of the case's file, loaded beside the shipped module under another name (its
    imports are absolute: it builds from the same release)."""
    name = case["module"] + "_gpufleet_patched"
    spec = importlib.util.spec_from_file_location(name, case["patched_file"])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_case(case):
    report = {}
    modules = [("shipped", importlib.import_module(case["module"]))]
    if case.get("patched_file"):
        modules.append(("patched", patched_module(case)))
    for label, module in modules:
        try:
            model = getattr(module, case["class"])(config=load_config(case), quant_config=None)
        except Exception:  # noqa: BLE001 - a wrapper that does not build is reported, with where
            report[label] = {"build_error": traceback.format_exc()[-3000:]}
            continue
        report[label] = calls(model, case.get("layer_ids", [1]))
    return report


def calls(model, layer_ids):
    # model_runner.py with the draft's aux hidden state layers, the graph runners with none, the EAGLE
    # worker for the target's embedding and head (which it hands to the draft).
    results = []
    for item in (("set_eagle3_layers_to_capture", layer_ids), ("set_eagle3_layers_to_capture",),
                 ("get_embed_and_head",)):
        result = call(model, *item)
        result["call"] = "%s(%s)" % (item[0], ", ".join(json.dumps(arg) for arg in item[1:]))
        results.append(result)
    embed_head = results[-1].pop("value", None)
    for result in results:
        result.pop("value", None)
    names = dict((id(param), name) for name, param in model.named_parameters())
    return {
        "class": type(model).__name__,
        "calls": results,
        # Where the returned tensors live in the wrapper (the inner model's own parameters) ...
        "embed_and_head": [names.get(id(tensor), "not a parameter of the wrapper") for tensor in embed_head]
        if embed_head else None,
        # ... and which of its modules now capture EAGLE-3's hidden states.
        "capturing": sorted(path for path, module in model.named_modules()
                            if getattr(module, "capture_aux_hidden_states", False)),
    }


def main():
    with open(sys.argv[1]) as handle:
        spec = json.load(handle)
    import sgl_kernel  # noqa: F401 - the double, first: SGLang's modules read its torch ops when imported
    import torch

    version, _config = setup(spec["setup_dir"])
    torch.set_default_dtype(torch.bfloat16)
    print(json.dumps({"version": version, "cases": dict((case["id"], run_case(case)) for case in spec["cases"])}))


if __name__ == "__main__":
    try:
        main()
    except Exception:  # noqa: BLE001 - a build that fails is reported, with where it stopped
        print(json.dumps({"build_error": traceback.format_exc()[-4000:]}))
        sys.exit(1)
