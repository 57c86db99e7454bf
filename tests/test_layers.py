"""The tree's layers: every module of ``ldopt`` and ``ldopt_torch`` sits on one layer of the stages
data flows through, imports only from its own layer and those below (every import counted:
module-level, inside functions and under ``TYPE_CHECKING``), and no two modules import each other
through any chain (no circles)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# the stages in the order data flows, lowest first; a name is a module or a package (what of it no
# earlier entry names)
LAYERS = {
    "ldopt": [
        ("foundation", ["errors", "checks", "arrays"]),
        ("runtime", ["runtime"]),
        (
            "model data",
            [
                "model.compiled",
                "model.compile_checks",
                "model.compile_rows",
                "model.propagation",
                "model.pyomo_build",
                "model.violation",
            ],
        ),
        ("oracles", ["oracles"]),
        ("solvers", ["solvers", "model.solution"]),
        ("model", ["model"]),  # compiling (the bounds its rows imply take an LP), the Problem, batched solves
        ("evaluation", ["evaluate"]),
        ("decomposition", ["decomposition.grouping", "decomposition.user_oracles", "decomposition.blocks"]),
        ("dual", ["dual"]),
        ("the user's decomposition (the blocks with dec.dual)", ["decomposition"]),
        ("problem families", ["problems"]),
        ("package", [""]),
    ],
    "ldopt_torch": [
        ("data", ["data"]),
        ("losses", ["losses"]),
        ("training", ["train"]),
        ("package", [""]),
    ],
}


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for f in (ROOT / package).rglob("*.py"):
        parts = f.relative_to(ROOT / package).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _imports(package: str, modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's imports of modules of ``package`` (names relative to the package; "" is its
    ``__init__``); ``from package import sub`` counts as importing ``sub``, not the package."""
    graph: dict[str, set[str]] = {}
    for name, f in modules.items():
        here = name.split(".") if name else []
        is_pkg = f.name == "__init__.py"
        found: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here if is_pkg else here[:-1]
                    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                    stem = ".".join([package, *base, *([node.module] if node.module else [])])
                else:
                    stem = node.module or ""
                subs = [f"{stem}.{a.name}" for a in node.names]
                targets = [s for s in subs if s.removeprefix(package + ".") in modules] or [stem]
            else:
                continue
            for t in targets:
                if t != package and not t.startswith(package + "."):
                    continue
                rel = t.removeprefix(package).removeprefix(".")
                while rel not in modules and rel:
                    rel = rel.rsplit(".", 1)[0] if "." in rel else ""
                if rel != name:
                    found.add(rel)
        graph[name] = found
    return graph


def _layer(package: str, module: str) -> int:
    for i, (_, names) in enumerate(LAYERS[package]):
        for n in names:
            if module == n or (n and module.startswith(n + ".")):
                return i
    raise AssertionError(f"{package}.{module} is on no layer: add it to LAYERS in {Path(__file__).name}")


@pytest.mark.parametrize("package", list(LAYERS))
def test_every_module_imports_only_its_layer_and_those_below(package):
    modules = _modules(package)
    graph = _imports(package, modules)
    wrong = [
        f"{package}.{m or '__init__'} ({LAYERS[package][_layer(package, m)][0]}) imports {package}.{t} "
        f"({LAYERS[package][_layer(package, t)][0]})"
        for m, targets in sorted(graph.items())
        for t in sorted(targets)
        if _layer(package, t) > _layer(package, m)
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", list(LAYERS))
def test_no_import_circles(package):
    graph = _imports(package, _modules(package))
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                circles.append([*path[path.index(t) :], t] if t in path else [m, t])
            elif t not in state:
                visit(t, [*path, t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not circles, "\n".join(" -> ".join(c) for c in circles)


def test_the_layer_check_finds_a_circle_and_an_upward_import(tmp_path, monkeypatch):
    """The checks above can fail: a package whose low module imports a high one is caught."""
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("from .high import x\n")
    (pkg / "high.py").write_text("from . import low\nx = 1\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    monkeypatch.setitem(LAYERS, "demo", [("low", ["low"]), ("high", ["high"]), ("package", [""])])
    with pytest.raises(AssertionError, match=r"demo\.low \(low\) imports demo\.high \(high\)"):
        test_every_module_imports_only_its_layer_and_those_below("demo")
    with pytest.raises(AssertionError, match=r"high -> low -> high|low -> high -> low"):
        test_no_import_circles("demo")
