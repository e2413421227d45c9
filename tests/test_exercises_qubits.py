"""Chapter 0 exercise checkers (qring_edu.exercises.qubits): the reference answer passes, None is
"not attempted", wrong answers fail, and the code-graded checkers refuse the shortcut of calling
the library's own function."""

from __future__ import annotations

import math

import numpy as np
import pytest

import qring_edu as qr
from qring_edu.exercises._base import Feedback
from qring_edu.exercises.qubits import (
    check_agreement,
    check_basis_index,
    check_entropy,
    check_mixture_entropy,
    check_on_qubit,
    check_partial_trace,
    check_plus_probability,
)
from qring_edu.holevo import binary_entropy, von_neumann_entropy
from qring_edu.states import embed_operator, partial_trace

GARBAGE = ["0.5", "", [0.5], {"a": 1}, True, float("nan"), float("inf"), object(), 1j]


def _quiet_failures(check, **kwargs):
    for junk in GARBAGE:
        fb = check(junk, **kwargs)
        assert isinstance(fb, Feedback) and not fb.passed and fb.message


def _not_attempted(fb: Feedback) -> bool:
    return not fb.passed and fb.message.startswith("Not attempted")


# -- numeric checkers -------------------------------------------------------------------------
def test_plus_probability():
    t, f = math.radians(100), math.radians(60)
    assert check_plus_probability((1 + math.sin(t) * math.cos(f)) / 2).passed
    assert check_plus_probability(0.7462).passed
    assert _not_attempted(check_plus_probability(None))
    for wrong in (math.cos(t / 2) ** 2, (1 + math.sin(t)) / 2, 1 - 0.7462, 0.5):
        assert not check_plus_probability(wrong).passed
    assert check_plus_probability(0.5, theta=90, phi=90).passed  # |+i⟩: a fair coin in X
    _quiet_failures(check_plus_probability)
    assert not check_plus_probability(0.5, theta=200).passed  # bad parameters, no exception


def test_basis_index():
    assert check_basis_index(13).passed  # qubits 0..3 = 1, 0, 1, 1
    assert not check_basis_index(11).passed  # qubit 0 read as the most significant bit
    assert check_basis_index(13.0).passed
    assert check_basis_index(5, bits=(1, 0, 1)).passed
    assert _not_attempted(check_basis_index(None))
    _quiet_failures(check_basis_index)
    assert not check_basis_index(1, bits=(2,)).passed


def test_mixture_entropy():
    rho = 0.75 * np.diag([1.0, 0.0]) + 0.25 * np.full((2, 2), 0.5)
    assert check_mixture_entropy(von_neumann_entropy(rho)).passed
    assert not check_mixture_entropy(binary_entropy(0.75)).passed  # weights as eigenvalues
    assert check_mixture_entropy(0.0, weight=1.0).passed
    assert _not_attempted(check_mixture_entropy(None))
    _quiet_failures(check_mixture_entropy)
    assert not check_mixture_entropy(0.5, weight=1.5).passed


@pytest.mark.parametrize("basis", ["X", "Z"])
def test_agreement(basis):
    assert check_agreement((1 + 2 * 0.85) / 3, basis=basis).passed
    assert not check_agreement(0.85, basis=basis).passed  # only Φ+ counted
    assert not check_agreement(1 - (1 + 2 * 0.85) / 3, basis=basis).passed
    assert check_agreement(1.0, pair_fidelity=1.0, basis=basis).passed
    assert _not_attempted(check_agreement(None, basis=basis))
    _quiet_failures(check_agreement, basis=basis)
    assert not check_agreement(0.5, basis="Y").passed


# -- code-graded checkers ---------------------------------------------------------------------
def on_qubit(u, qubit):
    return np.kron(np.eye(2), u) if qubit == 0 else np.kron(u, np.eye(2))


def reduced(rho, keep):
    t = np.asarray(rho).reshape(2, 2, 2, 2)  # axes (b, a, b', a')
    return np.einsum("bxbz->xz", t) if keep == 0 else np.einsum("xaza->xz", t)


def entropy(rho):
    lam = np.linalg.eigvalsh(rho)
    lam = lam[lam > 1e-12]
    return float(-(lam * np.log2(lam)).sum())


def crashing(*args):
    return [][1]


def test_on_qubit():
    assert check_on_qubit(on_qubit).passed
    assert check_on_qubit(on_qubit, trials=10, seed=3).passed
    assert _not_attempted(check_on_qubit(None))
    assert _not_attempted(check_on_qubit(lambda u, qubit: None))
    assert not check_on_qubit(lambda u, q: on_qubit(u, 1 - q)).passed  # np.kron swapped
    assert not check_on_qubit(lambda u, q: np.kron(u, u)).passed
    assert not check_on_qubit(lambda u, q: u).passed  # 2 x 2, not 4 x 4
    assert not check_on_qubit(crashing).passed
    assert not check_on_qubit("on_qubit").passed


def test_on_qubit_refuses_the_library_shortcut():
    assert not check_on_qubit(lambda u, q: embed_operator(u, [q], 2)).passed
    fb = check_on_qubit(lambda u, q: qr.states.embed_operator(u, [q], 2))
    assert not fb.passed and "embed_operator" in fb.message
    # the library's function is back afterwards
    assert np.allclose(embed_operator(np.eye(2), [0], 2), np.eye(4))


def test_partial_trace():
    assert check_partial_trace(reduced).passed
    assert check_partial_trace(reduced, trials=10, seed=5).passed
    assert _not_attempted(check_partial_trace(None))
    assert _not_attempted(check_partial_trace(lambda rho, keep: None))
    assert not check_partial_trace(lambda rho, keep: reduced(rho, 1 - keep)).passed
    assert not check_partial_trace(lambda rho, keep: reduced(rho, keep).T).passed
    assert not check_partial_trace(lambda rho, keep: np.eye(2) / 2).passed  # right on Φ+ only
    assert not check_partial_trace(lambda rho, keep: rho).passed
    assert not check_partial_trace(crashing).passed


def test_partial_trace_refuses_the_library_shortcut():
    fb = check_partial_trace(lambda rho, keep: partial_trace(rho, [keep]))
    assert not fb.passed and "partial_trace" in fb.message
    assert not check_partial_trace(lambda rho, keep: qr.states.partial_trace(rho, [keep])).passed
    assert np.allclose(partial_trace(np.eye(4) / 4, [0]), np.eye(2) / 2)


def test_entropy():
    assert check_entropy(entropy).passed
    assert check_entropy(entropy, trials=10, seed=2).passed
    assert _not_attempted(check_entropy(None))
    assert _not_attempted(check_entropy(lambda rho: None))

    def natural(rho):
        lam = np.linalg.eigvalsh(rho)
        lam = lam[lam > 1e-12]
        return float(-(lam * np.log(lam)).sum())

    def no_cut(rho):  # 0 log 0 computed as nan
        lam = np.linalg.eigvalsh(rho)
        with np.errstate(all="ignore"):
            return float(-(lam * np.log2(lam)).sum())

    def diagonal(rho):
        p = np.diag(rho).real
        p = p[p > 1e-12]
        return float(-(p * np.log2(p)).sum())

    for wrong in (natural, no_cut, diagonal, lambda rho: -entropy(rho), crashing, lambda r: "1"):
        fb = check_entropy(wrong)
        assert isinstance(fb, Feedback) and not fb.passed and fb.message


def test_entropy_refuses_the_library_shortcut():
    fb = check_entropy(lambda rho: von_neumann_entropy(rho))
    assert not fb.passed and "von_neumann_entropy" in fb.message
    assert not check_entropy(lambda rho: qr.von_neumann_entropy(rho)).passed
    assert von_neumann_entropy(np.eye(2) / 2) == 1.0
