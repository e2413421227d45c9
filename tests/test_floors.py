"""What the four floors promise beyond the import graph (ARCHITECTURE.md).

* experiments are pure: importing them loads neither matplotlib nor ipywidgets;
* every presentation helper exists once and behaves the same in every chapter: the text-box
  parsers (``widgets/_base``), the answer coercion of the checkers (``exercises/_base``), the
  circuit drawer (``figures/_base``);
* one function computes per-link message sizes (``ring.message_bits``) and the dense-coding
  threshold is computed once (``holevo.dense_coding_threshold``);
* results offer a table (``table()`` / ``_repr_html_``);
* the old import paths still work for one release, with a DeprecationWarning.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import costmodel, dense_coding_threshold, isotropic_capacity, ring_allreduce
from qring_edu.exercises import (
    bottleneck as ex1,
)
from qring_edu.exercises import (
    gapip as ex_gapip,
)
from qring_edu.exercises import (
    holevo as ex2,
)
from qring_edu.exercises import (
    superdense_ring as ex3,
)
from qring_edu.exercises import (
    tieaudit as ex_tieaudit,
)
from qring_edu.exercises import (
    vga as ex4,
)
from qring_edu.exercises._base import as_integer, as_number, close, compare_integer, compare_number
from qring_edu.experiments import bottleneck, claims, holevo, superdense_ring, tieaudit_noise, vga
from qring_edu.experiments._base import Table, compare_ledgers
from qring_edu.figures._base import plot_circuits
from qring_edu.holevo import binary_entropy
from qring_edu.ring import message_bits
from qring_edu.vga_security import SplitWorker
from qring_edu.widgets._base import parse_integers, parse_number, parse_numbers
from qring_edu.widgets.bottleneck import ring_schedule_widget
from qring_edu.widgets.holevo import ledger_floor_widget
from qring_edu.widgets.vga import vga_privacy_widget

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------
# Experiments are pure
# ---------------------------------------------------------------------------------------------
def test_experiments_import_neither_matplotlib_nor_ipywidgets():
    code = (
        "import json, sys\n"
        "import qring_edu\n"
        "from qring_edu.experiments import bottleneck, claims, gapip, holevo, superdense_ring, "
        "tieaudit, vga\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('matplotlib', 'ipywidgets', 'IPython'))))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


# ---------------------------------------------------------------------------------------------
# Checkers: one rule for numeric answers, in every chapter
# ---------------------------------------------------------------------------------------------
#: (checker, exercise arguments, an exact reference answer) for every numeric checker.
NUMERIC_CHECKERS = [
    (ex1.check_chunk_sent, dict(P=5, k=3, s=2), 1),
    (ex1.check_link_bits, dict(P=6, d=1200, bits=16), 32000),
    (
        ex1.check_ring_vs_ps_speedup,
        {},
        costmodel.parameter_server_time(16, 25_557_032, 32, 1e-5, 1e-11)
        / costmodel.ring_time(16, 25_557_032, 32, 1e-5, 1e-11),
    ),
    (ex1.check_model_comm_time, {}, costmodel.ring_time(32, 1_500_000_000, 16, 1e-5, 1e-11)),
    (ex2.check_chi_bb84, {}, 1.0),
    (ex2.check_two_state_chi, dict(overlap=0.6), binary_entropy(0.8)),
    (ex2.check_max_bits, dict(n_qubits=3), 6),
    (ex2.check_dense_capacity, dict(pair_fidelity=0.95), isotropic_capacity(0.95)),
    (ex3.check_symbol_error_rate, dict(pair_fidelity=0.9), 1 - 0.9),
    (ex3.check_bit_error_rate, dict(pair_fidelity=0.97), 0.02),
    (ex3.check_superdense_qubits, dict(P=3, d=7, bits=5), 26),
    (ex3.check_lifetime_uses, dict(P=3, d=7, bits=5), 52),
    (ex3.check_flip_damage, dict(P=8, bits=16, max_abs=0.5, t=12), 2**12 / 8190),
    (ex4.check_phase_angle, dict(x=5, qubit=1, bits=3), math.pi / 2),
    (ex4.check_last_announcement, dict(others=[3, 6], total=2, bits=3), 1),
    (ex4.check_transcript_count, dict(workers=4, bits=3), 512),
    (ex4.check_known_pads_survival, dict(tests=20, workers=4), (9 / 16) ** 20),
    (ex4.check_ghz_copies_delivered, dict(entries=1000, bits=16, test_fraction=0.5), 32000),
    (ex_gapip.check_overlap, dict(c=0.3), 0.65),
    (ex_gapip.check_not_ah_probability, dict(c=-0.2, k=2), math.sin(5 * math.acos(0.4)) ** 2),
    (ex_gapip.check_sketch_bits, dict(tau=0.1, delta=0.05), 1474),
    (ex_tieaudit.check_expected_y, dict(alpha=0.5, f=0.25), 0.25),
    (ex_tieaudit.check_tieaudit_qubits, dict(P=1024, eps=0.1, delta=0.05), 1850),
    (ex_tieaudit.check_crossover, dict(eps=0.1), 8192),
    (ex_tieaudit.check_calibrated_estimate, dict(mean_data=0.3, mean_test=0.6), 0.25),
]
IDS = [c.__name__ for c, _, _ in NUMERIC_CHECKERS]


@pytest.mark.parametrize("check, kwargs, ref", NUMERIC_CHECKERS, ids=IDS)
def test_every_numeric_checker_takes_numbers_and_only_numbers(check, kwargs, ref):
    assert check(ref, **kwargs).passed
    assert check(np.float64(ref), **kwargs).passed  # a NumPy scalar is a number
    assert check(np.array(ref), **kwargs).passed  # and so is a 0-d array
    quoted = check(repr(ref), **kwargs)  # the right digits, as a string
    assert not quoted.passed and "without quotes" in quoted.message
    for flag in (True, False):  # True is not the answer 1
        fb = check(flag, **kwargs)
        assert not fb.passed and "got bool" in fb.message
    fb = check(None, **kwargs)
    assert not fb.passed and "Not attempted" in fb.message


def test_the_coercion_helpers_agree_with_their_docstrings():
    assert compare_number(0.5, 0.5, tol=0, what="x").passed
    assert not compare_number("0.5", 0.5, tol=1, what="x").passed
    assert not compare_number(True, 1.0, tol=1, what="x").passed
    assert as_number("0.5", "x")[0] is None and as_number(True, "x")[0] is None
    assert as_number(np.array(2.5), "x") == (2.5, None)
    assert as_integer(3.0, "n") == (3, None) and as_integer(2**60, "n") == (2**60, None)
    assert as_integer(2.5, "n")[0] is None
    assert close(1.0 + 1e-9, 1.0, tol=1e-6) and not close("1", 1.0, tol=1) and not close(None, 0.0)
    assert close(101, 100, rel=0.01) and not close(102, 100, rel=0.01)
    assert compare_integer(7, 7, what="n").passed
    fb = compare_integer(8, 7, what="n", hint="Count again.")
    assert not fb.passed and fb.message.endswith("Count again.")


# ---------------------------------------------------------------------------------------------
# Text boxes: one parser, the same in every chapter
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, value",
    [("10,000", 10000), ("10_000", 10000), (" 12 ", 12), ("1e3", 1000), (7, 7), (7.0, 7)],
)
def test_parse_number_reads_integers(text, value):
    assert parse_number(text, "d", lo=1, integer=True) == value


@pytest.mark.parametrize("text", ["1,5", "ten", "", "0", "-3", "2.5", "nan", "inf", "1,0000"])
def test_parse_number_refuses_with_the_allowed_range(text):
    with pytest.raises(ValueError, match=r"d must be an integer >= 1, got"):
        parse_number(text, "d", lo=1, integer=True)


def test_parse_number_types_and_open_bounds():
    assert parse_number("2.5e1", "bw", lo=0, lo_open=True) == 25.0
    with pytest.raises(ValueError, match=r"bw must be a number > 0"):
        parse_number("0", "bw", lo=0, lo_open=True)
    with pytest.raises(ValueError, match=r"x must be a number in \[0, 1\]"):
        parse_number("1.5", "x", lo=0, hi=1)
    for bad in (True, None, [1]):
        with pytest.raises(TypeError, match="bw must be a number"):
            parse_number(bad, "bw")


def test_list_parsers():
    assert parse_numbers("1/3, 1/3; 1/3", "probs") == pytest.approx([1 / 3] * 3)
    assert parse_integers("5; 1 6", "inputs") == [5, 1, 6]
    with pytest.raises(ValueError, match="inputs"):
        parse_integers("1, x", "inputs")
    with pytest.raises(TypeError, match="inputs"):
        parse_integers([1, 2.5], "inputs")
    with pytest.raises(TypeError, match="probs"):
        parse_numbers([0.5, True], "probs")


def test_chapters_one_and_two_read_the_same_text_the_same_way():
    ring = ring_schedule_widget(workers=4, step=1, d="10,000")
    floor = ledger_floor_widget(d="10,000", bits=16)
    assert ring.error == "" and ring.result.d == 10_000
    assert floor.error == "" and floor.result.d == 10_000
    for w in (ring, floor):
        w.controls["d"].value = "1,5"
        assert w.result is None and "d must be an integer >= 1" in w.error
    privacy = vga_privacy_widget(inputs_a="1; 2 3", inputs_b="3, 3, 0")
    assert privacy.error == "" and privacy.result.inputs_a.tolist() == [1, 2, 3]


# ---------------------------------------------------------------------------------------------
# One function for message sizes, one threshold
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "P, d, bits", [(2, 1, 3), (3, 7, 5), (4, 1001, 5), (6, 1200, 16), (7, 5, 9)]
)
def test_everything_that_counts_messages_agrees_with_the_ledger(P, d, bits):
    zeros = np.zeros((P, d), dtype=np.int64)
    cl = ring_allreduce(zeros, bits=bits).ledger
    sd = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
    assert costmodel.link_units(P, d, bits, transport="superdense") == sd.online_qubits()
    assert costmodel.link_units(P, d, bits) == cl.online_bits()
    assert costmodel.ring_time(P, d, bits, 0.0, 1.0) == 2 * (P - 1) * message_bits(P, d, bits).max()
    odd = claims.odd_messages_per_link(P, d, bits)
    assert np.array_equal(2 * sd.per_link("online_qubits") - cl.per_link("online_bits"), odd)
    sweep = holevo.ledger_floor_sweep(d, bits, workers=[P])
    assert sweep.message_floor[0] == sweep.online_qubits[0] == sd.online_qubits()
    assert ex3.check_superdense_qubits(sd.online_qubits(), P, d, bits).passed
    assert ex3.check_lifetime_uses(sd.lifetime_uses(), P, d, bits).passed
    assert ex1.check_link_bits(cl.online_bits(), P, d, bits).passed
    state = bottleneck.ring_state(P, 1, d, bits)
    assert np.array_equal(state.message_bits(), message_bits(P, d, bits)[:, 0])


def test_the_dense_coding_threshold_is_computed_once():
    F = dense_coding_threshold()
    assert holevo.dense_coding_sweep(0.9).threshold == F


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------
def test_table_text_and_html():
    t = Table(("name", "value"), (("a", 1.23456), ("b", None)), ("", ".2f"), title="T")
    assert t.text().splitlines() == ["T", "name  value", "a      1.23", "b         –"]
    assert repr(t) == t.text() and len(t) == 2 and t.column("value") == (1.23456, None)
    html = t._repr_html_()
    assert html.startswith('<table class="qring-table"><caption>T</caption>')
    assert '<td style="text-align:right">1.23</td>' in html
    with pytest.raises(ValueError, match="rows\\[0\\] has 1 values for 2 columns"):
        Table(("a", "b"), ((1,),))
    with pytest.raises(ValueError, match="formats must have one entry per column"):
        Table(("a",), ((1,),), ("d", "d"))
    with pytest.raises(ValueError, match="name must be one of"):
        t.column("nope")
    assert Table(("<b>",), (("x&y",),))._repr_html_().count("&lt;b&gt;") == 1


def test_result_tables_hold_the_results_numbers():
    sweep = bottleneck.cost_sweep(25_557_032, 32, 1e-5, 1e-11, workers=(4, 16, 64, 128))
    t = sweep.table()
    assert t.column("P") == (4, 16, 64, 128)
    assert t.column("ring (ms)")[1] == pytest.approx(
        costmodel.ring_time(16, 25_557_032, 32, 1e-5, 1e-11) * 1e3
    )
    assert t.column("ring latency (ms)")[3] == pytest.approx(2 * 127 * 1e-5 * 1e3)
    rows = bottleneck.model_comm_table(workers=32, bits=(16,), models=["GPT-2 XL"])
    assert rows.table().column("ring (s)") == (rows.row("GPT-2 XL", 16).ring_s,)
    st = superdense_ring.channel_statistics(0.9, 4000, seed=1)
    ct = st.table()
    assert ct.column("path") == ("exact", "fast path") and ct.column("symbols") == (None, 4000)
    se = math.sqrt(0.1 * 0.9 / 4000)
    assert ct.column("standard errors from exact")[1] == pytest.approx(
        (st.fast_error_rate - st.exact_error_rate) / se
    )
    grid = vga.epsilon_grid(0.1, SplitWorker(), max_used=100)
    assert grid.table().column("ε at d = 100 used copies") == tuple(grid.epsilon[:, -1])
    noise = tieaudit_noise.noise_sweep((0.0, 0.3), log2_P=6, eps=0.2)
    assert noise.table().column("copies") == tuple(int(c) for c in noise.copies)
    assert "<table" in noise._repr_html_() and "<table" in st._repr_html_()


def test_ledger_comparison_lines_up_the_two_ledgers():
    zeros = np.zeros((4, 1001), dtype=np.int64)
    cl = ring_allreduce(zeros, bits=5).ledger
    sd = ring_allreduce(zeros, bits=5, transport="superdense").ledger
    cmp = compare_ledgers(cl, sd)
    assert np.array_equal(cmp.classical_bits, cl.per_link("online_bits"))
    assert np.array_equal(
        cmp.lifetime, sd.per_link("online_qubits") + sd.per_link("offline_qubits")
    )
    assert np.all(cmp.excess == claims.odd_messages_per_link(4, 1001, 5) / 2)
    t = cmp.table(["link", "classical_bits", "excess"])
    assert t.columns == ("link", "classical bits", "excess") and t.column("link")[3] == "3->0"
    with pytest.raises(ValueError, match="columns must be chosen from"):
        cmp.table(["bits"])
    with pytest.raises(ValueError, match="same number of workers"):
        compare_ledgers(cl, ring_allreduce(np.zeros((3, 5), dtype=np.int64)).ledger)
    with pytest.raises(TypeError, match="Ledger"):
        compare_ledgers(cl, "ledger")


# ---------------------------------------------------------------------------------------------
# The circuit drawer
# ---------------------------------------------------------------------------------------------
def test_plot_circuits_draws_one_panel_per_circuit():
    from qring_edu import superdense_circuit

    fig = plot_circuits([superdense_circuit(0, 1), superdense_circuit(1, 1)], ["a", ""], fold=-1)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert fig.axes[0].get_title() == "a" and fig.axes[1].get_title() == ""
    with pytest.raises(ValueError, match="titles must have one entry per circuit"):
        plot_circuits([superdense_circuit(0, 0)], ["a", "b"])
    with pytest.raises(ValueError, match="circuits must contain at least one circuit"):
        plot_circuits([])
