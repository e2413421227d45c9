"""Scaling experiments (qring_edu.experiments.alignment): the slopes and the crossover."""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu.experiments.alignment import (
    DEFAULT_TAUS,
    aligned_pair,
    gapip_scaling,
    loglog_slope,
    tieaudit_crossover,
    tieaudit_scaling,
)
from qring_edu.sign_audit import tieaudit_cost


def test_loglog_slope_and_pairs():
    x = np.array([1.0, 2.0, 4.0])
    assert abs(loglog_slope(x, 3 * x**1.5) - 1.5) < 1e-12
    with pytest.raises(ValueError):
        loglog_slope([1.0], [1.0])
    g, h = aligned_pair(100, -0.3, seed=0)
    assert abs(g @ h + 0.3) < 1e-12 and abs(np.linalg.norm(h) - 1) < 1e-12


def test_gapip_slopes_at_P_2_16():
    r = gapip_scaling(DEFAULT_TAUS, 2**16, trials=8, seed=0)
    assert r.taus[0] == pytest.approx(0.4) and r.taus[-1] == pytest.approx(0.02)
    assert 0.85 <= r.quantum_slope <= 1.35, r
    assert 1.85 <= r.classical_slope <= 2.1, r
    assert set(r.classical_kind) == {"sketch"}
    assert np.all(r.quantum_accuracy >= 0.75) and np.all(r.classical_accuracy >= 0.75)
    # The fitted laws cross below the measured range: quantum wins only for tau < 0.02.
    assert 0.0 < r.crossover_tau < 0.02
    assert "quantum_slope" in repr(r)


def test_tieaudit_scaling_and_crossover():
    r = tieaudit_scaling(eps=0.05, run_max_log2_P=14, trials=3, seed=0)
    assert r.Ps[0] == 2**8 and r.Ps[-1] == 2**24
    assert abs(r.classical_slope - 0.5) < 0.01
    assert np.allclose(r.quantum_per_log2P, r.copies) and abs(r.quantum_slope_vs_logP - 1) < 1e-9
    assert r.crossover_P == 2**16 == tieaudit_crossover(0.05)
    assert tieaudit_cost(2**15, 0.05) >= tieaudit_cost(2**15, 0.05, protocol="classical")
    assert tieaudit_cost(2**16, 0.05) < tieaudit_cost(2**16, 0.05, protocol="classical")
    ran = ~np.isnan(r.quantum_error)
    assert ran.sum() == 4 and np.all(r.quantum_within[ran] >= 2 / 3)
    assert np.all(r.classical_within[ran] >= 2 / 3)
    # Smaller eps pushes the crossover up (quantum ∝ eps^-2 log P, classical ∝ eps^-1 sqrt P).
    assert tieaudit_crossover(0.02) > tieaudit_crossover(0.05)
