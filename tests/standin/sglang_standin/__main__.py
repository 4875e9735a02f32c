"""python -m sglang_standin <SGLang's launch_server flags>: see README.md."""

import contextlib
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sglang_standin import checks, config, group, source

DEFAULT_ACCEPT_LENGTH = 3.1
OPEN_PATHS = ("/health", "/health_generate", "/metrics")


def log(message):
    sys.stderr.write("[sglang-standin] %s\n" % message)
    sys.stderr.flush()


def parse_args(root, argv):
    parser = source.build_parser(root)
    try:
        argv = config.merge(parser, argv)
    except ValueError as exc:
        raise SystemExit("ValueError: %s" % exc)
    return vars(parser.parse_args(argv))  # exits 2 on an unknown flag, like SGLang


def startup_checks(root, args):
    target = checks.read_config(args["model_path"])
    checks.check_context_length(args.get("context_length") and int(args["context_length"]), target, False)
    if (args.get("speculative_algorithm") or "").upper() in ("EAGLE", "EAGLE3"):
        draft_path = args.get("speculative_draft_model_path")
        if not draft_path:
            raise checks.StartupError("ValueError: --speculative-draft-model-path is required for EAGLE")
        draft = checks.read_config(draft_path)
        # The draft's ModelConfig gets the same --context-length, marked as the target's.
        checks.check_context_length(args.get("context_length") and int(args["context_length"]), draft, True)
        if args["speculative_algorithm"].upper() == "EAGLE3":
            checks.check_eagle3_target(root, target)
        return draft
    return None


class Load(object):
    """Requests in flight, as SGLang's scheduler gauges count them: one running request per
    prompt of a /generate being served (the stand-in queues nothing, so num_queue_reqs stays 0); the
    tokens generated, as its counter sglang:generation_tokens_total counts them."""

    def __init__(self):
        self.lock = threading.Lock()
        self.running = 0
        self.generated = 0

    @contextlib.contextmanager
    def serving(self, prompts):
        with self.lock:
            self.running += prompts
        try:
            yield
        finally:
            with self.lock:
                self.running -= prompts


def generation(new_tokens, port):
    """One prompt's answer, the fields tests read from SGLang's ("standin_server" is the stand-in's own:
    which server answered, for tests behind a router)."""
    return {"text": " ok" * new_tokens, "meta_info": {
        "completion_tokens": new_tokens, "spec_verify_ct": max(1, new_tokens // 3),
        "standin_server": "%s:%s" % (socket.gethostname(), port or 30000)}}


def metrics_text(args, load, accept):
    """/metrics in Prometheus' text format with SGLang 0.5.9's names (srt/metrics/collector.py) and scheduler
    labels: the acceptance length is 0 without speculative decoding, as SGLang reports it."""
    labels = 'model_name="%s",engine_type="unified",tp_rank="0",pp_rank="0",moe_ep_rank="0"' % (
        args.get("served_model_name") or args["model_path"])
    lines = []
    for name, kind, value, doc in (
            ("num_running_reqs", "gauge", load.running, "The number of running requests."),
            ("num_queue_reqs", "gauge", 0, "The number of requests in the waiting queue."),
            ("spec_accept_length", "gauge", accept or 0, "The average acceptance length of speculative decoding."),
            ("generation_tokens_total", "counter", load.generated, "Number of generation tokens processed.")):
        lines += ["# HELP sglang:%s %s" % (name, doc), "# TYPE sglang:%s %s" % (name, kind),
                  "sglang:%s{%s} %.1f" % (name, labels, value)]
    return "\n".join(lines) + "\n"


def make_handler(args, server_info, model_info, accept=None):
    api_key = args.get("api_key")
    load = Load()
    # Seconds one /generate takes (SGLANG_STANDIN_GENERATE_DELAY, plus SGLANG_STANDIN_TOKEN_DELAY per
    # new token, as decoding does), so that requests are in flight while a router drains the server.
    generate_delay = float(os.environ.get("SGLANG_STANDIN_GENERATE_DELAY", "0"))
    # A file "standin-unhealthy" in the venv stands in for a release that starts but cannot serve on
    # this host (a CUDA mismatch, say): the process runs, /health_generate never answers 200.
    unhealthy = os.path.exists(os.path.join(sys.prefix, "standin-unhealthy"))
    token_delay = float(os.environ.get("SGLANG_STANDIN_TOKEN_DELAY", "0"))

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *values):
            log("%s %s" % (self.address_string(), fmt % values))

        def _send(self, status, body=None, content_type="application/json"):
            data = b"" if body is None else body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _authorized(self):
            if not api_key or self.path.split("?")[0] in OPEN_PATHS:
                return True
            return self.headers.get("Authorization", "") == "Bearer " + api_key

        def do_GET(self):
            path = self.path.split("?")[0]
            if not self._authorized():
                return self._send(401, {"error": "Unauthorized"})
            if path in ("/health", "/health_generate"):
                return self._send(503 if unhealthy else 200)
            if path == "/metrics" and args.get("enable_metrics"):
                return self._send(200, metrics_text(args, load, accept), "text/plain; version=0.0.4")
            if path in ("/server_info", "/get_server_info"):
                return self._send(200, server_info)
            if path in ("/model_info", "/get_model_info"):
                return self._send(200, model_info)
            if path == "/v1/models":
                return self._send(200, {"object": "list", "data": [{
                    "id": args.get("served_model_name") or args["model_path"], "object": "model",
                    "owned_by": "sglang", "root": args["model_path"]}]})
            return self._send(404, {"detail": "Not Found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self._authorized():
                return self._send(401, {"error": "Unauthorized"})
            if self.path.split("?")[0] == "/generate":
                # A list of prompts is one batch (SGLang's GenerateReqInput): decoded together, in the
                # time one takes, answered with a list in their order.
                prompts = body.get("text")
                batch = prompts if isinstance(prompts, list) else [prompts]
                new_tokens = int((body.get("sampling_params") or {}).get("max_new_tokens", 8))
                with load.serving(len(batch)):
                    time.sleep(generate_delay + token_delay * new_tokens)
                with load.lock:
                    load.generated += new_tokens * len(batch)
                answers = [generation(new_tokens, args.get("port")) for _prompt in batch]
                return self._send(200, answers if isinstance(prompts, list) else answers[0])
            return self._send(404, {"detail": "Not Found"})

    return Handler


def main(argv=None):
    root = source.sglang_root()
    args = parse_args(root, sys.argv[1:] if argv is None else argv)
    try:
        draft = startup_checks(root, args)
    except checks.StartupError as exc:
        log("startup failed")
        sys.stderr.write(str(exc) + "\n")
        return 1
    serves = group.join(args)
    delay = float(os.environ.get("SGLANG_STANDIN_LOAD_DELAY", "0"))
    log("loading (stand-in delay %.1f s)" % delay)
    time.sleep(delay)
    if not serves:  # a rank other than 0 serves no HTTP; it lives as long as its group does
        log("rank %s serving its part of the model" % args.get("node_rank"))
        while True:
            time.sleep(3600)

    accept = (draft or {}).get("standin_accept_length", DEFAULT_ACCEPT_LENGTH) if draft is not None else None
    server_info = dict((k, v) for k, v in args.items() if k not in ("api_key", "admin_api_key", "config"))
    server_info.update(version=open_version(root), internal_states=[{"avg_spec_accept_length": accept}]
                       if args.get("speculative_algorithm") else [{}])
    model_info = {"model_path": args["model_path"], "tokenizer_path": args.get("tokenizer_path") or args["model_path"],
                  "is_generation": True}
    host, port = args.get("host") or "127.0.0.1", int(args.get("port") or 30000)
    server = ThreadingHTTPServer((host, port), make_handler(args, server_info, model_info, accept))
    log("The server is fired up and ready to roll! (%s:%d)" % (host, port))
    server.serve_forever()
    return 0


def open_version(root):
    import glob
    for metadata in glob.glob(os.path.join(os.path.dirname(root), "sglang-*.dist-info", "METADATA")):
        with open(metadata) as handle:
            for line in handle:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    return "unknown"


if __name__ == "__main__":
    sys.exit(main())
