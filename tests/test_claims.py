"""The paper's claims checked (qring_edu.experiments.claims) and their table
(qring_edu.figures.claims): four verdicts, judges that can fail, the numbers behind each row."""

from __future__ import annotations

import doctest
import html as html_module
import math
import re
from pathlib import Path

import numpy as np
import pytest

from qring_edu import vga_epsilon
from qring_edu.experiments import claims as claims_module
from qring_edu.experiments.claims import (
    CLAIM_KEYS,
    CLAIM_ROWS,
    VERDICTS,
    Claim,
    claim_row,
    gapip_claim,
    halving_claim,
    judge,
    lifetime_claim,
    odd_messages_per_link,
    optimality_claim,
    reproduce_claims,
    tieaudit_claim,
    verdict_from,
    vga_claim,
)
from qring_edu.experiments.gapip import COMPARISON_TAUS, gapip_comparison
from qring_edu.experiments.tieaudit import tieaudit_crossover
from qring_edu.figures import claims as figures_module
from qring_edu.figures.claims import (
    HEADERS,
    VERDICT_STYLE,
    chapter_label,
    claims_table_html,
    verdict_label,
)
from qring_edu.vga import KnownPads
from qring_edu.vga_security import detection_probability

BOOK = Path(__file__).resolve().parents[1] / "book"

#: The verdict of every row with today's library (a regression in a number changes one).
EXPECTED = {
    "halving": "holds",
    "optimal": "partly",
    "lifetime": "holds",
    "vga": "not established",
    "gapip": "partly",
    "tieaudit": "partly",
    "learner": "holds",
    "noisy": "partly",
}


@pytest.fixture(scope="module")
def claims() -> list[Claim]:
    return reproduce_claims(seed=0, options={"gapip": {"trials": 6}})


@pytest.fixture(scope="module")
def rows(claims) -> dict[str, Claim]:
    return {c.key: c for c in claims}


# ---------------------------------------------------------------------------------------------
# The rows and their verdicts
# ---------------------------------------------------------------------------------------------
def test_rows_in_order_with_their_verdicts(claims):
    assert [c.key for c in claims] == list(CLAIM_KEYS) == list(EXPECTED)
    assert {c.key: c.verdict for c in claims} == EXPECTED
    for c in claims:
        assert c.claim and c.paper_figure and c.computed and c.caveat
        assert (BOOK / f"{c.chapter}.ipynb").is_file(), c.chapter
        assert bool(c.reason) == (c.verdict != "holds")
        assert c.holds == (c.verdict == "holds") and c.supported
        # the noisy-link row is the book's question; the others are the paper's claims
        assert c.source == ("book" if c.key == "noisy" else "paper")
        if c.verdict in ("partly", "not established"):
            assert "Missing:" in c.reason or "missing is" in c.reason, c.key
        assert "$" not in c.computed + c.reason + c.caveat
        with pytest.raises(TypeError):
            c.values["new"] = 1.0  # read-only


def test_each_judge_reproduces_its_row(claims):
    for c in claims:
        assert judge(c.key, c.values) == (c.verdict, c.reason)


def _modified(c: Claim, **changes) -> dict:
    v = dict(c.values)
    for k in changes:
        assert k in v, k
    v.update(changes)
    return v


def test_judges_fail_on_contradicting_numbers(rows):
    """Every judge turns "does not hold" when one of its numbers is contradicted."""
    bad = {
        "halving": [
            dict(qubits_per_link=rows["halving"].values["qubits_per_link"] + 1),
            dict(odd_padding=3),
            dict(sums_exact=False),
        ],
        "optimal": [dict(chi_max=2.01), dict(capacity=1.9), dict(cut_ratio_P2=0.9)],
        "lifetime": [
            dict(lifetime=rows["lifetime"].values["lifetime"] + 1),
            dict(odd_lifetime=rows["lifetime"].values["odd_bits"]),
            dict(ebits_equal_online=0),
        ],
        "noisy": [
            dict(fec_wrong=0.01),
            dict(**{"distill+fec_factor": 1.9}),
            dict(none_wrong=0.0),
            dict(fec_reliable=False),
        ],
        "vga": [
            dict(cheat_accepted=True),
            dict(honest_accepted=False),
            dict(ratio=1.5),
            dict(epsilon_split=0.01),
            dict(honest_tv=0.1),
        ],
        "gapip": [
            dict(hoeffding_quantum_slope=2.0),
            dict(exact_classical_slope=1.5),
            dict(hoeffding_never_cheaper=True, exact_never_cheaper=True),
            dict(errors=rows["gapip"].values["decisions"] // 2),
        ],
        "tieaudit": [
            dict(classical_slope=0.6),
            dict(quantum_per_log_constant=False),
            dict(**{"crossover_bernstein_a0.25": 0}),
            dict(min_within=0.5),
        ],
        "learner": [
            dict(vqc_identical=False),
            dict(mlp_qubits_per_step=1000),
            dict(vqc_budget_qubits=225),
        ],
    }
    assert set(bad) == set(CLAIM_KEYS)
    for key, cases in bad.items():
        for change in cases:
            verdict, reason = judge(key, _modified(rows[key], **change))
            assert verdict == "does not hold", (key, change)
            assert reason.startswith("Contradicted by the computation: ")


def test_partly_is_decided_by_the_numbers(rows):
    """The "partly" rows become "holds" when the limiting number goes away."""
    # optimal: a ring meeting the cut-set floor at every P would be optimal among all protocols
    v = _modified(rows["optimal"], cut_ratio_P8=1.0, cut_ratio_P64=1.0)
    assert judge("optimal", v) == ("holds", "")
    assert "1.750 at P = 8" in rows["optimal"].reason
    # gapip: a quantum protocol cheaper over the whole grid has no window
    v = _modified(
        rows["gapip"],
        hoeffding_lower=math.nan,
        hoeffding_upper=math.nan,
        exact_lower=math.nan,
        exact_upper=math.nan,
    )
    assert judge("gapip", v) == ("holds", "")
    # vga: composable security is not established whatever the numbers; the beta = 0 floor
    # appears in the reason only when it is at least 1/2
    assert "with β = 0, ε ≥ 0.5" in rows["vga"].reason
    assert "β = 0" not in judge("vga", _modified(rows["vga"], epsilon_floor_beta0=0.1))[1]
    # noisy: reliable schemes at the full factor two (a noiseless link) would make it hold
    v = _modified(
        rows["noisy"],
        fec_factor=2.0,
        **{"distill+fec_factor": 2.0},
        fec_bound=2.0,
        **{"distill+fec_bound": 2.0},
    )
    assert judge("noisy", v) == ("holds", "")
    assert "1.46 (fec)" in rows["noisy"].reason
    # and against the fair classical baseline (the same code over the same channel)
    v = rows["noisy"].values
    assert 0.79 < v["fec_classical"] < 0.80 and 1.84 < v["fec_factor"] / v["fec_classical"] < 1.85
    assert "advantage is 1.85 (fec)" in rows["noisy"].reason
    # the holding rows stay holding on their own numbers
    for key in ("halving", "lifetime", "learner"):
        assert judge(key, rows[key].values) == ("holds", "")


def test_verdict_from_and_claim_validation():
    assert verdict_from([], []) == ("holds", "")
    assert verdict_from([], ["narrow scope", "asymptotic."]) == (
        "partly",
        "Narrow scope; asymptotic.",
    )
    assert verdict_from([], ["narrow"], ["no proof"]) == (
        "not established",
        "No proof; narrow.",
    )
    assert verdict_from(["x wrong"], ["narrow"], ["no proof"]) == (
        "does not hold",
        "Contradicted by the computation: x wrong.",
    )
    assert verdict_from(["x wrong"], ["narrow"]) == (
        "does not hold",
        "Contradicted by the computation: x wrong.",
    )
    fields = dict(key="x", claim="c", paper_figure="f", computed="1", chapter="02_holevo")
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim(verdict="yes", **fields)
    with pytest.raises(ValueError, match="reason must be empty exactly"):
        Claim(verdict="holds", reason="but", **fields)
    with pytest.raises(ValueError, match="reason must be empty exactly"):
        Claim(verdict="partly", **fields)
    c = Claim(verdict="partly", reason="r", **fields)
    assert not c.holds and c.supported and "verdict='partly'" in repr(c)
    assert not Claim(verdict="does not hold", reason="r", **fields).supported
    assert Claim(verdict="not established", reason="r", **fields).supported
    with pytest.raises(ValueError, match="source"):
        Claim(verdict="holds", source="summary", **fields)


def test_a_row_is_one_registered_function():
    def _judge(v):
        return verdict_from(["too big"] if v["n"] > 1 else [], [])

    @claim_row("test_row", _judge)
    def test_row(seed: int = 0, n: int = 1) -> Claim:
        return claims_module._make(
            "test_row",
            {"n": n},
            claim="c",
            paper_figure="f",
            computed=f"n = {n}",
            chapter="02_holevo",
        )

    try:
        assert tuple(CLAIM_ROWS)[-1] == "test_row"
        (c,) = reproduce_claims(keys=["test_row"])
        assert c.verdict == "holds" and c.computed == "n = 1"
        (c,) = reproduce_claims(keys="test_row", options={"test_row": {"n": 2}})
        assert c.verdict == "does not hold"
        with pytest.raises(ValueError, match="already registered"):
            claim_row("test_row", _judge)(test_row)
    finally:
        CLAIM_ROWS.pop("test_row")
    assert tuple(CLAIM_ROWS) == CLAIM_KEYS


def test_bad_arguments():
    with pytest.raises(ValueError):
        reproduce_claims(seed=-1)
    with pytest.raises(TypeError):
        reproduce_claims(seed="0")
    with pytest.raises(ValueError, match="keys"):
        reproduce_claims(keys=["nope"])
    with pytest.raises(ValueError, match="options"):
        reproduce_claims(keys=["halving"], options={"nope": {}})
    with pytest.raises(ValueError, match="key must be one of"):
        judge("nope", {})
    with pytest.raises(ValueError, match="trials"):
        gapip_claim(trials=1)


# ---------------------------------------------------------------------------------------------
# The numbers behind the rows
# ---------------------------------------------------------------------------------------------
def test_halving_exact_and_odd_padding():
    v = halving_claim(0).values
    assert (
        v["bits_per_link"] == 2 * 7 * 8192 * 16 and v["qubits_per_link"] * 2 == v["bits_per_link"]
    )
    assert v["ratio"] == 0.5 and v["links_exactly_half"] == 8 and v["sums_exact"]
    assert (v["odd_bits"], v["odd_qubits"], v["odd_padding"], v["odd_messages"]) == (50, 26, 2, 2)
    assert v["odd_links_padded"] == 3 and v["odd_padding"] <= v["messages_per_link"]
    assert list(odd_messages_per_link(2, 3, 3)) == [1, 1]  # chunks of 2 and 1 entries: 6 and 3 bits
    assert not odd_messages_per_link(8, 64, 5).any()  # 8 entries x 5 bits per message


def test_optimality_message_bound_and_cut_set_floor():
    c = optimality_claim(0, trials=20)
    v = c.values
    assert abs(v["chi"] - 2) < 1e-12 and abs(v["capacity"] - 2) < 1e-12
    assert abs(v["bell_information"] - 2) < 1e-9 and v["chi_max"] <= 2 + 1e-9
    assert v["floor_qubits"] == 2**16 * 16 / 2 == 524_288
    # 2 (P - 1) / P times the floor: tight at P = 2 only
    assert [v[f"cut_ratio_P{P}"] for P in (2, 8, 64)] == [1.0, 1.75, 1.96875]
    assert v["ring_qubits_P8"] == 917_504
    assert c.verdict == "partly" and "meets only at P = 2" in c.reason


def test_lifetime_with_padding():
    c = lifetime_claim(0)
    v = c.values
    assert v["online_qubits"] + v["offline_qubits"] == v["lifetime"] == v["classical_bits"]
    assert v["links_equal"] == 8 and v["odd_links_padded"] == 3
    assert (v["odd_online"], v["odd_lifetime"], v["odd_bits"], v["odd_padding"]) == (26, 52, 50, 2)
    assert "26 + 26 = 52 = 50 bits + 2 (one per odd message)" in c.computed


def test_vga_epsilons_per_attack_floor_and_fidelity():
    c = vga_claim(0)
    v = c.values
    assert v["ghz_delivered"] == 2 * v["ghz_used"] and v["ghz_tested"] == v["ghz_used"] == 3200
    assert v["honest_accepted"] and v["sum_exact"] and not v["cheat_accepted"]
    assert v["detection_split"] == 0.25 and v["detection_one_qubit"] == 7 / 16
    assert v["detection_register"] == detection_probability(KnownPads(), 4, bits=8)
    for key, det in (("split", 0.25), ("one_qubit", 7 / 16), ("register", v["detection_register"])):
        assert v[f"epsilon_{key}"] == vga_epsilon(800, 0.5, 0.1, detection=det)
    assert 3.3e-5 < v["epsilon_split"] < 3.4e-5 and 7.1e-8 < v["epsilon_one_qubit"] < 7.2e-8
    assert 1.5e-13 < v["epsilon_register"] < 1.6e-13
    assert v["epsilon_floor_beta0"] == 0.5 and v["honest_tv"] == 0.0
    assert v["tested_registers"] == 400 and 0.950 < v["fidelity_bound"] < 0.951
    assert "3.4 × 10⁻⁵" in c.computed and "7.1 × 10⁻⁸" in c.computed
    assert "1.5 × 10⁻¹³" in c.computed and "F ≥ 0.950" in c.computed
    assert c.verdict == "not established" and "not established" in c.reason
    assert "2× copy overhead holds by construction" in c.caveat
    for item in claims_module.VGA_NOT_COVERED:
        assert item in c.reason


def test_gapip_same_family_window(rows):
    c = rows["gapip"]
    v = c.values
    for fam in ("hoeffding", "exact"):
        assert 1.0 <= v[f"{fam}_quantum_slope"] <= 1.5
        assert 1.95 <= v[f"{fam}_classical_slope"] <= 2.05
        lo, hi = v[f"{fam}_lower"], v[f"{fam}_upper"]
        assert 1e-4 < lo < 1e-3 and 0.01 < hi < 0.025 and not v[f"{fam}_never_cheaper"]
        assert v[f"{fam}_best_ratio"] < 1
    # exact bounds help the classical side more: its window is narrower at the top
    assert v["exact_upper"] < v["hoeffding_upper"]
    assert v["decisions"] == 2 * len(COMPARISON_TAUS) * 6
    assert v["errors"] <= 2 * v["delta"] * v["decisions"]
    assert "upper end τ ≈ " in c.reason and "asymptotic" in c.reason


def test_gapip_row_is_the_chapters_comparison(rows):
    """The claims row prints the windows and slopes of chapter 7's comparison (one source)."""
    v = rows["gapip"].values
    r = gapip_comparison(COMPARISON_TAUS, 2**16, trials=6, seed=0)  # all four families
    for fam in ("hoeffding", "exact"):
        assert (v[f"{fam}_lower"], v[f"{fam}_upper"]) == r.window("quantum", fam)
        assert v[f"{fam}_quantum_slope"] == r.slope("quantum", fam)
        assert v[f"{fam}_classical_slope"] == r.slope("quantum", fam, classical=True)
        assert v[f"{fam}_best_ratio"] == r.ratio("quantum", fam).min()
    assert (v["tau_max"], v["tau_min"], v["n_taus"]) == (0.4, COMPARISON_TAUS[-1], 19)


def test_tieaudit_crossovers_per_alpha_and_bound():
    c = tieaudit_claim(0)
    v = c.values
    assert abs(v["classical_slope"] - 0.5) < 0.01 and abs(v["quantum_slope_vs_logP"] - 1) < 1e-9
    assert v["alpha"] == 0.25 and v["copies"] == 3075 and v["min_within"] == 1.0
    got = {
        b: [v[f"crossover_{b}_a{a:g}"] for a in (1, 0.25, 0.1)] for b in ("bernstein", "hoeffding")
    }
    assert got == {"bernstein": [16, 18, 20], "hoeffding": [16, 23, 27]}
    assert [v[f"copies_hoeffding_a{a:g}"] for a in (1, 0.25, 0.1)] == [738, 11805, 73778]
    assert [v[f"copies_bernstein_a{a:g}"] for a in (1, 0.25, 0.1)] == [738, 3075, 7649]
    assert v["quantum_cost_max"] == 3075 * 24 and v["ratio_max"] > 5
    for a in (1.0, 0.25, 0.1):  # the same Bernstein-type family as the chapter's crossover
        assert 2 ** v[f"crossover_bernstein_a{a:g}"] == tieaudit_crossover(0.05, a)
    assert c.verdict == "partly" and "α ≤ 1/4" in c.reason


def test_learner_row(rows):
    c = rows["learner"]
    v = c.values
    assert v["mlp_identical"] and v["vqc_identical"]
    assert (v["mlp_params"], v["mlp_bits_per_step"], v["mlp_qubits_per_step"]) == (82, 1984, 992)
    assert (v["vqc_params"], v["vqc_bits_per_step"], v["vqc_qubits_per_step"]) == (18, 448, 224)
    assert v["vqc_accuracy"] > 0.97 and v["vqc_accuracy_noisy"] < v["vqc_accuracy"] - 0.3
    assert v["mlp_accuracy_noisy"] > v["vqc_accuracy_noisy"]
    assert v["vqc_saving"] < 1e-4 and round(v["vqc_crossover_params"]) == 250_000
    assert "1,984 bits → 992 qubits" in c.computed and "448 → 224" in c.computed


def test_doctests():
    for module in (claims_module, figures_module):
        result = doctest.testmod(module, raise_on_error=False, verbose=False)
        assert result.attempted > 0 and result.failed == 0, module.__name__


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------
def test_html_table_colour_codes_the_verdicts(claims):
    html = claims_table_html(claims)
    assert html.startswith("<table") and html.endswith("</table>")
    assert html.count("<tr") == len(claims) + 1 and html.count("<th ") == len(HEADERS)
    assert "$" not in html and "\\" not in html  # nothing for MathJax to typeset
    for verdict in VERDICTS:
        mark, colour, css = VERDICT_STYLE[verdict]
        n = sum(c.verdict == verdict for c in claims)
        assert html.count(f'class="qring-verdict {css}" style="color:{colour}"') == n
        assert html.count(f"{mark} {verdict}</strong>") == n
    assert len({s[1] for s in VERDICT_STYLE.values()}) == 4 and tuple(VERDICT_STYLE) == VERDICTS
    for c in claims:
        assert chapter_label(c.chapter) in html
        if c.reason:
            assert html_module.escape(c.reason) in html
    assert html.count("the book&#x27;s question, not a claim of the paper") == sum(
        c.source == "book" for c in claims
    )
    # escaping: a claim with markup-like text stays text
    odd = Claim("x", "a < b & c", "fig", "1", "does not hold", "notes", reason="r <i>")
    out = claims_table_html([odd])
    assert "a &lt; b &amp; c" in out and "✘ does not hold" in out and "r &lt;i&gt;" in out


def test_renderers_reject_non_claims():
    assert chapter_label("07_gapip") == "Chapter 7" and chapter_label("notes") == "notes"
    assert verdict_label("partly") == "◐ partly"
    with pytest.raises(ValueError, match="verdict must be one of"):
        verdict_label("maybe")
    for bad in ("table", [1, 2], None):
        with pytest.raises(TypeError):
            claims_table_html(bad)


def test_computed_texts_have_fixed_precision(claims):
    """No float printed with more than four decimals or in Python's e-notation."""
    for c in claims:
        text = " ".join((c.computed, c.reason, c.caveat))
        assert not re.search(r"\d\.\d{5,}", text), (c.key, text)
        assert not re.search(r"\de[-+]\d", text), (c.key, text)


# ---------------------------------------------------------------------------------------------
# The numbers stated on the intro and notation pages (Markdown pages have no hidden cells)
# ---------------------------------------------------------------------------------------------
def _page(name: str) -> str:
    return " ".join((BOOK / name).read_text(encoding="utf-8").split())


def test_intro_states_the_verdicts_with_library_numbers():
    from qring_edu.costmodel import allreduce_cut_bound
    from qring_edu.vga_security import vga_epsilon_floor

    text = _page("intro.md")
    assert "(coming)" not in text and "composably $\\varepsilon$-secure. *Not established*" in text
    for verdict in (
        "*Holds*, exactly",
        "*Partly*: this makes the halving optimal among transports of the ring's messages",
        "*Partly*: both advantages are asymptotic",
    ):
        assert verdict in text
    # cut-set floor d b / 2, met only at P = 2, 2 (P - 1) / P times it
    assert "cut-set floor of $d\\,b/2$ qubits" in text and "only for $P = 2$" in text
    assert all(
        allreduce_cut_bound(P, 2**10, 16).superdense_ratio == 2 * (P - 1) / P for P in (2, 4, 8)
    )
    assert "$\\varepsilon \\ge 1/2$" in text and vga_epsilon_floor(800, 0.5, 0.0) == 0.5
    assert (
        "quarter and $\\varepsilon = 0.05$, the quantum protocol is cheaper from $P = 2^{18}$"
        in text
    )
    assert tieaudit_crossover(0.05, 0.25) == 2**18
    # the chapter map links every chapter file that exists, in order
    docs = re.findall(r"\{doc\}`(0\d_[a-z_]+)`", text.split("## Map of the book")[1])
    assert docs == sorted(docs) and all((BOOK / f"{d}.ipynb").is_file() for d in docs)
    assert {d[:2] for d in docs} == {"00", "01", "02", "03", "04", "05", "06", "07", "08"}
    # the noisy-link numbers of the first bullet
    from qring_edu.experiments.noisy_links import scheme_ledger

    noisy = scheme_ledger(0.99, workers=4, d=4096)
    assert (
        "net factor of 1.46 at fidelity 0.99 (1.52 with distillation first), below the "
        "capacity bound of 1.83"
    ) in text
    assert (
        f"{noisy.run('fec').expected:.2f}",
        f"{noisy.run('distill+fec').expected:.2f}",
        f"{noisy.run('none').bound:.2f}",
    ) == ("1.46", "1.52", "1.83")


def test_notation_lifetime_example_matches_the_ledger():
    from qring_edu import ring_allreduce

    text = _page("notation.md")
    assert (
        "with $P = 3$, $d = 7$, $b = 5$ the busiest link carries 50 classical bits, 26 online "
        "qubits and 52 qubits in its lifetime"
    ) in text
    grads = np.arange(21).reshape(3, 7) % 16
    cl = ring_allreduce(grads, bits=5).ledger
    sd = ring_allreduce(grads, bits=5, transport="superdense").ledger
    assert (cl.online_bits(), sd.online_qubits(), sd.online_qubits() + sd.offline_qubits()) == (
        50,
        26,
        52,
    )
    assert sd.ebits() == sd.offline_qubits() == (50 + odd_messages_per_link(3, 7, 5).max()) // 2
    # one symbol for max_abs, chapters renumbered
    assert "| $a$ | clipping bound" in text and "$s = m / a$" in text and "bound $M$" not in text
    assert "(chapters 5 to 8)" in text and "chapters 4 and 5" not in text
