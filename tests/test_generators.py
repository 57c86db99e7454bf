"""The data generators reproduce PyEPO's exactly, and the protocol choices of DESIGN.md hold."""

from __future__ import annotations

import numpy as np
import pytest

from ldopt.errors import InputError
from ldopt.problems import knapsack, portfolio


@pytest.mark.parametrize("args", [(20, 12, 30, 10, 8, 0.5, 42), (7, 5, 11, 1, 1, 0.0, 135), (3, 4, 9, 3, 4, 0.2, 0)])
def test_knapsack_matches_pyepo(args):
    pyepo_knapsack = pytest.importorskip("pyepo.data.knapsack", reason="pyepo is not installed")
    num_data, p, n, dim, deg, noise, seed = args
    ours = knapsack.gen_data(num_data, p, n, dim=dim, deg=deg, noise_width=noise, seed=seed)
    ref = pyepo_knapsack.genData(num_data, p, n, dim=dim, deg=deg, noise_width=noise, seed=seed)
    for a, b in zip(ours, ref):
        np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float).reshape(np.shape(a)))
    assert ours[2].dtype == np.float32


@pytest.mark.parametrize("args", [(20, 5, 30, 8, 1.0, 42), (9, 3, 7, 1, 0.5, 135)])
def test_portfolio_matches_pyepo(args):
    pyepo_portfolio = pytest.importorskip("pyepo.data.portfolio", reason="pyepo is not installed")
    num_data, p, n, deg, noise, seed = args
    ours = portfolio.gen_data(num_data, p, n, deg=deg, noise_level=noise, seed=seed)
    ref = pyepo_portfolio.genData(num_data, p, n, deg=deg, noise_level=noise, seed=seed)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-6, atol=1e-12)


def test_knapsack_protocol():
    d = knapsack.protocol_data(5, 40, seed=1)
    assert d.weights.shape == (10, 40) and d.weights.dtype.kind == "i"
    assert d.weights.min() >= 3 and d.weights.max() <= 7
    np.testing.assert_array_equal(d.capacities, (0.5 * d.weights.sum(axis=1)).astype(int))
    assert d.features.shape == (5, 12) and d.costs.shape == (5, 40)
    assert (d.costs >= 1).all() and (d.costs == np.ceil(d.costs)).all()


def test_portfolio_covariance_is_psd_and_risk_level():
    cov, feats, r = portfolio.gen_data(4, 5, 25, deg=8, seed=3)
    assert np.linalg.eigvalsh(cov).min() > 0
    assert portfolio.risk_level(cov) == pytest.approx(2.25 * cov.mean())


def test_bad_generator_arguments():
    with pytest.raises(InputError, match="deg: expected a positive integer, got 0"):
        knapsack.gen_data(2, 3, 4, deg=0)
    with pytest.raises(InputError, match="deg"):
        portfolio.gen_data(2, 3, 4, deg=1.5)
    with pytest.raises(InputError, match=r"expected shapes \(m, n\) and \(m,\)"):
        knapsack.build_model(np.ones((2, 3)), [1, 2, 3])
    with pytest.raises(InputError, match="square"):
        portfolio.build_model(np.ones((2, 3)))
