"""Exercise checkers of the chapter *Noisy links* (presentation floor). The rules every checker
keeps are in :mod:`~qring_edu.exercises._base`.

Two checkers grade code the reader wrote ("build it yourself") on seeded random instances.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import check_fidelity, check_int
from ..distillation import distill
from ..experiments.noisy_links import fec_crossover
from ..noise import depolarizing, depolarizing_capacities, effective_fidelity
from ._base import (
    Feedback,
    as_number,
    call_reader,
    checker,
    compare_number,
    failed,
    not_a_function,
    not_attempted,
    passed,
)

__all__ = [
    "check_compose_fidelity",
    "check_dejmps_round",
    "check_assisted_ratio",
    "check_raw_pairs",
    "check_online_symbol_error",
    "check_fec_break_even",
]


def _not_callable(answer, what: str) -> Feedback | None:
    return not_attempted(what) if answer is None else not_a_function(answer, what)


# -- Build it yourself -----------------------------------------------------------------------------
@checker
def check_compose_fidelity(answer, *, trials: int = 25, seed: int = 0) -> Feedback:
    """The reader's ``compose(pair_fidelity, channel_fidelity) -> F_eff`` on ``(1, 1)``, ``(1, F)``,
    ``(F, 1)``, ``(0.25, F)`` and ``trials`` seeded random pairs in [0.25, 1]², against
    :func:`qring_edu.noise.effective_fidelity` (1e-9; switched off while it runs).

    Examples
    --------
    >>> check_compose_fidelity(lambda pair, channel: pair * channel + (1 - pair) * (1 - channel) / 3)
    Feedback(passed=True, message='compose(F_pair, F_ch): correct on 29 cases.')
    >>> from qring_edu.noise import effective_fidelity
    >>> check_compose_fidelity(effective_fidelity).passed     # the library's own: switched off
    False
    """
    what = "compose(F_pair, F_ch)"
    fb = _not_callable(answer, what)
    if fb is not None:
        return fb
    trials = check_int(trials, "trials", 1, 1000)
    rng = np.random.default_rng(seed)
    cases = [(1.0, 1.0), (1.0, 0.9), (0.9, 1.0), (0.25, 0.8)]
    cases += [tuple(float(v) for v in rng.uniform(0.25, 1.0, 2)) for _ in range(trials)]
    for Fp, Fc in cases:
        got, fb = call_reader(answer, Fp, Fc, name=what, forbid=("effective_fidelity",))
        if fb is not None:
            return fb
        value, fb = as_number(got, f"{what} returned")
        if fb is not None:
            return fb
        ref = effective_fidelity(Fp, Fc)
        if abs(value - ref) > 1e-9:
            hint = (
                "Both errors must be trivial, or both the same non-trivial Pauli: "
                "F_pair F_ch + 3 · ((1 − F_pair)/3)((1 − F_ch)/3)."
            )
            if abs(value - Fp * Fc) <= 1e-9:
                hint = (
                    "You kept only 'no error at all'. Two equal Paulis cancel (X·X = I): "
                    "add the probability that both are the same one of X, Y, Z."
                )
            return failed(
                f"{what}: for F_pair = {Fp:.6g}, F_ch = {Fc:.6g} you returned "
                f"{value:.9g}, expected {ref:.9g}. {hint}"
            )
    return passed(f"{what}: correct on {len(cases)} cases.")


@checker
def check_dejmps_round(answer, *, trials: int = 10, seed: int = 0) -> Feedback:
    """The reader's ``dejmps_round(p) -> (success, p_out)``: one DEJMPS round on two copies of the
    Bell-diagonal pair ``p = (p_I, p_X, p_Z, p_Y)`` (coefficients on Φ+, Ψ+, Φ−, Ψ−), applied 1, 2
    and 3 times in a row from ``trials`` seeded Werner fidelities in (0.55, 0.99), against
    :func:`qring_edu.distill` (``protocol="dejmps"``; coefficients and success to within 1e-9).

    Examples
    --------
    >>> check_dejmps_round(None).passed
    False
    """
    what = "dejmps_round(p)"
    fb = _not_callable(answer, what)
    if fb is not None:
        return fb
    trials = check_int(trials, "trials", 1, 200)
    rng = np.random.default_rng(seed)
    for F in rng.uniform(0.55, 0.99, trials):
        F = float(F)
        p = np.array(depolarizing(F).probabilities)
        for r in (1, 2, 3):
            shown = "(" + ", ".join(f"{v:.6g}" for v in p) + ")"
            got, fb = call_reader(answer, p.copy(), name=what, forbid=("distill",))
            if fb is not None:
                return fb
            try:
                success, out = got
                success = float(success)
                out = np.asarray(out, dtype=float).ravel()
            except (TypeError, ValueError):
                return failed(
                    f"{what}: return a pair (success, p_out) with p_out four numbers; "
                    f"got {type(got).__name__}."
                )
            if out.shape != (4,) or not np.all(np.isfinite(out)) or not math.isfinite(success):
                return failed(
                    f"{what}: p_out must be four finite numbers (p_I, p_X, p_Z, p_Y), "
                    f"got shape {out.shape}."
                )
            ref = distill(F, rounds=r, protocol="dejmps")
            ref_p, ref_s = np.array(ref.errors.probabilities), ref.success_probabilities[-1]
            if abs(success - ref_s) > 1e-9:
                return failed(
                    f"{what}: round {r} from F = {F:.6g}, input p = {shown}: success "
                    f"{success:.9g}, expected {ref_s:.9g}. The round succeeds when "
                    "the two pairs' x-parts (X or Y errors) agree"
                    + (
                        "; round 1 passed, so check the rotations: Rx(π/2) on Alice's "
                        "side and Rx(−π/2) on Bob's swap the Z and Y coefficients "
                        "first."
                        if r > 1
                        else "."
                    )
                )
            if np.max(np.abs(out - ref_p)) > 1e-9:
                k = int(np.argmax(np.abs(out - ref_p)))
                hint = (
                    "Rotate first (Alice's Rx(π/2) and Bob's Rx(−π/2) swap the Z and Y "
                    "coefficients), then keep the source pair's x-part, give it z1 XOR z2, "
                    "and divide by the success probability."
                )
                return failed(
                    f"{what}: round {r} from F = {F:.6g}, input p = {shown}: "
                    f"p_out[{k}] = {out[k]:.9g}, expected {ref_p[k]:.9g}. {hint}"
                )
            p = out
    return passed(f"{what}: correct on {trials} fidelities, three rounds each.")


# -- Numbers ---------------------------------------------------------------------------------------
@checker
def check_assisted_ratio(answer, channel_fidelity: float = 0.95) -> Feedback:
    """``C_E / C`` of the depolarising channel of fidelity ``channel_fidelity`` (to within 1e-3).

    Examples
    --------
    >>> check_assisted_ratio(2.1225, channel_fidelity=0.9)
    Feedback(passed=True, message='C_E / C: correct (2.1225).')
    >>> check_assisted_ratio(2, channel_fidelity=0.9).passed      # 2 holds only without noise
    False
    """
    c = depolarizing_capacities(check_fidelity(channel_fidelity, "channel_fidelity"))
    return compare_number(
        answer,
        c.ratio,
        tol=1e-3,
        what="C_E / C",
        hint="C = 1 − h(2(1−F)/3), C_E = 2 − H(F, (1−F)/3, (1−F)/3, (1−F)/3); logarithms base 2.",
    )


@checker
def check_raw_pairs(
    answer, pair_fidelity: float = 0.9, rounds: int = 2, protocol: str = "dejmps"
) -> Feedback:
    """Expected raw pairs consumed per output pair of ``rounds`` rounds (relative 1e-3).

    Examples
    --------
    >>> check_raw_pairs(2.2843, pair_fidelity=0.9, rounds=1).passed
    True
    """
    d = distill(
        check_fidelity(pair_fidelity),
        rounds=check_int(rounds, "rounds", 1, 20),
        protocol=protocol,
    )
    value, fb = as_number(answer, "raw pairs per output pair")
    if fb is not None:
        return fb
    if abs(value - d.raw_pairs_per_pair) <= 1e-3 * d.raw_pairs_per_pair:
        return passed(f"raw pairs per output pair: correct ({d.raw_pairs_per_pair:.4f}).")
    hint = (
        "Each round halves the pairs and keeps only the successes: divide 2^rounds by the "
        "product of the rounds' success probabilities."
    )
    if abs(value - 2**d.rounds) <= 1e-6:
        hint = "That counts only the halving; failed attempts lose both of their pairs."
    return failed(f"raw pairs per output pair: {value:g} is not right. {hint}")


# -- Steps of the reasoning exercises --------------------------------------------------------------
@checker
def check_online_symbol_error(answer, channel_fidelity: float = 0.99) -> Feedback:
    """Symbol error rate with perfect pairs (F_pair = 1) on a channel of fidelity
    ``channel_fidelity``: ``1 − F_ch`` (to within 1e-9).

    Examples
    --------
    >>> check_online_symbol_error(0.02, channel_fidelity=0.98).passed
    True
    """
    ref = 1.0 - effective_fidelity(1.0, check_fidelity(channel_fidelity, "channel_fidelity"))
    return compare_number(answer, ref, tol=1e-9, what="symbol error with perfect pairs")


@checker
def check_fec_break_even(answer, block_length: int = 255) -> Feedback:
    """The channel fidelity (F_pair = F_ch) below which ``"fec"`` with blocks of ``block_length``
    bytes sends more online channel uses than the classical ring (factor 1); to within 0.002.

    Examples
    --------
    >>> check_fec_break_even(0.979, block_length=128)
    Feedback(passed=True, message='break-even fidelity of fec: correct (0.979).')
    """
    ref = fec_crossover(1.0, block_length=block_length)
    return compare_number(answer, ref, tol=0.002, what="break-even fidelity of fec")
