"""GapIP scaling (qring_edu.experiments.gapip): the slopes against 1/tau."""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu.experiments._base import loglog_slope
from qring_edu.experiments.gapip import DEFAULT_TAUS, aligned_pair, gapip_scaling


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
    # One family on both sides (Hoeffding by default): the sketch is cheaper on this range.
    assert r.confidence == "hoeffding" and np.all(r.quantum_cost > r.classical_cost)
    assert "quantum_slope" in repr(r)
