"""Chapter 4 exercise checkers (qring_edu.exercises.vga)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.exercises._base import Feedback
from qring_edu.exercises.vga import (
    check_ghz_copies_delivered,
    check_known_pads_survival,
    check_last_announcement,
    check_phase_angle,
    check_transcript_count,
)
from qring_edu.vga import vga_aggregate, vga_circuit

GARBAGE = ["three", "", [1, 2], {"a": 1}, True, float("nan"), float("inf"),
           np.array([1.0, 2.0]), object(), ("x", 3), -1.5]

CASES = [
    (check_phase_angle, (3, 1, 3)),
    (check_last_announcement, ([1, 2], 0, 2)),
    (check_transcript_count, (3, 2)),
    (check_known_pads_survival, (10, 3)),
    (check_ghz_copies_delivered, (100, 8, 0.5)),
]
BAD = {check_phase_angle: (3, 3, 2), check_last_announcement: ([5], 0, 2),
       check_transcript_count: (1, 2), check_known_pads_survival: (10, 1),
       check_ghz_copies_delivered: (100, 8, 1.0)}


@pytest.mark.parametrize("check,args", CASES)
def test_none_is_not_attempted_and_garbage_fails_quietly(check, args):
    fb = check(None, *args)
    assert isinstance(fb, Feedback) and not fb.passed and "Not attempted" in fb.message
    for junk in GARBAGE:
        fb = check(junk, *args)
        assert isinstance(fb, Feedback) and not fb.passed and fb.message, junk


@pytest.mark.parametrize("check,args", CASES)
def test_bad_exercise_parameters_fail_without_raising(check, args):
    fb = check(0, *BAD[check])
    assert not fb.passed and "parameters are invalid" in fb.message


def test_phase_angle_matches_the_circuit():
    circuit = vga_circuit([3, 0], 3, measure=False)
    angles = [inst.operation.params[0] for inst in circuit.data if inst.operation.name == "p"
              and circuit.find_bit(inst.qubits[0]).registers[0][0].name == "w0"]
    assert check_phase_angle(angles[1], 3, 1, 3).passed          # 2 pi * 6 / 8
    assert check_phase_angle(1.5 * math.pi, 3, 1, 3).passed
    assert check_phase_angle(1.5 * math.pi - 2 * math.pi, 3, 1, 3).passed  # modulo 2 pi
    fb = check_phase_angle(2 * math.pi * 3 / 8, 3, 1, 3)          # forgot the weight 2**i
    assert not fb.passed and "weight" in fb.message


def test_last_announcement_and_transcript_count():
    res = vga_aggregate(np.array([[1], [2], [3]]), bits=2, seed=0)
    m = res.transcript[:, 0].tolist()
    assert check_last_announcement(m[2], m[:2], int(res.total[0]), 2).passed
    assert not check_last_announcement((m[2] + 1) % 4, m[:2], int(res.total[0]), 2).passed
    assert check_transcript_count(16, 3, 2).passed
    assert check_transcript_count(16.0, 3, 2).passed
    assert not check_transcript_count(64, 3, 2).passed   # counted the last worker as free


def test_survival_and_copies():
    assert check_known_pads_survival((5 / 8) ** 10, 10, 3).passed
    assert not check_known_pads_survival(0.5 ** 10, 10, 3).passed
    assert check_ghz_copies_delivered(1600, 100, 8, 0.5).passed
    assert not check_ghz_copies_delivered(800, 100, 8, 0.5).passed
    assert check_ghz_copies_delivered(8 * 134, 100, 8, 0.25).passed
