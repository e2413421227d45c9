"""Bad input across GapIP_τ and TieAudit_ε (qring_edu.gapip, qring_edu.tieaudit), fuzz-style:
every public function refuses it with a ValueError or TypeError that names the argument; tiny
margins and accuracies are refused with the size they would need (no ZeroDivisionError, no
overflow); formula functions take sizes far beyond memory without allocating."""

from __future__ import annotations

import importlib
import math
import time

import numpy as np
import pytest

# the module (qring_edu.gapip, the package attribute, is the function)
gp = importlib.import_module("qring_edu.gapip")
# the module (qring_edu.tieaudit, the package attribute, is the function)
ta = importlib.import_module("qring_edu.tieaudit")


S, M = np.array([1, -1, 1, 1, -1, -1, 1, 1]), [[0, 1], [2, 5]]
G, H = np.array([1.0, 0.0, 0.0]), np.array([0.6, 0.8, 0.0])

BAD_REALS = [float("nan"), float("inf"), "0.1", True, None, [0.1]]


def _refused(call, name):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert name in str(info.value), (name, str(info.value))


@pytest.mark.parametrize(
    "name,values",
    [
        ("signs", [None, [], [1, -1, 1], [[1, -1]], ["a", "b"], [1, 0], [1, np.nan]]),
        ("matching", [None, [], [0, 1], [[0, 0]], [[0, 8]], [[0.5, 1]], [["a", "b"]]]),
        ("eps", [0.0, 1.0, -0.1, *BAD_REALS]),
        ("delta", [0.0, 0.5, -1.0, *BAD_REALS]),
        ("protocol", ["telepathy", 3, None]),
        ("channel", ["depolarizing", 0.1, ta.Depolarizing]),
        ("seed", [-1, "a", 1.5]),
    ],
)
def test_tieaudit_refuses_bad_arguments(name, values):
    args = dict(signs=S, matching=M, eps=0.1, delta=0.05, protocol="quantum", channel=None, seed=0)
    for value in values:
        kwargs = dict(args, **{name: value})
        _refused(lambda kwargs=kwargs: ta.tieaudit(**kwargs), name)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: ta.tieaudit_copies(0.0, 0.1), "alpha"),
        (lambda: ta.tieaudit_copies(1.5, 0.1), "alpha"),
        (lambda: ta.tieaudit_copies(1.0, 0.1, eta=0.0), "eta"),
        (lambda: ta.tieaudit_copies(1.0, 0.1, eta=1.5), "eta"),
        (lambda: ta.tieaudit_copies(1.0, 0.1, bound="exact"), "bound"),
        (lambda: ta.tieaudit_cost(3, 0.1), "P"),
        (lambda: ta.tieaudit_cost(2.0, 0.1), "P"),
        (lambda: ta.tieaudit_cost(2**501, 0.1), "P"),
        (
            lambda: ta.tieaudit_cost(8, 0.1, protocol="two_message", channel=ta.Dephasing(0.1)),
            "channel",
        ),
        (lambda: ta.classical_subset_size(8, 1.0, 0.1, delta=0.0), "delta"),
        (lambda: ta.two_message_bits(8, 0.1, alpha=0.0), "alpha"),
        (lambda: ta.outcome_probabilities(S, M, channel="noise"), "channel"),
        (lambda: ta.copy_y_law(S, M, channel=ta.LocalDepolarizing), "channel"),
        (lambda: ta.outcome_probabilities(S, M, channel=ta.LocalDepolarizing(0.9)), "channel"),
        (lambda: ta.tieaudit_circuit(S, M, pad=8), "pad"),
        (lambda: ta.tieaudit_circuit(S, M, pad=1.0), "pad"),
        (lambda: ta.tieaudit_circuit(S, M, measure="yes"), "measure"),
        (lambda: ta.tieaudit_circuit(S, M, protocol="classical"), "protocol"),
        (lambda: ta.tieaudit_circuit(np.ones(128), [[0, 1]]), "P"),
        (lambda: ta.check_matching([[0, 1]], 1), "P"),
        (lambda: ta.Depolarizing(-0.1), "noise"),
        (lambda: ta.DataOnlyAttack(0.1, knows_twirl=1), "knows_twirl"),
        (lambda: ta.LocalDepolarizing("0.9"), "fidelity"),
    ],
)
def test_tieaudit_functions_refuse_bad_arguments(call, name):
    _refused(call, name)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: gp.gapip(G, H, 1e-300), "tau"),
        (lambda: gp.gapip(G, H, gp.MIN_TAU / 10), "tau"),
        (lambda: gp.gapip(G, H, float("nan")), "tau"),
        (lambda: gp.gapip(G, H, 0.1, delta=1e-400), "delta"),
        (lambda: gp.gapip(G, H, 0.1, protocol=gp.AmplitudeEstimation), "protocol"),
        (lambda: gp.gapip(G, H, 0.1, seed="a"), "seed"),
        (lambda: gp.gapip(G, [np.inf, 0, 0], 0.1), "h"),
        (lambda: gp.gapip([1e-320, 0, 0], H, 0.1), "g"),
        (lambda: gp.AmplitudeEstimation(confidence=None), "confidence"),
        (lambda: gp.Sketch(bound="bernstein"), "bound"),
        (lambda: gp.sketch_bits(0.0), "tau"),
        (lambda: gp.sketch_bits(0.1, 0.0), "delta"),
        (lambda: gp.vector_bits(0, 0.1), "P"),
        (lambda: gp.vector_bits(2**70, 0.1), "P"),
        (lambda: gp.classical_bits(8, 0.1, bound="chernoff"), "bound"),
        (lambda: gp.n_register_qubits(0), "P"),
        (lambda: gp.n_register_qubits(2.5), "P"),
        (lambda: gp.alignment_state([]), "v"),
        (lambda: gp.alignment_angle([1, 0], [0, 0]), "h"),
        (lambda: gp.gapip_circuit(G, H, 65), "k"),
        (lambda: gp.gapip_circuit(G, H, 0, protocol="phase_estimation"), "k"),
        (lambda: gp.gapip_circuit(np.ones(300), np.ones(300), 1), "P"),
    ],
)
def test_gapip_functions_refuse_bad_arguments(call, name):
    _refused(call, name)


@pytest.mark.parametrize("tiny", [1e-300, 5e-324])
def test_tiny_accuracies_are_refused_with_their_size(tiny):
    for call in (
        lambda: ta.tieaudit_copies(1.0, tiny),
        lambda: ta.tieaudit_copies(tiny, 0.1),
        lambda: ta.tieaudit_copies(1.0, 0.1, eta=tiny, bound="freedman"),
        lambda: ta.tieaudit_cost(2**20, tiny),
        lambda: ta.tieaudit_cost(2**20, 0.1, alpha=tiny),
        lambda: ta.tieaudit(S, M, tiny, seed=0),
    ):
        with pytest.raises(ValueError, match=r"10\^\d+ copies") as info:
            call()
        assert "eps" in str(info.value) or "alpha" in str(info.value) or "eta" in str(info.value)
    # The classical protocols stay finite: every sign, or every pair.
    assert ta.tieaudit_cost(2**20, tiny, protocol="classical") == 2**20
    assert ta.two_message_bits(2**20, tiny) == 2**19 * 41
    assert ta.classical_subset_size(2**20, tiny, 0.1) == 2**20


def test_large_plans_and_sizes_need_no_memory():
    start = time.perf_counter()
    # 10^20 copies are a number, not an allocation; the simulation refuses more than 10^18.
    n = ta.tieaudit_copies(1.0, 1e-9)
    assert n > 10**18
    with pytest.raises(ValueError, match="MAX_COPIES"):
        ta.tieaudit(np.ones(4), [[0, 1]], 1e-9, seed=0)
    assert ta.tieaudit_cost(2**500, 0.05) == 738 * 500
    k = ta.classical_subset_size(2**400, 1.0, 0.05)
    m0 = math.ceil(math.log(80) / (2 * 0.05**2))  # 877 pairs at delta/2: k ≈ sqrt(4 m0 P)
    assert abs(math.log2(k) - 200 - math.log2(math.sqrt(4 * m0))) < 0.01
    assert ta.check_matching([[0, 2**40 - 1]], 2**40).shape == (1, 2)  # no array of size P
    assert gp.vector_bits(2**60, gp.MIN_TAU) == 2**60 * gp.vector_bits(2**60, gp.MIN_TAU) // 2**60
    assert gp.sketch_bits(gp.MIN_TAU) > 10**24
    assert time.perf_counter() - start < 10.0


def test_tiny_margin_decisions_stay_finite():
    g, h = np.array([1.0, 0.0]), np.array([1e-9, math.sqrt(1 - 1e-18)])
    d = gp.gapip(g, h, 1e-9, seed=0)  # about 10^10 qubits, but a few dozen steps to simulate
    assert d.verdict == "aligned" and d.cost > 10**9 and len(d.steps) < 200
    with pytest.raises(ValueError, match="tau"):
        gp.gapip(g, h, 1e-11, protocol="sketch", seed=0)  # 10^21 bits: beyond int64 counts
