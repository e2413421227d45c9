"""The paper's claims reproduced (qring_edu.experiments.claims) and their table (qring_edu.figures.claims)."""

from __future__ import annotations

import re

import pytest

from qring_edu.experiments.claims import (
    CLAIM_KEYS,
    Claim,
    gapip_claim,
    halving_claim,
    lifetime_claim,
    odd_messages_per_link,
    optimality_claim,
    reproduce_claims,
    tieaudit_claim,
    vga_claim,
)
from qring_edu.figures.claims import (
    HEADERS,
    chapter_label,
    claims_table_html,
    claims_table_markdown,
)


@pytest.fixture(scope="module")
def claims() -> list[Claim]:
    return reproduce_claims(seed=0, gapip_trials=4)


def test_all_six_claims_in_order_and_supported(claims):
    assert [c.key for c in claims] == list(CLAIM_KEYS)
    assert all(c.holds for c in claims), [c for c in claims if not c.holds]
    for c in claims:
        assert c.claim and c.paper_figure and c.computed and c.caveat
        assert re.fullmatch(r"0[1-6]_[a-z_]+", c.chapter)
        with pytest.raises(TypeError):
            c.values["new"] = 1.0  # read-only


def test_halving_exact_and_odd_padding():
    v = halving_claim(0).values
    assert v["bits_per_link"] == 2 * 7 * 8192 * 16 and v["qubits_per_link"] * 2 == v["bits_per_link"]
    assert v["ratio"] == 0.5 and v["links_exactly_half"] == 8
    assert (v["odd_bits"], v["odd_qubits"], v["odd_padding"], v["odd_messages"]) == (50, 26, 2, 2)
    assert v["odd_padding"] <= v["messages_per_link"]
    assert list(odd_messages_per_link(2, 3, 3)) == [1, 1]  # chunks of 2 and 1 entries: 6 and 3 bits
    assert not odd_messages_per_link(8, 64, 5).any()       # 8 entries x 5 bits per message


def test_optimality_two_bits_per_qubit():
    v = optimality_claim(0, trials=20).values
    assert abs(v["chi"] - 2) < 1e-12 and abs(v["capacity"] - 2) < 1e-12
    assert abs(v["bell_information"] - 2) < 1e-9 and v["chi_max"] <= 2 + 1e-9


def test_lifetime_unchanged():
    v = lifetime_claim(0).values
    assert v["online_qubits"] + v["offline_qubits"] == v["lifetime"] == v["classical_bits"]
    assert v["odd_lifetime"] - v["odd_bits"] == v["odd_padding"] == 2


def test_vga_doubles_copies_and_epsilon_small():
    c = vga_claim(0)
    v = c.values
    assert v["ghz_delivered"] == 2 * v["ghz_used"] and v["ghz_tested"] == v["ghz_used"] == 3200
    assert v["honest_accepted"] and not v["cheat_accepted"]
    assert 0 < v["epsilon"] < 1e-4  # the split-worker floor (detection 1/4)


def test_gapip_slopes(claims):
    v = claims[CLAIM_KEYS.index("gapip")].values
    assert 0.85 <= v["quantum_slope"] <= 1.35 and 1.85 <= v["classical_slope"] <= 2.1
    assert 0.001 < v["crossover_tau"] < 0.02  # the quantum advantage lies below the measured range
    assert v["quantum_cost_min_tau"] > v["classical_cost_min_tau"]


def test_tieaudit_sqrt_vs_log():
    v = tieaudit_claim(0).values
    assert abs(v["classical_slope"] - 0.5) < 0.01 and abs(v["quantum_slope_vs_logP"] - 1) < 1e-9
    assert v["crossover_P"] == 2**16 and v["crossover_P_eps_002"] == 2**19
    assert v["ratio_max"] > 10


def test_bad_arguments():
    with pytest.raises(ValueError):
        reproduce_claims(seed=-1)
    with pytest.raises(TypeError):
        reproduce_claims(seed="0")
    with pytest.raises(ValueError):
        gapip_claim(0, trials=1)


def test_html_table_one_row_per_claim(claims):
    html = claims_table_html(claims)
    assert html.startswith("<table") and html.endswith("</table>")
    assert html.count("<tr>") == len(claims) + 1 and html.count("<th ") == len(HEADERS)
    assert html.count("&#10004;") == len(claims)  # every verdict "yes"
    assert "$" not in html and "\\" not in html    # nothing for MathJax to typeset
    for c in claims:
        assert chapter_label(c.chapter) in html
    # escaping: a claim with markup-like text stays text
    odd = Claim("x", "a < b & c", "fig", "1", False, "notes", caveat="")
    out = claims_table_html([odd])
    assert "a &lt; b &amp; c" in out and "&#10008; no" in out and out.count("<tr>") == 2


def test_markdown_table(claims):
    md = claims_table_markdown(claims)
    lines = md.strip().splitlines()
    assert len(lines) == 2 + len(claims)
    assert all(line.startswith("| ") and line.endswith(" |") for line in [lines[0], *lines[2:]])
    pipe = Claim("x", "a | b", "fig", "1", True, "02_holevo")
    assert "a \\| b" in claims_table_markdown([pipe])


def test_renderers_reject_non_claims():
    assert chapter_label("06_alignment") == "Chapter 6" and chapter_label("notes") == "notes"
    for bad in ("table", [1, 2], None):
        with pytest.raises(TypeError):
            claims_table_html(bad)
        with pytest.raises(TypeError):
            claims_table_markdown(bad)
