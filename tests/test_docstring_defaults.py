"""Every default a public docstring quotes is the signature's: a parameter described as
"``X`` (the default ...)" or "default ``X``" has the default ``X``."""

from __future__ import annotations

import ast
import inspect
import re

import pytest

import ldopt
import ldopt.dual

lt = pytest.importorskip("ldopt_torch", reason="the torch adapter's entry points need torch")

LITERAL = r"-?\d[\d.e+\-]*|None|True|False"
QUOTED = [
    re.compile(r"``([^`]+)``\s*\((?:the |its )?default\b"),  # ``X`` (the default ...)
    re.compile(r"\bdefault(?:s to|:)?\s+``([^`]+)``"),  # default ``X`` / defaults to ``X``
    re.compile(rf"\(default:?\s+({LITERAL})\b"),  # (default 1 ...)
    re.compile(rf"\b({LITERAL}) by default\b"),  # 100 by default
]


def _callables():
    seen = set()
    for mod in (ldopt, ldopt.dual, ldopt.regret, lt):
        for name in getattr(mod, "__all__", dir(mod)):
            obj = getattr(mod, name, None)
            if not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            doc = (obj.__doc__ or "") + ("\n" + (obj.__init__.__doc__ or "") if inspect.isclass(obj) else "")
            yield f"{mod.__name__}.{name}", obj, doc
    yield "Decomposition.dual", ldopt.Decomposition.dual, ldopt.Decomposition.dual.__doc__


def _sections(doc: str) -> dict[str, str]:
    """The numpy-style Parameters section as {name: description} (a section starts at a line
    underlined with dashes)."""
    lines = inspect.cleandoc(doc).splitlines()
    out: dict[str, str] = {}
    section = current = None
    for i, line in enumerate(lines):
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and set(below.strip()) == {"-"}:
            section, current = line.strip(), None
        elif section != "Parameters" or set(line.strip()) == {"-"}:
            continue
        elif line and not line.startswith(" "):
            current = line.strip()
            out[current] = ""
        elif current:
            out[current] += " " + line.strip()
    return out


def _same(quoted: str, default: object) -> bool:
    try:
        value = ast.literal_eval(quoted)
    except (ValueError, SyntaxError):
        return quoted == getattr(default, "__name__", repr(default))
    return value == default or (
        isinstance(value, (int, float)) and isinstance(default, (int, float)) and float(value) == float(default)
    )


def _mismatches(where: str, fn: object, doc: str) -> tuple[int, list[str]]:
    """How many quoted defaults ``fn``'s docstring has, and those that differ from its signature."""
    try:
        params = inspect.signature(fn).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0, []
    checked, wrong = 0, []
    for names, text in _sections(doc or "").items():
        for name in [n.strip().lstrip("*") for n in names.split(",")]:
            p = params.get(name)
            if p is None or p.default is inspect.Parameter.empty:
                continue
            for quoted in (q for pattern in QUOTED for q in pattern.findall(text)):
                checked += 1
                if not _same(quoted, p.default):
                    wrong.append(f"{where}({name}=): the docstring says ``{quoted}``, the default is {p.default!r}")
    return checked, wrong


def test_quoted_defaults_match_the_signatures():
    results = [_mismatches(*c) for c in _callables()]
    assert sum(n for n, _ in results) >= 6  # the patterns still find quoted defaults
    wrong = [w for _, ws in results for w in ws]
    assert not wrong, "\n".join(wrong)


def test_a_wrong_quoted_default_is_found():
    def imle(lambd: float = 100.0, solver: str = "auto") -> None:
        """I-MLE.

        Parameters
        ----------
        lambd
            The interpolation step, ``10`` (the default).
        solver
            A solver name (default ``"auto"``), 2 by default.
        """

    assert _mismatches("imle", imle, imle.__doc__ or "") == (
        3,
        [
            "imle(lambd=): the docstring says ``10``, the default is 100.0",
            "imle(solver=): the docstring says ``2``, the default is 'auto'",
        ],
    )
