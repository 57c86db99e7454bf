"""The problem-family contract: every registered family generates instances that compile, match
their cost Param, decompose as the family says, and repeat for a seed; the registry's errors."""

from __future__ import annotations

import numpy as np
import pytest

import ldopt
from ldopt.problems import FAMILIES, Family, Instances, family, register

SMALL = {"knapsack": 8, "portfolio": 6, "set_cover": 8, "facility": 4, "shift_scheduling": 3, "lot_sizing": 2}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_keeps_the_contract(name):
    fam = family(name)
    size = SMALL.get(name, 3)
    inst = fam.instances(4, size, deg=2, seed=7)
    p = inst.problem()
    assert inst.features.shape[0] == inst.costs.shape[0] == 4
    assert inst.costs.shape[1] == p.num_costs
    dec = ldopt.decompose(p, inst.blocks)
    assert dec.num_blocks >= 1
    main = inst.main_block(dec)
    assert main is None or [r.component for r in dec.block(main).compiled.rows] == [inst.main]
    again = fam.instances(4, size, deg=2, seed=7)
    np.testing.assert_array_equal(again.costs, inst.costs)
    assert not np.array_equal(fam.instances(4, size, deg=2, seed=8).costs, inst.costs)
    s = p.solve(inst.costs[:2])
    assert (s.status == "optimal").all()


def test_registry_errors_name_the_fix():
    with pytest.raises(ldopt.InputError, match=r"family: expected one of .*'facility'"):
        family("facilities")
    with pytest.raises(ldopt.InputError, match="expected its generator to return Instances"):
        Family("bad", lambda n, s, d, r: (np.zeros((n, 2)), np.zeros((n, 2))), 3).instances(2)
    with pytest.raises(ldopt.InputError, match=r"expected features \(N, p\) and costs \(N, num_costs\)"):
        Instances(None, np.zeros((3, 2)), np.zeros((2, 4)))
    with pytest.raises(ldopt.InputError, match=r"family: expected an ldopt\.problems\.Family"):
        register("knapsack")
    inst = family("portfolio").instances(2, 4)
    with pytest.raises(ldopt.InputError, match="expected a block made of component 'budget_and_risk'"):
        Instances(inst.model, inst.features, inst.costs, main="budget_and_risk").main_block(
            ldopt.decompose(inst.problem(), inst.blocks)
        )
