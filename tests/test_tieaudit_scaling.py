"""TieAudit scaling (qring_edu.experiments.tieaudit): cost against P and the crossover."""

from __future__ import annotations

import numpy as np

from qring_edu.experiments.tieaudit import tieaudit_crossover, tieaudit_scaling
from qring_edu.tieaudit import tieaudit_cost


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
