"""Shift scheduling (rostering): the paper's other future-work problem. Data from features, and the
Pyomo model.

``E`` employees, ``D`` days, ``T`` shifts a day (the last one a night shift). ``x[e, d, t] ∈ {0, 1}``
puts employee ``e`` on shift ``t`` of day ``d`` at cost ``c[e, d, t]`` (the costs to predict: pay
times an inconvenience that depends on the context, e.g. forecast demand, weather, holidays)::

    min  Σ c[e,d,t] x[e,d,t]
    s.t. Σ_e x[e,d,t] >= r[d,t]              (staffing of every shift; m.cover[d, t])
         Σ_t x[e,d,t] <= 1                   (one shift a day; m.day[e, d])
         x[e,d,T-1] + x[e,d+1,0] <= 1        (no early shift after a night; m.rest[e, d])
         Σ_dt x[e,d,t] <= most[e]            (contract maximum; m.most[e])
         Σ_dt x[e,d,t] >= least[e]           (contract minimum; m.least[e])

Every row has unit coefficients over binaries, so each LD block (one row) has the closed-form
oracle. The generator builds a feasible roster first and sets the contracts around it, so every
data set it returns is feasible.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ldopt import checks
from ldopt.errors import InputError
from ldopt.problems.cost_map import polynomial
from ldopt.problems.family import Family, Instances, register


@dataclass
class ShiftData:
    """One shift-scheduling data set: fixed requirements and contracts, per-instance features and costs.

    Parameters
    ----------
    requirements
        Staff needed per day and shift ``(days, shifts)``.
    most
        Each employee's most shifts a week.
    least
        Each employee's fewest shifts a week.
    features
        Features ``(N, p)``.
    costs
        Costs ``(N, employees · days · shifts)``.
    """

    requirements: np.ndarray  # (days, shifts): r[d, t]
    most: np.ndarray  # (employees,)
    least: np.ndarray  # (employees,)
    features: np.ndarray  # (N, p)
    costs: np.ndarray  # (N, employees * days * shifts): c[e, d, t] at (e * days + d) * shifts + t


def _roster(req: np.ndarray, employees: int, rng: np.random.RandomState) -> np.ndarray:
    """A feasible roster (each shift staffed, one shift a day, rest after nights), filled greedily
    with the least-loaded free employees; its loads bound the contracts."""
    days, shifts = req.shape
    load = np.zeros(employees)
    night = np.zeros(employees, dtype=bool)  # worked the previous night
    for d in range(days):
        free = np.ones(employees, dtype=bool)
        for t in range(shifts):
            able = free & ~night if t == 0 else free  # no early shift after a night
            order = np.lexsort((rng.uniform(size=employees), load))
            pick = [e for e in order if able[e]][: int(req[d, t])]
            if len(pick) < req[d, t]:
                raise InputError(
                    f"requirements: day {d} shift {t} needs {int(req[d, t])} employees, only {len(pick)} "
                    "are free; expected fewer or more employees"
                )
            free[pick] = False
            load[pick] += 1
            if t == shifts - 1:  # tonight's workers rest tomorrow morning
                night = np.zeros(employees, dtype=bool)
                night[pick] = True
    return load


def gen_data(
    num_data: int,
    num_features: int = 5,
    employees: int = 10,
    days: int = 7,
    shifts: int = 3,
    deg: int = 4,
    noise_width: float = 0.5,
    staffing: float = 0.6,
    seed: int = 135,
) -> ShiftData:
    """Requirements of 1 to ``staffing · employees / shifts`` per shift, contracts around a feasible
    roster (maximum 1 to 2 shifts above its load, minimum 1 to 2 below), and costs
    ``c[e,d,t] = pay[e] · premium[t] · weekend[d] · poly_deg(B z) · noise``, where ``poly_deg`` is
    PyEPO's cost map (mean about 1), ``pay ∈ [0.8, 1.2]``, night and weekend premia 1.3 and 1.2.

    Parameters
    ----------
    num_data
        Instances.
    num_features
        Features per instance.
    employees
        Employees.
    days
        Days.
    shifts
        Shifts a day.
    deg
        The cost map's polynomial degree.
    noise_width
        Multiplicative noise half-width.
    staffing
        The share of employees a shift needs at most.
    seed
        The random seed.
    """
    for name, value in dict(num_data=num_data, num_features=num_features, deg=deg).items():
        checks.positive_int(name, value)
    E, D = checks.positive_int("employees", employees), checks.positive_int("days", days)
    T = checks.positive_int("shifts", shifts)
    checks.nonnegative("noise_width", noise_width)
    share = checks.share("staffing", staffing)
    rng = np.random.RandomState(checks.nonnegative_int("seed", seed))
    top = max(1, int(share * E / T))
    req = rng.randint(1, top + 1, (D, T))
    load = _roster(req, E, rng)
    most = np.minimum(D, load + rng.randint(1, 3, E))
    least = np.maximum(0, load - rng.randint(1, 3, E))
    pay = rng.uniform(0.8, 1.2, E)
    premium = np.where(np.arange(T) == T - 1, 1.3, 1.0) if T > 1 else np.ones(1)
    weekend = np.where(np.arange(D) % 7 >= 5, 1.2, 1.0)
    base = (pay[:, None, None] * weekend[None, :, None] * premium[None, None, :]).reshape(-1)
    B = rng.binomial(1, 0.5, (E * D * T, num_features))
    feats = rng.normal(0, 1, (num_data, num_features))
    noise = rng.uniform(1 - noise_width, 1 + noise_width, (num_data, E * D * T))
    costs = polynomial(feats, B, deg) * noise * base
    return ShiftData(req.astype(float), most.astype(float), least.astype(float), feats, costs.astype(np.float32))


def build_model(requirements: Any, most: Any, least: Any) -> Any:
    """A Pyomo model of the module docstring's problem: cost ``m.c[e, d, t]`` (mutable) and
    assignments ``m.x[e, d, t]``; ``requirements`` is ``(days, shifts)``, ``most``/``least`` one per
    employee.

    Parameters
    ----------
    requirements
        Staff needed per day and shift ``(days, shifts)``.
    most
        Each employee's most shifts a week.
    least
        Each employee's fewest shifts a week.
    """
    import pyomo.environ as pyo  # noqa: PLC0415

    req = checks.real_array("requirements", requirements)
    hi, lo = checks.real_array("most", most).reshape(-1), checks.real_array("least", least).reshape(-1)
    if req.ndim != 2 or req.size == 0:
        raise InputError(f"requirements: expected a (days, shifts) array, got shape {req.shape}")
    if len(hi) != len(lo) or not len(hi):
        raise InputError(f"most, least: expected one of each per employee, got {len(hi)} and {len(lo)}")
    if (lo > hi).any():
        e = int(np.argmax(lo > hi))
        raise InputError(f"least: expected at most `most` for every employee, got {lo[e]} > {hi[e]} for employee {e}")
    D, T = req.shape
    m = pyo.ConcreteModel(name=f"shift scheduling {len(hi)}x{D}x{T}")
    m.E, m.D, m.T = pyo.RangeSet(0, len(hi) - 1), pyo.RangeSet(0, D - 1), pyo.RangeSet(0, T - 1)
    m.c = pyo.Param(m.E, m.D, m.T, mutable=True, initialize=1.0)
    m.x = pyo.Var(m.E, m.D, m.T, domain=pyo.Binary)
    m.obj = pyo.Objective(expr=sum(m.c[k] * m.x[k] for k in m.x), sense=pyo.minimize)
    m.cover = pyo.Constraint(m.D, m.T, rule=lambda mm, d, t: sum(mm.x[e, d, t] for e in mm.E) >= float(req[d, t]))
    m.day = pyo.Constraint(m.E, m.D, rule=lambda mm, e, d: sum(mm.x[e, d, t] for t in mm.T) <= 1)
    if T > 1 and D > 1:
        m.N = pyo.RangeSet(0, D - 2)
        m.rest = pyo.Constraint(m.E, m.N, rule=lambda mm, e, d: mm.x[e, d, T - 1] + mm.x[e, d + 1, 0] <= 1)
    m.most = pyo.Constraint(m.E, rule=lambda mm, e: sum(mm.x[e, d, t] for d in mm.D for t in mm.T) <= float(hi[e]))
    m.least = pyo.Constraint(m.E, rule=lambda mm, e: sum(mm.x[e, d, t] for d in mm.D for t in mm.T) >= float(lo[e]))
    return m


def _instances(num_data: int, size: int, deg: int, seed: int) -> Instances:
    d = gen_data(num_data, 5, employees=size, days=7, shifts=3, deg=deg, seed=seed)
    e = gen_data(num_data, 5, employees=size, days=7, shifts=3, deg=deg, noise_width=0.0, seed=seed)
    return Instances(build_model(d.requirements, d.most, d.least), d.features, d.costs, expected=e.costs)


FAMILY = register(Family("shift_scheduling", _instances, 8, "shift scheduling: size employees, 7 days of 3 shifts"))
