"""A certain outcome has entropy 0.0, not -0.0 (found by the docstring examples)."""

import math

import numpy as np
import pytest

import qring_edu.holevo as qr


@pytest.mark.parametrize(
    "value",
    [
        lambda: qr.shannon_entropy([1.0, 0.0]),
        lambda: qr.shannon_entropy([0.0, 0.0, 1.0]),
        lambda: qr.binary_entropy(0.0),
        lambda: qr.binary_entropy(1.0),
        lambda: qr.two_state_chi(1.0),
    ],
)
def test_zero_entropy_is_positive_zero(value):
    h = value()
    assert h == 0.0 and math.copysign(1.0, h) == 1.0
    assert repr(h) == "0.0"


def test_entropies_are_unchanged_otherwise():
    assert qr.shannon_entropy([0.5, 0.25, 0.25]) == 1.5
    assert qr.binary_entropy(0.5) == 1.0
    assert qr.von_neumann_entropy(np.eye(2) / 2) == pytest.approx(1.0, abs=1e-12)
