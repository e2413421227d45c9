"""Photon loss on the link (chapter *Noisy links*, "Photons get lost"): the fibre's transmission,
the net online factor against transmission and distance, lost photons on the ring's ledger, and
the heralded erasure channel cross-checked against a Stim circuit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import qring_edu as qr
from qring_edu.experiments import noisy_links as nl
from qring_edu.noise import Link, depolarizing_capacities, draw_noise, fibre_transmission

SIGMAS = 4.0


# -- the fibre's transmission ------------------------------------------------------------------
def test_fibre_transmission_is_ten_to_minus_alpha_l_over_ten_times_the_efficiencies():
    assert fibre_transmission(0.0) == 1.0
    assert fibre_transmission(50.0) == pytest.approx(0.1, rel=1e-12)  # 10 dB
    assert fibre_transmission(15.0) == pytest.approx(10 ** (-0.3), rel=1e-12)
    eta = fibre_transmission(20.0, source_efficiency=0.5, detector_efficiency=0.9)
    assert eta == pytest.approx(0.45 * 10 ** (-0.4), rel=1e-12)
    assert fibre_transmission(10.0, attenuation_db_per_km=0.17) == pytest.approx(10 ** (-0.17))


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(distance_km=-1.0), "distance_km"),
        (dict(distance_km=1.0, source_efficiency=0.0), "source_efficiency"),
        (dict(distance_km=1.0, detector_efficiency=1.2), "detector_efficiency"),
        (dict(distance_km=1.0, attenuation_db_per_km=-0.2), "attenuation_db_per_km"),
    ],
)
def test_fibre_transmission_refuses_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        fibre_transmission(**kwargs)


def test_fibre_transmission_refuses_a_bool():
    with pytest.raises(TypeError, match="distance_km"):
        fibre_transmission(True)


# -- the net factor against transmission and distance ------------------------------------------
def test_loss_sweep_factors_against_closed_forms():
    s = nl.loss_sweep(0.99, distances=np.linspace(0.0, 30.0, 31))
    np.testing.assert_allclose(s.transmissions, 10 ** (-0.02 * s.distances), rtol=1e-12)
    np.testing.assert_allclose(s.perfect, 2 * s.transmissions, rtol=1e-12)  # C_E = 2 eta
    # every reliable factor stays below its bound eta C_E(F_eff), and falls with distance
    assert np.all(s.fec < s.bound) and np.all(np.diff(s.fec) < 0)
    assert s.fec[0] == pytest.approx(
        qr.expected_net_factor("fec", link=Link(channel_fidelity=0.99)).online
    )
    assert s.classical == pytest.approx(
        qr.expected_net_factor("fec", link=Link(channel_fidelity=0.99)).classical
    )
    # eta = 1/2 at 10 log10(2) / 0.2 km: the loss-only link's factor is 1 there
    assert s.break_even_km == pytest.approx(10 * math.log10(2) / 0.2, rel=1e-12)
    half = qr.expected_net_factor("none", link=Link(transmission=0.5))
    assert half.online == pytest.approx(1.0) and half.bound == pytest.approx(1.0)
    noisy_half = qr.expected_net_factor("fec", link=Link(channel_fidelity=0.99, transmission=0.5))
    assert noisy_half.online < 1.0 and noisy_half.advantage < 1.0


def test_loss_sweep_with_lossy_source_and_detector_starts_below_one():
    s = nl.loss_sweep(0.99, source_efficiency=0.5, detector_efficiency=0.9, distances=[0.0, 5.0])
    assert s.transmissions[0] == pytest.approx(0.45) and s.perfect[0] == pytest.approx(0.9)
    assert math.isnan(s.break_even_km) and np.all(s.fec < 1.0)


def test_loss_sweep_refuses_bad_input():
    with pytest.raises(ValueError, match="distances"):
        nl.loss_sweep(0.99, distances=[])
    with pytest.raises(ValueError, match="source_efficiency"):
        nl.loss_sweep(0.99, source_efficiency=1.5)
    with pytest.raises(ValueError, match="distances"):
        nl.loss_sweep(0.99, distances=[1e6])  # no light left


@pytest.mark.parametrize("F", [0.99, 0.999])
@pytest.mark.parametrize("baseline", ["noiseless", "coded"])
def test_loss_crossover_is_where_the_factor_meets_the_baseline(F, baseline):
    eta = nl.loss_crossover(F, baseline=baseline)
    top = qr.expected_net_factor("fec", link=Link(channel_fidelity=F))
    target = 1.0 if baseline == "noiseless" else top.classical
    below = qr.expected_net_factor("fec", link=Link(channel_fidelity=F, transmission=eta * 0.99))
    above = qr.expected_net_factor("fec", link=Link(channel_fidelity=F, transmission=eta * 1.01))
    assert below.online < target < above.online
    assert 0.5 < eta < 1.0


def test_loss_crossover_refuses_a_link_below_the_baseline_without_loss():
    with pytest.raises(ValueError, match="channel_fidelity"):
        nl.loss_crossover(0.97)


# -- lost photons on the ring's ledger ---------------------------------------------------------
@pytest.mark.parametrize("eta", [0.9, 0.5, 0.2])
@pytest.mark.parametrize("F", [1.0, 0.99])
def test_loss_run_arrival_rate_matches_transmission(eta, F):
    """Simulated photons arrived / sent = eta within 4 s.d.; every loss is on the ledger (with
    and without the code), and the outputs stay exact."""
    r = nl.loss_run(eta, channel_fidelity=F, workers=4, d=4096, seed=3)
    assert r.exact and r.lost == r.photons - r.symbols and r.lost > 0
    assert abs(r.arrival_rate - eta) <= SIGMAS * r.standard_error
    # each pair's half was sent offline until it arrived: about photons / eta
    assert (
        abs(r.offline_qubits - r.photons / eta) <= SIGMAS * math.sqrt(r.photons * (1 - eta)) / eta
    )
    if F == 1.0:
        assert r.net_factor == pytest.approx(2 * eta, rel=0.05)


def test_net_factor_sweep_carries_the_coded_classical_baseline():
    s = nl.net_factor_sweep(0.99, "fec", fidelities=[0.94, 0.95, 0.99])
    for F, c in zip(s.fidelities, s.classical):
        assert c == pytest.approx(
            qr.expected_net_factor("fec", link=Link(channel_fidelity=float(F))).classical
        )
    adv = s.online["fec"] / s.classical
    assert adv[0] < 1 < adv[1] and adv[2] == pytest.approx(1.846, abs=1e-3)


# -- the erasure channel against a Stim circuit -------------------------------------------------
def _stim_superdense(x: int, z: int, eta: float, shots: int, seed: int) -> np.ndarray:
    """Superdense coding of (x, z) with a heralded erasure of probability 1 - eta on Alice's
    qubit: columns (herald, z decoded, x decoded)."""
    stim = pytest.importorskip("stim")
    c = stim.Circuit()
    c.append("H", [0])
    c.append("CNOT", [0, 1])
    if x:
        c.append("X", [0])
    if z:
        c.append("Z", [0])
    c.append("HERALDED_ERASE", [0], 1.0 - eta)
    c.append("CNOT", [0, 1])
    c.append("H", [0])
    c.append("M", [0, 1])
    return c.compile_sampler(seed=seed).sample(shots)


@pytest.mark.parametrize("eta", [0.8, 0.5])
def test_erasure_channel_against_stim(eta):
    """Stim's heralded erasure on the travelling qubit: the herald rate is 1 - eta, as the
    library's lost photons per photon sent; an unheralded symbol decodes right; a heralded one
    carries nothing (uniform outcomes), so the information per use is 2 eta = C_E."""
    shots = 20_000
    heralds, info = 0, 0.0
    for k, (x, z) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1)]):
        s = _stim_superdense(x, z, eta, shots, seed=10 + k)
        her, zb, xb = s[:, 0], s[:, 1], s[:, 2]
        heralds += int(her.sum())
        assert np.all((xb[~her] == x) & (zb[~her] == z))  # arrived photons decode right
        codes = 2 * zb[her].astype(int) + xb[her].astype(int)
        counts = np.bincount(codes, minlength=4)
        m = int(her.sum())
        assert np.all(np.abs(counts - m / 4) <= SIGMAS * math.sqrt(m * 3 / 16))  # uniform
        info += 2.0 * (1.0 - her.mean())  # bits per use: 2 if it arrived, 0 if erased
    n = 4 * shots
    stim_rate = heralds / n
    # the library: lost photons per photon sent, from draw_noise's negative binomial
    noise = draw_noise(n, Link().errors, np.random.default_rng(0), eta)
    lib_rate = (noise.sent - n) / noise.sent
    sd = math.sqrt(eta * (1 - eta) / n)
    assert abs(stim_rate - (1 - eta)) <= SIGMAS * sd
    assert abs(lib_rate - (1 - eta)) <= SIGMAS * sd * math.sqrt(1 / eta)
    assert abs(stim_rate - lib_rate) <= SIGMAS * sd * math.sqrt(1 + 1 / eta)
    c_e = depolarizing_capacities(1.0, transmission=eta).entanglement_assisted
    assert c_e == pytest.approx(2 * eta) and abs(info / 4 - c_e) <= SIGMAS * 2 * sd


# -- figure and widget ------------------------------------------------------------------------
def test_loss_figure_draws_both_baselines_and_the_break_even():
    from qring_edu.figures.noisy_links import plot_loss

    s = nl.loss_sweep(0.99)
    ax = plot_loss(s).axes[0]
    flat = [ln for ln in ax.get_lines() if np.ptp(ln.get_ydata()) == 0 and len(ln.get_ydata()) == 2]
    levels = sorted(float(ln.get_ydata()[0]) for ln in flat)
    assert levels == pytest.approx(sorted([1.0, s.classical]))  # the two classical baselines
    assert any(np.allclose(ln.get_xdata(), s.break_even_km) for ln in ax.get_lines())
    # a link already below eta = 1/2 has no break-even line
    lossy = plot_loss(nl.loss_sweep(0.99, source_efficiency=0.45)).axes[0]
    assert not any(np.allclose(ln.get_xdata(), s.break_even_km) for ln in lossy.get_lines())


def test_net_factor_figure_reports_the_fair_baseline():
    from qring_edu.figures.noisy_links import plot_net_factors

    fig = plot_net_factors(nl.net_factor_sweep(0.99, "fec", fidelities=[0.98, 0.99]))
    text = "\n".join(t.get_text() for t in fig.axes[1].texts)
    assert "classical baseline: 0.7915" in text and "advantage over it: 1.8460" in text


def test_loss_widget_recomputes():
    from qring_edu.widgets.noisy_links import loss_widget

    w = loss_widget()
    assert w.error == "" and w.result.break_even_km == pytest.approx(15.05, abs=0.01)
    before = bytes(w.image.value)
    w.controls["efficiency"].value = 0.45
    assert w.result.perfect[0] == pytest.approx(0.9) and bytes(w.image.value) != before
    w.controls["channel_fidelity"].value = 1.0
    r = w.result  # a noiseless channel: the code costs only its checksum and acknowledgements
    assert np.all(r.fec < r.perfect) and np.all(r.fec > 0.95 * r.perfect)
    assert w.explorer is not None


def test_fec_crossover_against_the_coded_classical_baseline():
    """Against the same code over classical bits on the same channel, the break-even falls from
    F = 0.975 to about 0.948: the advantage crosses 1 there."""
    F = nl.fec_crossover(1.0, baseline="coded")
    assert 0.94 < F < nl.fec_crossover(1.0) - 0.02
    adv = [
        qr.expected_net_factor("fec", link=Link(channel_fidelity=f)).advantage
        for f in (F - 1e-4, F + 1e-4)
    ]
    assert adv[0] < 1.0 < adv[1]
    with pytest.raises(ValueError, match="baseline"):
        nl.fec_crossover(1.0, baseline="bits")
