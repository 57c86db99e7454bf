"""Documentation that cannot rot: every public object has a docstring."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("torch", reason="ldopt_torch needs torch (pip install 'ldopt[torch]')")

import ldopt
import ldopt.dual
import ldopt.evaluate.regret
import ldopt.oracles
import ldopt.problems
import ldopt.problems.facility
import ldopt.problems.knapsack
import ldopt.problems.lot_sizing
import ldopt.problems.portfolio
import ldopt.problems.set_cover
import ldopt.problems.shift_scheduling
import ldopt.problems.shortest_path
import ldopt.runtime.cache
import ldopt.runtime.parallel
import ldopt.runtime.threads
import ldopt.solvers
import ldopt_experiments
import ldopt_torch

MODULES = [
    ldopt,
    ldopt.runtime.cache,
    ldopt.dual,
    ldopt.oracles,
    ldopt.runtime.parallel,
    ldopt.problems,
    ldopt.problems.facility,
    ldopt.problems.knapsack,
    ldopt.problems.lot_sizing,
    ldopt.problems.portfolio,
    ldopt.problems.set_cover,
    ldopt.problems.shift_scheduling,
    ldopt.problems.shortest_path,
    ldopt.evaluate.regret,
    ldopt.solvers,
    ldopt.runtime.threads,
    ldopt_torch,
    ldopt_experiments,
]
OURS = ("ldopt", "ldopt_torch", "ldopt_experiments")


def _public(mod: ModuleType) -> list[tuple[str, object]]:
    names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
    out = []
    for n in names:
        obj = getattr(mod, n)
        if isinstance(obj, ModuleType) or not (inspect.isclass(obj) or callable(obj)):
            continue
        if getattr(obj, "__module__", "").split(".")[0] in OURS:
            out.append((f"{mod.__name__}.{n}", obj))
    return out


def _members(name: str, cls: type) -> list[tuple[str, object]]:
    out = []
    for n, obj in vars(cls).items():
        if n.startswith("_"):
            continue
        if isinstance(obj, property):
            obj = obj.fget
        elif isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if inspect.isfunction(obj):
            out.append((f"{name}.{n}", obj))
    return out


def test_every_public_object_has_a_docstring():
    missing = []
    seen = set()
    for mod in MODULES:
        if not (mod.__doc__ or "").strip():
            missing.append(mod.__name__)
        for name, obj in _public(mod):
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            items = [(name, obj)] + (_members(name, obj) if inspect.isclass(obj) else [])
            missing += [n for n, o in items if not (inspect.getdoc(o) or "").strip()]
    assert not missing, f"{len(missing)} public objects without a docstring: {missing}"


def test_no_sphinx_roles_in_the_docstrings():
    """The site renders docstrings as Markdown (mkdocstrings): a Sphinx role such as :class:`X`
    would show raw; cross-references are Markdown links ``[`X`][ldopt.X]`` or code."""
    role = re.compile(r":(class|func|meth|mod|data|attr|exc|obj):`")
    root = Path(__file__).resolve().parents[1]
    found = [
        f"{p.relative_to(root)}:{n}"
        for pkg in ("ldopt", "ldopt_torch", "ldopt_experiments")
        for p in sorted((root / pkg).rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if role.search(line)
    ]
    assert not found, f"Sphinx roles: {found[:10]}"


def _own_init(cls: type) -> bool:
    """Whether ``cls`` is built by an ``__init__`` of ours (a dataclass's included), not one it
    inherits from Python or a library (exceptions, enums, typed dicts, torch modules)."""
    for k in cls.__mro__:
        if k.__module__.split(".")[0] not in OURS:
            return False
        if "__init__" in k.__dict__:
            return True
    return False


def _callables() -> list[object]:
    """Every public callable of the documented modules and their public classes' methods, each
    once: the functions, the classes built by an ``__init__`` of ours, and the methods."""
    out, seen = [], set()
    for mod in MODULES:
        for name, obj in _public(mod):
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if not inspect.isclass(obj) or _own_init(obj):
                out.append(obj)
            if inspect.isclass(obj):
                out += [
                    m
                    for _, m in _members(name, obj)
                    if not isinstance(inspect.getattr_static(obj, m.__name__, None), property)
                ]
    return out


# every public callable: each of its parameters has a numpy-style entry (mkdocstrings renders them as tables)
DOCUMENTED = [
    obj
    for obj in _callables()
    if [
        n
        for n in inspect.signature(obj.__init__ if inspect.isclass(obj) else obj).parameters
        if n not in ("self", "cls")
    ]
]


def test_every_public_callable_is_checked():
    names = {o.__qualname__ for o in DOCUMENTED}
    assert {"fit", "LDLoss", "solve_dual", "Polyak", "Family", "Surrogate.fits", "Problem.solve"} <= names
    assert len(DOCUMENTED) > 150


@pytest.mark.parametrize("obj", DOCUMENTED, ids=lambda o: f"{o.__module__}.{o.__qualname__}")
def test_every_parameter_has_an_entry(obj):
    doc = inspect.getdoc(obj) or ""
    assert "Parameters\n----------\n" in doc, f"{obj.__qualname__}: no Parameters section"
    section = doc.split("Parameters\n----------\n", 1)[1]
    section = re.split(r"\n(?:Returns|Raises|Examples)\n-+\n", section)[0]
    entries = [line.split(":")[0] for line in section.splitlines() if line and not line.startswith(" ")]
    named = {name.strip() for entry in entries for name in entry.split(",")}  # numpy style: "a, b"
    signature = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
    stars = {inspect.Parameter.VAR_KEYWORD: "**", inspect.Parameter.VAR_POSITIONAL: "*"}
    wanted = {stars.get(p.kind, "") + name for name, p in signature.parameters.items() if name not in ("self", "cls")}
    assert named == wanted, f"{obj.__qualname__}: undocumented {wanted - named}, unknown {named - wanted}"
