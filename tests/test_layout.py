"""The import graph points one way: the library (``ldopt``, ``ldopt_torch``) never imports its
harness (``ldopt_experiments``), ``ldopt`` never imports torch, and no module imports one that
imports it back — lazy imports inside functions included; imports for type checkers only are not
imports at run time and are left out."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in ("ldopt", "ldopt_torch", "ldopt_experiments"):
        for p in (ROOT / pkg).rglob("*.py"):
            parts = p.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:``."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Module → the modules of this project it imports, and → every top-level package it imports."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    tops: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        pkg = m if path.name == "__init__.py" else m.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text())
        skip = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.ImportFrom):
                base = pkg
                for _ in range(max(node.level - 1, 0)):
                    base = base.rsplit(".", 1)[0]
                target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in mods]
                names = subs if len(subs) == len(node.names) else [target, *subs]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            tops[m].update(n.split(".")[0] for n in names)
            graph[m].update(n for n in names if n in mods and n != m)
    return graph, tops


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    graph, _ = _graph()
    assert not _cycles(graph), _cycles(graph)


def test_the_library_never_imports_its_harness_and_ldopt_never_imports_torch():
    _, tops = _graph()
    harness = sorted(m for m, t in tops.items() if not m.startswith("ldopt_experiments") and "ldopt_experiments" in t)
    assert not harness, f"imports of the harness from the library: {harness}"
    torch = sorted(m for m, t in tops.items() if m.split(".")[0] == "ldopt" and "torch" in t)
    assert not torch, f"ldopt modules importing torch: {torch}"


def test_the_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_readme_is_at_most_300_lines():
    """The front door stays short: the studies and the tuning advice live in docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, len(lines)
