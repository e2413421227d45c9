"""Cross-check of the fast Pauli-frame sampler against Stim, a simulator no one here wrote
(ARCHITECTURE.md, book/03_superdense_ring.ipynb).

Stim runs the whole superdense-coding protocol as a circuit: a Bell pair, the pair noise
``DEPOLARIZE1(1 - F)`` on Alice's qubit (Stim's definition: X, Y, Z each with probability
(1 - F)/3, the isotropic pair of fidelity F), a random symbol drawn in-circuit from two ancillas
in |+> (CX and CZ onto Alice's qubit), Bob's CNOT, H and measurement. Both simulators give a 4 x 4
table of counts (sent symbol, decoded symbol), symbol code ``2 x + z``. ``compare`` checks, on
the same number of symbols from each: the SER and the frequencies of the error patterns X (x
flipped only), Z (z only) and Y (both) agree within 4 two-sample s.d.; a chi-squared test of
homogeneity of the pattern distributions does not reject at level 1e-4; and for every sent symbol
the fraction decoded correctly agrees within 4 s.d. and its decoded distribution passes the same
chi-squared test. Everything is seeded. ``test_crosscheck_rejects_wrong_channels`` shows that the
comparison fails for samplers with a wrong channel.
"""

from __future__ import annotations

import numpy as np
import pytest
import stim
from scipy.stats import chi2_contingency

from qring_edu import superdense_send, superdense_send_packed

PAIRS, SHOTS = 64, 2**14  # 2^20 symbols per simulator and fidelity
SIGMAS = 4.0
ALPHA = 1e-4  # chi-squared rejection level
PATTERN_CODE = {"X": 2, "Z": 1, "Y": 3}  # sent XOR decoded, code 2 x + z


def stim_confusion(pair_fidelity: float, seed: int) -> np.ndarray:
    """(4, 4) counts [sent symbol, decoded symbol] of PAIRS x SHOTS symbols sampled by Stim."""
    k = PAIRS
    a, b = list(range(0, 2 * k, 2)), list(range(1, 2 * k, 2))
    xs, zs = list(range(2 * k, 3 * k)), list(range(3 * k, 4 * k))

    def pairs(u, v):
        return [q for s, t in zip(u, v) for q in (s, t)]

    c = stim.Circuit()
    c.append("H", a)
    c.append("CX", pairs(a, b))  # |Phi+> on (A, B)
    c.append("DEPOLARIZE1", a, 1.0 - pair_fidelity)
    c.append("H", xs + zs)  # random symbol bits
    c.append("CX", pairs(xs, a))  # X**x on A
    c.append("CZ", pairs(zs, a))  # Z**z on A
    c.append("M", pairs(xs, zs))  # the sent bits: x, z of every pair
    c.append("CX", pairs(a, b))
    c.append("H", a)
    c.append("M", pairs(b, a))  # Bob: B gives x, A gives z
    rec = c.compile_sampler(seed=seed).sample(SHOTS).astype(np.int64)
    sent, dec = rec[:, : 2 * k], rec[:, 2 * k :]
    s = 2 * sent[:, 0::2] + sent[:, 1::2]
    d = 2 * dec[:, 0::2] + dec[:, 1::2]
    return np.bincount((4 * s + d).ravel(), minlength=16).reshape(4, 4)


def ours_confusion(sender, pair_fidelity: float, seed: int) -> np.ndarray:
    """(4, 4) counts [sent, decoded] of PAIRS x SHOTS random symbols sent with ``sender``."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, 2 * PAIRS * SHOTS, dtype=np.uint8)
    received = sender(bits, pair_fidelity=pair_fidelity, seed=seed + 1)
    s = 2 * bits[0::2].astype(np.int64) + bits[1::2]
    d = 2 * received[0::2].astype(np.int64) + received[1::2]
    return np.bincount(4 * s + d, minlength=16).reshape(4, 4)


def pattern_counts(confusion: np.ndarray) -> np.ndarray:
    """Counts of the error patterns [I, Z, X, Y] (index = code of sent XOR decoded)."""
    s, d = np.divmod(np.arange(16), 4)
    return np.bincount(s ^ d, weights=confusion.ravel(), minlength=4)


def _z_two(ka: float, na: float, kb: float, nb: float) -> float:
    """Two-sample z of two binomial proportions (pooled variance)."""
    f = (ka + kb) / (na + nb)
    if f in (0.0, 1.0):
        return 0.0 if ka / na == kb / nb else np.inf
    return (ka / na - kb / nb) / np.sqrt(f * (1 - f) * (1 / na + 1 / nb))


def _chi2_p(table: np.ndarray) -> float:
    table = table[:, table.sum(axis=0) > 0]  # a pattern neither side ever saw carries no test
    if table.shape[1] < 2:
        return 1.0
    return float(chi2_contingency(table).pvalue)


def compare(ours: np.ndarray, ref: np.ndarray) -> list[str]:
    """Disagreements between two (sent, decoded) count tables; empty if they agree."""
    failures = []
    po, pr = pattern_counts(ours), pattern_counts(ref)
    no, nr = po.sum(), pr.sum()
    z = _z_two(no - po[0], no, nr - pr[0], nr)
    if abs(z) > SIGMAS:
        failures.append(f"SER {1 - po[0] / no:.5f} vs {1 - pr[0] / nr:.5f} ({z:+.1f} s.d.)")
    for name, code in PATTERN_CODE.items():
        z = _z_two(po[code], no, pr[code], nr)
        if abs(z) > SIGMAS:
            failures.append(
                f"{name} frequency {po[code] / no:.5f} vs {pr[code] / nr:.5f} ({z:+.1f} s.d.)"
            )
    p = _chi2_p(np.stack([po, pr]))
    if p < ALPHA:
        failures.append(f"error-pattern distributions differ (chi-squared p = {p:.2g})")
    for sym in range(4):
        ro, rr = ours[sym], ref[sym]
        z = _z_two(ro[sym], ro.sum(), rr[sym], rr.sum())
        if abs(z) > SIGMAS:
            failures.append(
                f"symbol {sym:02b}: decoded correctly {ro[sym] / ro.sum():.5f} vs "
                f"{rr[sym] / rr.sum():.5f} ({z:+.1f} s.d.)"
            )
        p = _chi2_p(np.stack([ro, rr]))
        if p < ALPHA:
            failures.append(f"symbol {sym:02b}: decoded distributions differ (p = {p:.2g})")
    return failures


# ------------------------------------------------------------------------------------------------


def test_stim_circuit_decodes_every_symbol_at_fidelity_one():
    conf = stim_confusion(1.0, seed=11)
    assert np.all(conf.sum(axis=1) > 0.24 * PAIRS * SHOTS)  # all four symbols drawn, ~uniformly
    assert np.count_nonzero(conf - np.diag(np.diag(conf))) == 0


def test_stim_follows_the_stated_law():
    # Anchors the reference: Stim's DEPOLARIZE1(1 - F) gives X, Y, Z each with (1 - F)/3.
    f = 0.95
    counts = pattern_counts(stim_confusion(f, seed=12))
    n, q = counts.sum(), (1 - f) / 3
    for code in PATTERN_CODE.values():
        assert abs(counts[code] / n - q) <= SIGMAS * np.sqrt(q * (1 - q) / n)


def _packed_sender(bits, *, pair_fidelity, seed):
    """superdense_send_packed behind the unpacked interface (the bytes it sends are packed)."""
    out = superdense_send_packed(
        np.packbits(bits, bitorder="little"), bits.size, pair_fidelity=pair_fidelity, seed=seed
    )
    return np.unpackbits(out, bitorder="little")[: bits.size]


@pytest.mark.parametrize("sender", [superdense_send, _packed_sender], ids=["unpacked", "packed"])
@pytest.mark.parametrize("fidelity, seed", [(0.95, 21), (0.7, 22), (0.25, 23)])
def test_superdense_send_matches_stim(sender, fidelity, seed):
    # One uniform per error at every fidelity: 0.95 (sparse), 0.7 and 0.25 (most symbols err).
    ours = ours_confusion(sender, fidelity, seed)
    ref = stim_confusion(fidelity, seed)
    assert compare(ours, ref) == []


# Samplers with a wrong channel, same interface as superdense_send.


def _frames_sender(draw):
    """A sender applying per-symbol error codes (2 x + z flips) from ``draw(rng, n, F, sym)``."""

    def send(bits, *, pair_fidelity, seed):
        rng = np.random.default_rng(seed)
        sym = 2 * bits[0::2].astype(np.int64) + bits[1::2]
        err = draw(rng, sym.size, pair_fidelity, sym)
        out = bits.copy()
        out[0::2] ^= (err >> 1).astype(np.uint8)
        out[1::2] ^= (err & 1).astype(np.uint8)
        return out

    return send


def _z_only(rng, n, f, sym):  # every error is a phase flip (same SER 1 - F)
    return np.where(rng.random(n) < 1 - f, 1, 0)


def _independent_flips(rng, n, f, sym):  # x and z flipped independently, each 2 (1 - F)/3
    q = 2 * (1 - f) / 3
    return 2 * (rng.random(n) < q) + (rng.random(n) < q)


def _wrong_fidelity(rng, n, f, sym):  # depolarizing, but at F - 0.01
    p = 1 - (f - 0.01)
    return np.where(rng.random(n) < p, rng.integers(1, 4, n), 0)


def _symbol_dependent(rng, n, f, sym):  # depolarizing only on symbol 00, at 4 (1 - F): same SER
    hit = (sym == 0) & (rng.random(n) < 4 * (1 - f))
    return np.where(hit, rng.integers(1, 4, n), 0)


@pytest.mark.parametrize("wrong", [_z_only, _independent_flips, _wrong_fidelity, _symbol_dependent])
def test_crosscheck_rejects_wrong_channels(wrong):
    ref = stim_confusion(0.95, seed=31)
    assert compare(ours_confusion(_frames_sender(wrong), 0.95, seed=32), ref) != []


def test_crosscheck_accepts_a_correct_reimplementation():
    # The helper sender itself is not what fails above: with the right channel it passes.
    def depolarizing(rng, n, f, sym):
        return np.where(rng.random(n) < 1 - f, rng.integers(1, 4, n), 0)

    ref = stim_confusion(0.95, seed=41)
    assert compare(ours_confusion(_frames_sender(depolarizing), 0.95, seed=42), ref) == []
