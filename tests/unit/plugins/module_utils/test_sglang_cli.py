"""The flag reader on the real releases (both ways SGLang declares flags) and on synthetic sources."""

import textwrap

import pytest

from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_cli import read_flags, unknown

LAUNCH_FLAGS = ["--model-path", "--served-model-name", "--tp-size", "--trust-remote-code", "--context-length",
                "--mem-fraction-static", "--host", "--port", "--speculative-algorithm",
                "--speculative-draft-model-path", "--speculative-draft-model-revision", "--speculative-num-steps",
                "--speculative-eagle-topk", "--speculative-num-draft-tokens", "--enable-metrics", "--config",
                "--nnodes", "--node-rank", "--dist-init-addr", "--api-key", "--admin-api-key"]


@pytest.mark.parametrize("version", ["0.5.8", "0.5.9", "0.5.23"])
def test_every_flag_the_launch_role_emits_is_known(pristine_trees, version):
    flags = read_flags(pristine_trees[version])
    assert unknown(flags, LAUNCH_FLAGS) == []
    assert flags["--trust-remote-code"].valueless and flags["--enable-metrics"].valueless
    assert not flags["--model-path"].valueless and flags["--model-path"].dest == "model_path"


def test_0523_declares_most_flags_as_fields(pristine_trees):
    flags = read_flags(pristine_trees["0.5.23"])
    # --tp-size is the field tp_size with an alias; --config is still an add_argument call.
    assert flags["--tp-size"] is flags["--tensor-parallel-size"] and flags["--tp-size"].dest == "tp_size"
    assert flags["--speculative-draft-model"] is flags["--speculative-draft-model-path"]
    assert "--speculative-boundary-reduction" not in flags  # Arg(no_cli=True)
    assert len(flags) > len(read_flags(pristine_trees["0.5.9"])) > 300


def test_fields_and_add_argument_read_by_ast(tmp_path):
    root = tmp_path / "sglang"
    (root / "srt/arg_groups/fields").mkdir(parents=True)
    (root / "srt/server_args.py").write_text(textwrap.dedent("""
        def add_cli_args(parser):
            add_cli_args_from_dataclass(parser, ServerArgs)
            parser.add_argument("--config", type=str)
            parser.add_argument("--old-switch", action=DeprecatedStoreTrueAction, new_flag="--new")
        """))
    (root / "srt/arg_groups/fields/model.py").write_text(textwrap.dedent("""
        class Model(msgspec.Struct):
            _NS_PATH = "model"
            model_path: A[str, "The model."]
            tp_size: A[int, Arg(help="TP.", cli_name="--tensor-parallel-size", aliases=["--tp-size"])] = 1
            trust_remote_code: A[bool, "Trust."] = False
            maybe: A[Optional[bool], "Optional bool."] = None
            ids: A[Optional[List[int]], "Several."] = None
            json_ids: A[List[int], Arg(help="One string.", type_parser=json_list_type)] = None
            hidden: A[str, Arg(no_cli=True)] = "x"
            plain: int = 3
        """))
    flags = read_flags(str(root))
    assert sorted(flags) == ["--config", "--ids", "--json-ids", "--maybe", "--model-path", "--old-switch",
                             "--tensor-parallel-size", "--tp-size", "--trust-remote-code"]
    assert flags["--tp-size"].dest == "tp_size" and flags["--tp-size"].names == ["--tensor-parallel-size", "--tp-size"]
    assert flags["--trust-remote-code"].valueless and flags["--maybe"].valueless and flags["--old-switch"].valueless
    assert flags["--ids"].nargs == "+" and flags["--json-ids"].nargs is None
    assert unknown(flags, ["--model-path", "/m", "--tp-size=8", "--gone", "x", "--gone", "--config", "c"]) == ["--gone"]


def test_fields_of_server_args_itself_are_read(tmp_path):
    """0.5.14 to 0.5.1x: the annotated fields sit in the ServerArgs dataclass of srt/server_args.py."""
    (tmp_path / "srt").mkdir()
    (tmp_path / "srt/server_args.py").write_text(textwrap.dedent("""
        @dataclasses.dataclass
        class ServerArgs:
            model_path: A[str, Arg(help="The model.", aliases=["--model"])]
            enable_metrics: A[bool, "Metrics."] = False
            def add_cli_args(parser):
                add_cli_args_from_dataclass(parser, ServerArgs)
                parser.add_argument("--config", type=str)
        """))
    flags = read_flags(str(tmp_path))
    assert sorted(flags) == ["--config", "--enable-metrics", "--model", "--model-path"]
    assert flags["--enable-metrics"].valueless and flags["--model"] is flags["--model-path"]


def test_a_source_without_model_path_is_refused(tmp_path):
    (tmp_path / "srt").mkdir()
    (tmp_path / "srt/server_args.py").write_text("def add_cli_args(parser):\n    build(parser)\n")
    with pytest.raises(ValueError, match="declares no --model-path"):
        read_flags(str(tmp_path))
