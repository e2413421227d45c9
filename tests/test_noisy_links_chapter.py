"""The Noisy links chapter's floors: experiments, figures, widgets and exercise checkers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

import qring_edu as qr
from qring_edu.costmodel import MODEL_SIZES, link_units
from qring_edu.exercises import noisy_links as ex
from qring_edu.experiments import noisy_links as nl
from qring_edu.figures import noisy_links as figs
from qring_edu.noise import Link, memory_dephasing
from qring_edu.protection import SCHEMES, expected_net_factor
from qring_edu.widgets import LiveFigure
from qring_edu.widgets.noisy_links import net_factor_widget, protected_training_widget


# -- experiments ------------------------------------------------------------------------------
def test_link_noise_check_three_paths_agree_with_the_formula():
    c = nl.link_noise_check(0.93, 0.97, symbols=20_000, aer_symbols=500, seed=4)
    F = 0.93 * 0.97 + 0.07 * 0.03 / 3
    assert c.formula == pytest.approx(F, abs=1e-15)
    assert c.qiskit_deviation < 1e-12
    for rate, n in ((c.fast_error_rate, c.fast_symbols), (c.aer_error_rate, c.aer_symbols)):
        assert abs(rate - (1 - F)) <= 4 * c.standard_error(n)
    again = nl.link_noise_check(0.93, 0.97, symbols=2000, seed=4)
    assert (
        again.fast_error_rate
        == nl.link_noise_check(0.93, 0.97, symbols=2000, seed=4).fast_error_rate
    )
    assert "aer" not in repr(again) and len(again.table()) == 3 and len(c.table()) == 4


def test_link_noise_check_bad_input_names_argument():
    with pytest.raises(ValueError, match="channel_fidelity"):
        nl.link_noise_check(0.9, 1.1)
    with pytest.raises(ValueError, match="symbols"):
        nl.link_noise_check(0.9, 0.9, symbols=0)
    with pytest.raises(ValueError, match="aer_symbols"):
        nl.link_noise_check(0.9, 0.9, aer_symbols=10_000)


def test_capacity_sweep_ratio_exceeds_two_below_one():
    s = nl.capacity_sweep(np.linspace(0.26, 0.999, 200))
    assert np.all(s.ratio > 2.0)
    assert np.all(s.link_bound <= s.assisted + 1e-12)
    assert np.all(s.classical <= 1.0) and np.all(s.assisted <= 2.0)
    full = nl.capacity_sweep()
    assert full.fidelities[0] == 0.25 and math.isnan(full.ratio[0]) and full.assisted[-1] == 2.0
    assert s.threshold == pytest.approx(qr.dense_coding_threshold())
    with pytest.raises(ValueError, match="fidelities"):
        nl.capacity_sweep([0.1])
    with pytest.raises(ValueError, match="fidelities"):
        nl.capacity_sweep([])


def test_distillation_sweep_matches_distill_and_yield_is_positive_above_half():
    s = nl.distillation_sweep(np.linspace(0.51, 0.99, 25), rounds=(1, 2))
    for j, F in enumerate(s.fidelities):
        for i, r in enumerate(s.rounds):
            for p in s.protocols:
                d = qr.distill(float(F), rounds=r, protocol=p)
                assert s.fidelity[p][i, j] == d.fidelity
                assert s.raw_pairs[p][i, j] == d.raw_pairs_per_pair
    assert np.all(s.yield_per_pair > 0)
    below = s.fidelities < qr.dense_coding_threshold()
    assert np.all(s.hashing_only[below] == 0) and np.all(s.hashing_only[~below] > 0)
    assert np.all(s.yield_per_pair >= s.hashing_only)
    assert np.all(s.fidelity["dejmps"][1] >= s.fidelity["bbpssw"][1] - 1e-12)
    t = nl.distillation_table([0.9], [2])
    assert t.column("fidelity out") == (
        qr.distill(0.9, rounds=2, protocol="bbpssw").fidelity,
        qr.distill(0.9, rounds=2).fidelity,
    )
    with pytest.raises(ValueError, match="protocols"):
        nl.distillation_sweep([0.9], protocols=["hashing"])
    with pytest.raises(ValueError, match="rounds"):
        nl.distillation_sweep([0.9], rounds=())


def test_net_factor_sweep_reliable_schemes_stay_below_the_bound():
    s = nl.net_factor_sweep(0.99, "fec", fidelities=np.linspace(0.9, 1.0, 41))
    for scheme in ("fec", "distill+fec"):
        ok = np.isfinite(s.online[scheme])
        bound = s.bound if scheme == "fec" else s.bound_distilled
        assert ok.sum() > 10 and np.all(s.online[scheme][ok] <= bound[ok] + 1e-12)
    assert np.all(s.online["none"] == 2.0) and np.all(s.online["distill"] == 2.0)
    assert not s.reliable["none"] and not s.reliable["distill"] and s.reliable["fec"]
    assert s.point.online == expected_net_factor("fec", link=Link(channel_fidelity=0.99)).online
    factors = [
        nl.net_factor_sweep(0.99, "fec", n, fidelities=[0.99]).point.online
        for n in (32, 64, 128, 255)
    ]
    assert factors == sorted(factors) and factors[0] < 1 < factors[-1]
    assert np.all(s.unassisted <= 1.0) and np.all(s.assisted >= s.bound)
    with pytest.raises(ValueError, match="scheme"):
        nl.net_factor_sweep(0.99, "repetition")
    with pytest.raises(ValueError, match="block_length"):
        nl.net_factor_sweep(0.99, "fec", 300)


def test_a_link_too_noisy_for_the_code_has_no_point():
    s = nl.net_factor_sweep(0.9, "fec", 32, fidelities=[0.9, 1.0])
    assert s.point is None and math.isnan(s.online["fec"][0]) and np.isfinite(s.online["fec"][1])
    assert math.isnan(s.factor) and "factor=nan" in repr(s)


def test_crossovers_are_where_the_factor_crosses():
    F1 = nl.fec_crossover(1.0)
    assert expected_net_factor("fec", link=Link(channel_fidelity=F1 + 1e-6)).online >= 1.0
    assert expected_net_factor("fec", link=Link(channel_fidelity=F1 - 1e-4)).online < 1.0
    assert 0.97 < F1 < nl.fec_crossover(1.4) < 0.99
    Fb = nl.link_bound_crossover(1.0)
    assert Link(channel_fidelity=Fb).errors.capacity() == pytest.approx(1.0, abs=1e-9)
    assert Fb < F1  # the code pays well below the bound
    with pytest.raises(ValueError, match="target"):
        nl.fec_crossover(1.99, block_length=32)
    with pytest.raises(ValueError, match="target"):
        nl.fec_crossover(0.0)


def test_scheme_ledger_books_every_cost_and_protects_the_data():
    led = nl.scheme_ledger(0.99, workers=4, d=4096, seed=3)
    none, dist, fec, both = (led.run(s) for s in SCHEMES)
    assert none.wrong_fraction > 0.2 and dist.wrong_fraction > 0.2
    assert fec.wrong_fraction == 0.0 and both.wrong_fraction == 0.0
    assert none.online_qubits * 2 == none.classical_bits and none.online_bits == 0
    assert (
        dist.online_qubits == none.online_qubits and dist.offline_qubits > 2 * none.offline_qubits
    )
    # one acknowledgement bit per block transmission; the code's redundancy costs qubits
    assert fec.online_bits > 0 and fec.online_qubits > none.online_qubits
    for r in (fec, both):
        assert 1.0 < r.net_factor <= r.bound and r.undetected_bound < 1e-15
    assert none.undetected_bound == 1.0
    assert "fec" in repr(led) and len(led.table()) == 4
    with pytest.raises(ValueError, match="scheme"):
        led.run("classical")


def test_the_scheme_ledger_is_the_claims_row():
    c = nl.scheme_ledger(0.99, workers=4, d=4096, seed=0)
    none, dist, fec, both = (c.run(s) for s in SCHEMES)
    assert none.expected == dist.expected == 2.0
    assert fec.expected == pytest.approx(1.4612, abs=1e-4)
    assert both.expected == pytest.approx(1.5192, abs=1e-4)
    assistance = qr.depolarizing_capacities(0.99).entanglement_assisted
    assert none.bound == pytest.approx(1.8278, abs=1e-4) and none.bound < dist.bound < assistance
    # Unprotected, each 16-bit word survives a message with F_eff**8 = 0.8517; an entry crosses
    # 3 messages in reduce-scatter and 0..3 in all-gather: 0.8517**3 (1 + .8517 + .8517**2 +
    # .8517**3) / 4 = 0.4935 of the entries stay right, so 0.5065 are wrong (4096 x 4 entries,
    # correlated between workers: a standard deviation of about 0.01)
    assert fec.wrong_fraction == 0.0 and abs(none.wrong_fraction - 0.5065) < 0.04
    text = c.text()
    assert "1.46" in text and "1.52" in text and "1.83" in text
    assert dict(c.net_factors)["fec"] <= fec.expected + 1e-9


def test_protected_training_stays_identical_unprotected_drifts():
    t = nl.protected_training(0.99, "fec", steps=30)
    assert t.identical and t.protected.divergence == 0.0
    assert t.unprotected.divergence > 0 and not np.array_equal(
        t.unprotected.weights, t.classical.weights
    )
    n = nl.protected_training(0.99, "none", steps=5)
    assert n.protected is n.unprotected and not n.identical
    d = nl.protected_training(0.99, "distill", steps=30)
    assert not d.identical  # distillation leaves the online qubit's noise
    assert len(t.table()) == 3
    with pytest.raises(ValueError, match="protection"):
        nl.protected_training(0.99, "parity")


def test_reality_check_arithmetic():
    r = nl.reality_check(("ResNet-50", "GPT-2 XL"), workers=8, iteration_time=0.1)
    fec = expected_net_factor("fec", link=Link(channel_fidelity=0.99)).online
    for row in r:
        d = MODEL_SIZES[row.model]
        assert row.pairs == link_units(8, d, 16, transport="superdense")
        assert row.pairs_fec == pytest.approx(link_units(8, d, 16) / fec)
        assert row.rate_needed == pytest.approx(row.pairs_fec / 0.1)
        assert row.orders == pytest.approx(math.log10(row.rate_needed / 182.0))
        assert row.days_at_rate == pytest.approx(row.pairs_fec / 182.0 / 86400)
    assert r.memory_error == memory_dephasing(0.1, 3600.0).error_rate
    assert r.pair_rate == 182.0 and r.coherence_time == 3600.0
    assert all(h.fidelity for h in nl.HARDWARE if h.unit == "pairs/s")  # a rate with its fidelity
    assert {h.source for h in nl.HARDWARE} <= _bib_keys()
    with pytest.raises(ValueError, match="models"):
        nl.reality_check(["AlexNet"])
    with pytest.raises(ValueError, match="iteration_time"):
        nl.reality_check(iteration_time=0)


def _bib_keys() -> set[str]:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "references.bib").read_text(encoding="utf-8")
    return set(re.findall(r"^@\w+\{([^,]+),", text, flags=re.M))


# -- figures ----------------------------------------------------------------------------------
def test_figures_draw_the_results():
    assert isinstance(figs.plot_capacities(nl.capacity_sweep()), Figure)
    assert isinstance(figs.plot_distillation(nl.distillation_sweep(rounds=(1, 2))), Figure)
    for scheme in SCHEMES:
        assert isinstance(figs.plot_net_factors(nl.net_factor_sweep(0.99, scheme)), Figure)
    assert isinstance(figs.plot_net_factors(nl.net_factor_sweep(0.9, "fec", 32)), Figure)
    for prot in ("fec", "none"):
        assert isinstance(
            figs.plot_protected_training(nl.protected_training(0.99, prot, steps=5)), Figure
        )


def test_net_factor_figure_reports_the_code_s_rejections():
    # at F = 0.99 the code RS(255, 199) rejects 2.37 % of the blocks (byte error 1 - F_eff**4)
    fig = figs.plot_net_factors(nl.net_factor_sweep(0.99, "fec", fidelities=[0.99]))
    text = "\n".join(t.get_text() for t in fig.axes[1].texts)
    assert "RS(255, 199)" in text and "blocks re-sent: 2.37%" in text


# -- widgets ----------------------------------------------------------------------------------
def _png(widget: LiveFigure) -> bytes:
    return bytes(widget.image.value)


def test_net_factor_widget_recomputes():
    w = net_factor_widget()
    assert w.error == "" and w.result.point.online == pytest.approx(1.4612, abs=1e-4)
    before = _png(w)
    w.controls["block_length"].value = 64
    assert w.result.block_length == 64 and _png(w) != before
    w.controls["scheme"].value = "distill+fec"
    assert w.result.scheme == "distill+fec"
    w.controls["channel_fidelity"].value = 0.9
    w.controls["block_length"].value = 32
    assert w.error == "" and w.result.point is None  # shown as "no code fits" in the figure
    assert all(
        getattr(c, "continuous_update", False) is False
        for c in w.controls.values()
        if "continuous_update" in c.trait_names()
    )


def test_protected_training_widget_recomputes():
    w = protected_training_widget(steps=10)
    assert w.result.identical
    before = _png(w)
    w.controls["protection"].value = "distill"
    assert not w.result.identical and _png(w) != before


# -- exercises --------------------------------------------------------------------------------
def _compose(a, b):
    return a * b + (1 - a) * (1 - b) / 3


def _dejmps(p):
    p = np.asarray(p, dtype=float)[[0, 1, 3, 2]]
    out = np.zeros(4)
    for a in range(4):
        for b in range(4):
            if (a ^ b) & 1 == 0:
                out[(a & 1) | ((a ^ b) & 2)] += p[a] * p[b]
    return out.sum(), out / out.sum()


def _bilateral_only(p):  # forgets the rotations: right on round 1 from Werner pairs only
    p = np.asarray(p, dtype=float)
    out = np.zeros(4)
    for a in range(4):
        for b in range(4):
            if (a ^ b) & 1 == 0:
                out[(a & 1) | ((a ^ b) & 2)] += p[a] * p[b]
    return out.sum(), out / out.sum()


def test_check_compose_fidelity_correct_wrong_crashing():
    assert ex.check_compose_fidelity(_compose).passed
    wrong = ex.check_compose_fidelity(lambda a, b: a * b)
    assert not wrong.passed and "Two equal Paulis cancel" in wrong.message
    crash = ex.check_compose_fidelity(lambda a, b: 1 / 0)
    assert not crash.passed and "ZeroDivisionError" in crash.message and "(1, 1)" in crash.message
    assert "Not attempted" in ex.check_compose_fidelity(None).message
    assert "function itself" in ex.check_compose_fidelity(0.98).message
    text = ex.check_compose_fidelity(lambda a, b: "0.9")
    assert not text.passed and "without quotes" in text.message
    from qring_edu.noise import effective_fidelity

    def shortcut(a, b):
        return effective_fidelity(a, b)

    assert not ex.check_compose_fidelity(shortcut).passed  # the library's own is switched off


def test_check_dejmps_round_correct_wrong_crashing():
    assert ex.check_dejmps_round(_dejmps).passed
    wrong = ex.check_dejmps_round(_bilateral_only)
    assert not wrong.passed and "round 2" in wrong.message and "rotations" in wrong.message
    crash = ex.check_dejmps_round(lambda p: p[7])
    assert not crash.passed and "IndexError" in crash.message
    shape = ex.check_dejmps_round(lambda p: (1.0, [1.0, 0.0]))
    assert not shape.passed and "four" in shape.message

    def shortcut(p, _distill=qr.distill):
        return _dejmps(p) if _distill else None

    refused = ex.check_dejmps_round(shortcut)  # holds the library's distill: refused
    assert not refused.passed and "distill" in refused.message
    assert "pair (success, p_out)" in ex.check_dejmps_round(lambda p: 3).message
    assert "Not attempted" in ex.check_dejmps_round(None).message


NUMERIC = [
    (ex.check_assisted_ratio, dict(channel_fidelity=0.95), qr.depolarizing_capacities(0.95).ratio),
    (
        ex.check_raw_pairs,
        dict(pair_fidelity=0.9, rounds=2),
        qr.distill(0.9, rounds=2).raw_pairs_per_pair,
    ),
    (ex.check_online_symbol_error, dict(channel_fidelity=0.99), 1 - 0.99),
    (ex.check_fec_break_even, dict(block_length=255), nl.fec_crossover(1.0)),
]


@pytest.mark.parametrize("check, kwargs, ref", NUMERIC, ids=[c.__name__ for c, _, _ in NUMERIC])
def test_numeric_checkers_take_numbers_and_only_numbers(check, kwargs, ref):
    assert check(ref, **kwargs).passed and check(np.float64(ref), **kwargs).passed
    assert not check(ref + 0.05, **kwargs).passed
    quoted = check(repr(ref), **kwargs)
    assert not quoted.passed and "without quotes" in quoted.message
    assert not check(True, **kwargs).passed
    assert "Not attempted" in check(None, **kwargs).message


def test_numeric_checker_hints():
    assert "failed attempts" in ex.check_raw_pairs(4.0).message
    assert "logarithms base 2" in ex.check_assisted_ratio(2.0).message
    assert "invalid" in ex.check_assisted_ratio(2.0, channel_fidelity=2).message


def test_docstring_examples_of_the_chapter_experiments_run():
    import doctest

    result = doctest.testmod(nl, raise_on_error=False, verbose=False)
    assert result.attempted >= 12 and result.failed == 0
