"""The type stub `_core.pyi` must describe the compiled module exactly: the same public names, and
for every function the same parameters, in order, with the same defaults."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import tcplab._core as core

STUB = Path(__file__).resolve().parents[1] / "python" / "tcplab" / "_core.pyi"


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def test_stub_and_module_have_the_same_names() -> None:
    stub = {n.name for n in stub_tree().body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    module = {n for n in dir(core) if not n.startswith("_")}
    assert stub == module


def test_stub_signatures_match_the_module() -> None:
    for node in stub_tree().body:
        if not isinstance(node, ast.FunctionDef):
            continue
        sig = inspect.signature(getattr(core, node.name))
        args = node.args.args
        assert [a.arg for a in args] == list(sig.parameters), node.name
        defaults = [None] * (len(args) - len(node.args.defaults)) + list(node.args.defaults)
        for arg, default in zip(args, defaults, strict=True):
            param = sig.parameters[arg.arg]
            if default is None:
                assert param.default is inspect.Parameter.empty, (node.name, arg.arg)
            elif isinstance(default, ast.Constant) and default.value is not Ellipsis:
                assert param.default == default.value, (node.name, arg.arg)
            else:
                assert param.default is not inspect.Parameter.empty, (node.name, arg.arg)


def test_exception_hierarchy_matches_the_stub() -> None:
    assert issubclass(core.ScenarioError, core.TcplabError)
    assert issubclass(core.ScenarioError, ValueError)
    assert issubclass(core.SimulationError, core.TcplabError)
