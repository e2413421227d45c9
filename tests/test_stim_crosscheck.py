"""Cross-check of the fast noise path against Stim, a Pauli-frame simulator no one here wrote
(ARCHITECTURE.md, book/03_superdense_ring.ipynb, book/04_noisy_links.ipynb).

Stim runs the whole superdense-coding protocol as a circuit, each noise where it physically
acts: a Bell pair, the pair noise ``DEPOLARIZE1(1 - F_pair)`` on Bob's half (Stim's definition:
X, Y, Z each with probability (1 - F)/3, the Werner pair of fidelity F), memory dephasing
``Z_ERROR`` on both halves, a random symbol drawn in-circuit from two ancillas in |+> (CX and CZ
onto Alice's qubit), the channel ``DEPOLARIZE1(1 - F_ch)`` on Alice's qubit, Bob's CNOT, H and
measurement. Our side is ``qring_edu.superdense.superdense_send`` (one composed Pauli per symbol
from ``qring_edu.noise.draw_noise``) and ``draw_noise`` itself.

Both give a 4 x 4 table of counts (sent symbol, decoded symbol), symbol code ``2 x + z``, on the
same number of symbols. ``compare`` checks: the symbol error rate, the frequencies of the error
patterns X (x flipped only), Z (z only) and Y (both), and the per-bit flip rates of x and of z
agree within 4 two-sample standard deviations; a chi-squared test of homogeneity of the pattern
distributions does not reject at level 1e-4; and for every sent symbol the fraction decoded
correctly agrees within 4 s.d. and its decoded distribution passes the same chi-squared test.
Everything is seeded. ``test_crosscheck_rejects_wrong_channels`` shows that the comparison
fails for samplers with a wrong channel.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import stim
from scipy.stats import chi2_contingency

from qring_edu.noise import Link, draw_noise
from qring_edu.superdense import superdense_send

PAIRS, SHOTS = 64, 2**14  # 2^20 symbols per simulator and link
SIGMAS = 4.0
ALPHA = 1e-4  # chi-squared rejection level
PATTERN_CODE = {"X": 2, "Z": 1, "Y": 3}  # sent XOR decoded, code 2 x + z


def stim_confusion(link: Link, seed: int) -> np.ndarray:
    """(4, 4) counts [sent symbol, decoded symbol] of PAIRS x SHOTS symbols sampled by Stim."""
    k = PAIRS
    a, b = list(range(0, 2 * k, 2)), list(range(1, 2 * k, 2))
    xs, zs = list(range(2 * k, 3 * k)), list(range(3 * k, 4 * k))

    def pairs(u, v):
        return [q for s, t in zip(u, v) for q in (s, t)]

    c = stim.Circuit()
    c.append("H", a)
    c.append("CX", pairs(a, b))  # |Phi+> on (A, B)
    if link.pair < 1:
        c.append("DEPOLARIZE1", b, 1.0 - link.pair)  # the half that crossed the link
    if link.storage_time > 0 and link.coherence_time < math.inf:
        half = (1 - math.exp(-link.storage_time / link.coherence_time)) / 2
        c.append("Z_ERROR", a + b, half)  # each half waits in its memory
    c.append("H", xs + zs)  # random symbol bits
    c.append("CX", pairs(xs, a))  # X**x on A
    c.append("CZ", pairs(zs, a))  # Z**z on A
    c.append("M", pairs(xs, zs))  # the sent bits: x, z of every pair
    if link.channel_fidelity < 1:
        c.append("DEPOLARIZE1", a, 1.0 - link.channel_fidelity)  # A crosses the channel
    c.append("CX", pairs(a, b))
    c.append("H", a)
    c.append("M", pairs(b, a))  # Bob: B gives x, A gives z
    rec = c.compile_sampler(seed=seed).sample(SHOTS).astype(np.int64)
    sent, dec = rec[:, : 2 * k], rec[:, 2 * k :]
    s = 2 * sent[:, 0::2] + sent[:, 1::2]
    d = 2 * dec[:, 0::2] + dec[:, 1::2]
    return np.bincount((4 * s + d).ravel(), minlength=16).reshape(4, 4)


def ours_confusion(sender, link: Link, seed: int) -> np.ndarray:
    """(4, 4) counts [sent, decoded] of PAIRS x SHOTS random symbols sent with ``sender``."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, 2 * PAIRS * SHOTS, dtype=np.uint8)
    received = sender(bits, link=link, seed=seed + 1)
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
    for bit, codes in (("x", [2, 3]), ("z", [1, 3])):  # per-bit flip rates
        z = _z_two(po[codes].sum(), no, pr[codes].sum(), nr)
        if abs(z) > SIGMAS:
            failures.append(f"{bit} flip rate differs ({z:+.1f} s.d.)")
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


def test_stim_circuit_decodes_every_symbol_on_a_perfect_link():
    conf = stim_confusion(Link(), seed=11)
    assert np.all(conf.sum(axis=1) > 0.24 * PAIRS * SHOTS)  # all four symbols, ~uniformly
    assert np.count_nonzero(conf - np.diag(np.diag(conf))) == 0


def test_stim_follows_the_stated_law():
    # anchors the reference: Stim's DEPOLARIZE1(1 - F) gives X, Y, Z each with (1 - F)/3
    f = 0.95
    counts = pattern_counts(stim_confusion(Link(f), seed=12))
    n, q = counts.sum(), (1 - f) / 3
    for code in PATTERN_CODE.values():
        assert abs(counts[code] / n - q) <= SIGMAS * np.sqrt(q * (1 - q) / n)


LINKS = [
    (Link(pair_fidelity=0.95), 21),
    (Link(pair_fidelity=0.7), 22),
    (Link(pair_fidelity=0.25), 23),  # most symbols err
    (Link(channel_fidelity=0.9), 24),  # pair distributed over the channel, then the channel
    (Link(pair_fidelity=0.97, channel_fidelity=0.9, storage_time=0.5, coherence_time=2.0), 25),
]


@pytest.mark.parametrize("link, seed", LINKS, ids=[repr(link) for link, _ in LINKS])
def test_superdense_send_matches_stim(link, seed):
    assert compare(ours_confusion(superdense_send, link, seed), stim_confusion(link, seed)) == []


def test_draw_noise_paulis_match_stim():
    """The Paulis of draw_noise itself (no bits): frame code 1 = X flips x (pattern 2), 2 = Z
    flips z (pattern 1), 3 = Y both."""
    link = LINKS[4][0]
    n = PAIRS * SHOTS
    noise = draw_noise(n, link.errors, np.random.default_rng(5))
    pattern = np.array([0, 2, 1, 3])[noise.codes]
    ours = np.bincount(pattern, minlength=4)
    ours[0] = n - noise.codes.size
    ref = pattern_counts(stim_confusion(link, seed=26))
    for code in range(4):
        assert abs(_z_two(ours[code], n, ref[code], ref.sum())) <= SIGMAS
    assert _chi2_p(np.stack([ours, ref])) > ALPHA


# Samplers with a wrong channel, same interface as superdense_send.


def _frames_sender(draw):
    """A sender applying per-symbol error codes (2 x + z flips) from ``draw(rng, n, F, sym)``."""

    def send(bits, *, link, seed):
        rng = np.random.default_rng(seed)
        sym = 2 * bits[0::2].astype(np.int64) + bits[1::2]
        err = draw(rng, sym.size, link.errors.fidelity, sym)
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


def _wrong_fidelity(rng, n, f, sym):  # depolarising, but at F - 0.01
    p = 1 - (f - 0.01)
    return np.where(rng.random(n) < p, rng.integers(1, 4, n), 0)


def _symbol_dependent(rng, n, f, sym):  # depolarising only on symbol 00, at 4 (1 - F): same SER
    hit = (sym == 0) & (rng.random(n) < 4 * (1 - f))
    return np.where(hit, rng.integers(1, 4, n), 0)


@pytest.mark.parametrize("wrong", [_z_only, _independent_flips, _wrong_fidelity, _symbol_dependent])
def test_crosscheck_rejects_wrong_channels(wrong):
    link = Link(0.95)
    ref = stim_confusion(link, seed=31)
    assert compare(ours_confusion(_frames_sender(wrong), link, seed=32), ref) != []


def test_crosscheck_rejects_separate_draws_for_pair_and_channel():
    """Pair and channel drawn as two independent symbols' worth of error rate, added instead of
    composed (an X and an X cancel): the wrong law on a link with both noises."""

    def added(rng, n, f, sym):
        p = 2 * (1 - 0.9)  # as if the two error rates simply added up
        return np.where(rng.random(n) < p, rng.integers(1, 4, n), 0)

    link = Link(channel_fidelity=0.9)
    ref = stim_confusion(link, seed=33)
    assert compare(ours_confusion(_frames_sender(added), link, seed=34), ref) != []


def test_crosscheck_accepts_a_correct_reimplementation():
    # the helper sender itself is not what fails above: with the right channel it passes
    def depolarizing(rng, n, f, sym):
        return np.where(rng.random(n) < 1 - f, rng.integers(1, 4, n), 0)

    link = Link(0.95)
    ref = stim_confusion(link, seed=41)
    assert compare(ours_confusion(_frames_sender(depolarizing), link, seed=42), ref) == []
