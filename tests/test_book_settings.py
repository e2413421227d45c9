"""Library behaviour at the settings the chapters use (moved out of the chapters' hidden cells).

A chapter's hidden cells assert only the numbers its prose states. What the prose relies on from
the library — defaults, a widget's first state, the checkers' verdicts on the worked answers, the
library's refusals — is checked here, where a failure names the function and not a page.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import qring_edu as qr
from qring_edu import dense_coding_threshold, isotropic_capacity
from qring_edu.exercises import bottleneck as ex1
from qring_edu.exercises import gapip as ex_gapip
from qring_edu.exercises import holevo as ex2
from qring_edu.exercises import superdense_ring as ex3
from qring_edu.exercises import tieaudit as ex_tieaudit
from qring_edu.exercises import training as ex3t
from qring_edu.exercises import vga as ex4
from qring_edu.holevo import binary_entropy, superdense_ensemble, two_state_chi, two_state_ensemble
from qring_edu.widgets.holevo import (
    dense_coding_widget,
    ensemble_designer_widget,
    ledger_floor_widget,
)


# ---------------------------------------------------------------------------------------------
# Chapter 2
# ---------------------------------------------------------------------------------------------
def test_chapter2_widgets_start_where_the_prose_says():
    designer = ensemble_designer_widget(preset="trine")
    assert designer.error == "" and abs(designer.result.chi - 1) < 1e-9
    assert abs(designer.result.accessible.value - (math.log2(3) - 1)) < 1e-4
    designer.controls["probs"].value = "0.5, 0.6, 0.1"
    assert designer.result is None and "probs must sum to 1" in designer.error
    ledger = ledger_floor_widget(d="1000", bits=16)
    assert ledger.error == "" and np.all(
        ledger.result.online_qubits * 2 == ledger.result.classical_bits
    )
    dense = dense_coding_widget(pair_fidelity=0.9)
    assert dense.error == "" and dense.result.helps
    assert abs(dense.result.chosen_capacity - isotropic_capacity(0.9)) < 1e-9
    assert dense.result.threshold == dense_coding_threshold()


def test_chapter2_ensembles():
    bb84 = qr.bb84_ensemble()
    assert bb84.size == 4 and bb84.dim == 2
    bell = superdense_ensemble()
    assert bell.labels == ("00", "01", "10", "11") and bell.dim == 4
    assert abs(two_state_chi(0.5) - binary_entropy(0.75)) < 1e-12
    assert abs(qr.holevo_chi(*two_state_ensemble(0.5)) - two_state_chi(0.5)) < 1e-12
    trine = qr.trine_ensemble()
    best = qr.optimal_measurement(*trine)
    assert np.allclose(best.povm.sum(axis=0), np.eye(2), atol=1e-8)
    assert abs(qr.mutual_information(*trine, best.povm) - best.value) < 1e-9


@pytest.mark.parametrize(
    "check, right, wrong, kwargs",
    [
        (ex2.check_ea_entropy_bound, 8, 6, dict(n_qubits=3, bob_entropy=5)),
        (ex2.check_ea_entropy_bound, 2, 5, dict(n_qubits=3, bob_entropy=5, which="each")),
        (ex2.check_max_bits, 6, 3, dict(n_qubits=3)),
        (ex2.check_pair_entropy, 0.8476, 1.1524, dict(pair_fidelity=0.85)),
        (ex2.check_dephased_capacity, 1.1187, 0.6432, dict(pair_fidelity=0.7)),
        (ex2.check_cut_set_qubits, 2.72e9, 5.1e9, dict(P=16, d=340_000_000, bits=16)),
        (ex2.check_vga_bits_in, 8.16e10, 5.44e9, dict(P=16, d=340_000_000, bits=16)),
        (
            ex1.check_overlap_tail,
            11.70,
            10.365,
            dict(
                model="BERT-Large",
                P=16,
                bits=16,
                alpha=50e-6,
                bandwidth_gbps=100,
                compute=0.2,
                buckets=10,
            ),
        ),
        (ex1.check_bidirectional_link_bits, 16000, 32000, dict(P=6, d=1200, bits=16)),
        (
            ex1.check_latency_crossover,
            500_000,
            31_250,
            dict(P=16, bits=32, alpha=10e-6, beta=1e-11),
        ),
    ],
)
def test_chapters_1_and_2_worked_answers_of_the_reasoning_exercises(check, right, wrong, kwargs):
    """The numbers the worked solutions of chapters 1 and 2 print pass their checkers."""
    assert check(right, **kwargs).passed and not check(wrong, **kwargs).passed


# ---------------------------------------------------------------------------------------------
# Chapters 1 and 2: the page itself
# ---------------------------------------------------------------------------------------------
BOOK = Path(__file__).resolve().parents[1] / "book"


def _boxed(page: str) -> bool:
    """Whether the chapter's reading box is written by book/_tools/reading_box.py: then
    tests/test_reading_boxes.py checks it, and the hand-typed sentence read below is gone."""
    return "<!-- reading-box" in (BOOK / page).read_text(encoding="utf-8")


def _unrole(text: str) -> str:
    """The text a reader sees for glossary links: {term}`shown <target>` -> shown."""
    return re.sub(r"\{term\}`([^`<]*?)(?:\s*<[^>`]*>)?`", r"\1", text)


def _reading_estimate(nb: dict) -> tuple[int, int]:
    """(words, code cells) a reader meets outside the exercises: visible markdown and code cells
    from the top to "## Exercises", and the summary (the rule the chapters' boxes state)."""
    words = cells = 0
    text = True
    for cell in nb["cells"]:
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue
        source = _unrole("".join(cell["source"]))
        if cell["cell_type"] == "markdown":
            if source.startswith("## Exercises"):
                text = False
            elif source.startswith("## Summary"):
                text = True
            if text:
                words += len(re.findall(r"\S+", source))
        elif text:
            cells += 1
    return words, cells


@pytest.mark.parametrize("name", ["01_bottleneck", "02_holevo"])
def test_chapter_states_its_prerequisites_and_a_reading_time_it_can_defend(name):
    if _boxed(f"{name}.ipynb"):
        pytest.skip("the reading box is written by the tool (tests/test_reading_boxes.py)")
    nb = json.loads((BOOK / f"{name}.ipynb").read_text(encoding="utf-8"))
    head = "".join(nb["cells"][1]["source"])
    assert "**Prerequisites.**" in head and "**Reading time.**" in head
    m = re.search(
        r"About (\d+) minutes for the text \(about ([\d,]+) words at 200 words per\s+"
        r"minute, plus half a minute for each of the (\d+) code cells\)",
        head,
    )
    assert m, "the reading-time sentence changed its form"
    minutes, words, cells = int(m[1]), int(m[2].replace(",", "")), int(m[3])
    real_words, real_cells = _reading_estimate(nb)
    assert real_cells == cells
    assert abs(real_words - words) <= 0.05 * real_words
    assert abs(real_words / 200 + real_cells / 2 - minutes) <= 3


@pytest.mark.parametrize("name", ["01_bottleneck", "02_holevo"])
def test_chapter_has_no_prompt_to_type_bad_input(name):
    nb = json.loads((BOOK / f"{name}.ipynb").read_text(encoding="utf-8"))
    prose = " ".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert not re.search(r"(error message|see the error|reports bad input|library's error)", prose)


def test_chapter_1_and_2_exercise_kinds():
    """At least a third of each chapter's exercises are reasoning exercises."""
    kinds = {
        "01_bottleneck": (
            "ex-bottleneck-overlap",
            "ex-bottleneck-bidirectional",
            "ex-bottleneck-latency",
        ),
        "02_holevo": ("ex-holevo-3", "ex-holevo-5", "ex-holevo-7"),
    }
    for name, reasoning in kinds.items():
        nb = json.loads((BOOK / f"{name}.ipynb").read_text(encoding="utf-8"))
        prose = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        labels = re.findall(r"\{exercise\}[^\n]*\n:label: (\S+)", prose)
        solutions = re.findall(r"\{solution\} (\S+)", prose)
        assert sorted(labels) == sorted(solutions)  # every exercise has a worked solution
        assert set(reasoning) <= set(labels) and 3 * len(reasoning) >= len(labels)


# ---------------------------------------------------------------------------------------------
# Chapter 3
# ---------------------------------------------------------------------------------------------
def test_chapter3_training_defaults():
    """The prose: 800 two-moons points, P = 4, 2-16-2 network, mini-batches of 16, gradients
    clipped to [-1, 1], 16-bit fixed point, 150 steps."""
    from qring_edu.training import MLP

    defaults = {
        k: v.default for k, v in inspect.signature(qr.train_data_parallel).parameters.items()
    }
    assert defaults["n_samples"] == 800 and defaults["batch_size"] == 16
    assert defaults["model"] == "mlp" and MLP().hidden == 16 and MLP().n_params == 82
    assert defaults["clip"] == 1.0 and defaults["bits"] == 16 and defaults["workers"] == 4
    assert defaults["steps"] == 150


def test_chapter3_ddp_demo_defaults():
    from qring_edu.experiments.training import ddp_demo

    defaults = {k: v.default for k, v in inspect.signature(ddp_demo).parameters.items()}
    assert (
        defaults["n_samples"] == 400 and defaults["batch_size"] == 32 and defaults["hidden"] == 16
    )


def test_chapter3_compression_comparison_defaults():
    from qring_edu.experiments.training import compression_comparison

    defaults = {
        k: v.default for k, v in inspect.signature(compression_comparison).parameters.items()
    }
    assert defaults["workers"] == 2 and defaults["steps"] == 150 and defaults["hidden"] == 64


@pytest.mark.parametrize(
    "check, right, wrong, args",
    [
        (ex3.check_alice_gates, ["x", "z"], ["x"], (1, 1)),
        (ex3.check_alice_gates, ["y"], ["z"], (1, 1)),
        (ex3.check_bit_error_rate, 0.02, 0.03, (0.97,)),
        (ex3.check_superdense_qubits, 26, 25, (3, 7, 5)),
        (ex3.check_lifetime_uses, 52, 50, (3, 7, 5)),
        (ex3.check_flip_damage, 2**12 / 8190, 2**12, (8, 16, 0.5, 12)),
    ],
)
def test_chapter3_worked_answers(check, right, wrong, args):
    assert check(right, *args).passed and not check(wrong, *args).passed


@pytest.mark.parametrize(
    "check, right, wrong, kwargs",
    [
        (ex3.check_link_busy_time, 71.9347, 71.9097, dict(bandwidth_gbps=10.0, buckets=5)),
        (ex3.check_idle_head, 20 * (1 / 3 + 2 / 15), 20 / 3, dict(compute_ms=20.0, buckets=5)),
        (ex3.check_flip_reach, 4, 6, dict(P=6, phase="all-gather", step=1)),
        (ex3.check_bidirectional_qubits, 48_000, 96_000, dict(P=4, d=8000, bits=16)),
        (ex3t.check_circuits_per_step, 592, 576, dict(batch_size=16, n_params=18)),
        (
            ex3t.check_crossover_params,
            250_000,
            62_500,
            dict(workers=4, bits=16, alpha=10e-6, beta=1e-11),
        ),
        (
            ex3t.check_bandwidth_ratio,
            8e-5,
            7.2e-5,
            dict(n_params=18, workers=4, bits=16, alpha=10e-6, beta=1e-11),
        ),
        (
            ex3t.check_update_jump,
            2**15 / 8191 / 4,
            2**15 / 8191,
            dict(workers=4, bits=16, clip=1.0, lr=1.0),
        ),
    ],
)
def test_chapter3_step_checkers_accept_the_worked_solutions(check, right, wrong, kwargs):
    assert check(right, **kwargs).passed and not check(wrong, **kwargs).passed


BOOK = Path(__file__).resolve().parents[1] / "book"


def _solution_code(page: str, label: str) -> str:
    """The Python block of the collapsed solution ``label`` on ``page``."""
    nb = json.loads((BOOK / page).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and f"{{solution}} {label}" in src:
            return re.search(r"```python\n(.*?)```", src, flags=re.S).group(1)
    raise AssertionError(f"no solution {label} on {page}")


def test_chapter3_code_solutions_as_printed_pass_their_checkers():
    from qiskit import QuantumCircuit

    scope = {"QuantumCircuit": QuantumCircuit}
    exec(_solution_code("03_superdense_ring.ipynb", "ex-superdense-build"), scope)  # noqa: S102
    answer = (scope["create_bell_pair"], scope["encode_message"], scope["decode_message"])
    assert ex3.check_superdense_coding(answer).passed
    scope = {}
    exec(_solution_code("03_training.ipynb", "ex-training-shift"), scope)  # noqa: S102
    assert ex3t.check_parameter_shift(scope["shift_gradient"]).passed


def _reading_time(page: str) -> tuple[int, int, int]:
    """The rule the pages state: shown prose before "## Exercises" (code blocks, literalincludes,
    display math and directive options left out) at 200 words per minute, plus half a minute per
    shown code cell."""
    nb = json.loads((BOOK / page).read_text(encoding="utf-8"))
    words = cells = 0
    for c in nb["cells"]:
        if "remove-cell" in c.get("metadata", {}).get("tags", []):
            continue
        src = "".join(c["source"])
        if c["cell_type"] == "markdown" and re.search(r"^## Exercises", src, flags=re.M):
            break
        if c["cell_type"] == "code":
            cells += 1
            continue
        src = _unrole(src)
        src = re.sub(r"```\{literalinclude\}.*?```", " ", src, flags=re.S)
        src = re.sub(r"```python.*?```", " ", src, flags=re.S)
        src = re.sub(r"\$\$.*?\$\$", " formula ", src, flags=re.S)
        src = re.sub(r"^:\w+:.*$", " ", src, flags=re.M)
        words += len(re.findall(r"[A-Za-z0-9][A-Za-z0-9'’\-]*", src))
    return round(words / 200 + cells / 2), words, cells


@pytest.mark.parametrize("page", ["03_superdense_ring.ipynb", "03_training.ipynb"])
def test_chapter3_reading_time_is_what_the_page_says(page):
    if _boxed(page):
        pytest.skip("the reading box is written by the tool (tests/test_reading_boxes.py)")
    minutes, words, cells = _reading_time(page)
    nb = json.loads((BOOK / page).read_text(encoding="utf-8"))
    text = " ".join(
        " ".join("".join(c["source"]).split()) for c in nb["cells"] if c["cell_type"] == "markdown"
    )
    stated = re.search(
        r"About (\d+) minutes for the text: about ([\d,]+) words at 200 words per "
        r"minute, plus half a minute for each of its (\d+) code cells",
        text,
    )
    assert stated, "the reading-time sentence is missing or reworded"
    m, w, c = int(stated.group(1)), int(stated.group(2).replace(",", "")), int(stated.group(3))
    assert abs(m - minutes) <= 2 and abs(w - words) <= 150 and c == cells


# ---------------------------------------------------------------------------------------------
# Chapter 5 (Verified GHZ aggregation)
# ---------------------------------------------------------------------------------------------
def test_chapter5_refuses_a_single_worker():
    """The prose: privacy needs two honest workers, and the library refuses a single worker."""
    with pytest.raises(ValueError, match="two honest workers"):
        qr.vga_aggregate(np.array([[3, 1, 4]]), bits=4)


def test_chapter5_widgets_start_where_the_prose_says():
    from qring_edu.vga import Honest, KnownPads
    from qring_edu.vga_security import SplitWorker
    from qring_edu.widgets.vga import vga_attack_widget, vga_epsilon_widget, vga_privacy_widget

    eps = vga_epsilon_widget()
    assert eps.error == "" and eps.result.attack == SplitWorker() and eps.result.detection == 0.25
    assert eps.result.workers == 4 and eps.result.bits == 8 and eps.result.bad_fraction == 0.1
    privacy = vga_privacy_widget()
    assert privacy.error == "" and privacy.result.source == Honest() and privacy.result.between == 0
    attack = vga_attack_widget()
    assert attack.error == "" and attack.result.source == KnownPads()
    assert attack.result.workers == 3 and attack.result.bits == 2 and attack.result.runs == 100


def test_chapter5_no_silent_detection():
    """Every epsilon of the chapter names its detection: the library refuses to guess one."""
    from qring_edu.experiments.vga import epsilon_grid

    with pytest.raises(TypeError, match="detection_probability"):
        qr.vga_epsilon(800, 0.5, 0.1)
    with pytest.raises(TypeError, match="attack"):
        epsilon_grid(0.1)


@pytest.mark.parametrize(
    "check, right, wrong, args",
    [
        (ex4.check_phase_angle, math.pi / 2, 5 * math.pi / 4, (5, 1, 3)),
        (ex4.check_last_announcement, 1, 7, ([3, 6], 2, 3)),
        (ex4.check_transcript_count, 512, 4096, (4, 3)),
        (ex4.check_known_pads_survival, (9 / 16) ** 20, 0.5**20, (20, 4)),
        (ex4.check_ghz_copies_delivered, 32_000, 16_000, (1000, 16, 0.5)),
        (ex4.check_dropout_sums, 256, 1, (4, 8)),
        (ex4.check_rectangle_pairs, 4, 3, ()),
        (ex4.check_single_copy_escape, 0.5, 0.25, (800, 0.5)),
        (ex4.check_split_worker_fail, 0.25, 0.5, (4,)),
        (ex4.check_amplified_leak, 250 * 249 / (1000 * 999), 1 / 16, (1000, 250, 2)),
    ],
)
def test_chapter5_worked_answers(check, right, wrong, args):
    assert check(right, *args).passed and not check(wrong, *args).passed


# ---------------------------------------------------------------------------------------------
# Chapters 1 and 5
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "check, right, wrong, args, kwargs",
    [
        (ex1.check_chunk_sent, 1, 2, (), dict(P=5, k=3, s=2)),
        (ex1.check_chunk_sent, 2, 1, (), dict(P=5, k=3, s=2, phase="all-gather")),
        (ex1.check_link_bits, 32000, 32001, (), dict(P=6, d=1200, bits=16)),
        (ex1.check_link_bits, 128, 120, (), dict(P=4, d=10, bits=8)),
        (ex_gapip.check_overlap, 0.65, 0.3, (0.3,), {}),
        (ex_gapip.check_not_ah_probability, math.sin(5 * math.acos(0.4)) ** 2, 0.5, (-0.2, 2), {}),
        (ex_gapip.check_sketch_bits, 1474, 1473, (0.1, 0.05), {}),
        (ex_tieaudit.check_expected_y, 0.25, 0.5, (0.5, 0.25), {}),
        (ex_tieaudit.check_tieaudit_qubits, 1850, 185, (1024, 0.1, 0.05), {}),
        (ex_tieaudit.check_crossover, 8192, 4096, (0.1,), {}),
        (ex_tieaudit.check_crossover, 13, 12, (0.1,), {}),
        (ex_tieaudit.check_calibrated_estimate, 0.25, 0.35, (0.3, 0.6), {}),
    ],
)
def test_chapters_1_and_5_worked_answers(check, right, wrong, args, kwargs):
    assert check(right, *args, **kwargs).passed and not check(wrong, *args, **kwargs).passed


# ---------------------------------------------------------------------------------------------
# Chapters 7 and 8 (GapIP, TieAudit): the new exercises' worked answers, the worked
# solutions of the two code-graded exercises, and the reading time stated at the top
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "check, right, wrong, args",
    [
        (ex_gapip.check_vector_bits, 2304, 5909, (2**8, 0.05)),
        (ex_gapip.check_phase_estimation_qubits, 77, 50, (1000, 4)),
        (ex_tieaudit.check_y_variance, 0.0975, 0.1, (0.1, 0.25)),
        (ex_tieaudit.check_test_overlap, 0.25, 0.5, ([1, 1, -1, 1, 1, -1, 1, 1],)),
        (
            ex_tieaudit.check_ratio_bias,
            0.1098,
            0.6098,
            ([1, -1, 1, 1, 1, 1, 1, 1], [[0, 1], [2, 5]], 0.1),
        ),
    ],
)
def test_chapters_7_8_worked_answers(check, right, wrong, args):
    assert check(right, *args).passed and not check(wrong, *args).passed


def test_chapters_7_8_worked_solutions_of_the_code_exercises_pass():
    """The solutions printed in the chapter's dropdowns (copied verbatim)."""

    def my_not_ah_probability(g, h, k):
        a_g = np.append(g, 1.0) / np.sqrt(2)  # entries, then the offset |P>
        a_h = np.append(h, 1.0) / np.sqrt(2)
        state = a_g.copy()
        for _ in range(k):
            state = 2 * a_h * (a_h @ state) - state  # client: R_h
            state = 2 * a_g * (a_g @ state) - state  # server: R_g
        return 1.0 - (a_h @ state) ** 2

    def my_outcomes(signs, matching):
        psi = np.asarray(signs, dtype=float) / np.sqrt(len(signs))  # the server's state
        a, b = psi[matching[:, 0]], psi[matching[:, 1]]
        return (a + b) ** 2 / 2, (a - b) ** 2 / 2  # |<(i ± j)/sqrt2|psi>|^2

    assert ex_gapip.check_pingpong_probability(my_not_ah_probability).passed
    assert ex_tieaudit.check_tieaudit_measurement(my_outcomes).passed
    text = "\n".join(c.source for c in _chapters_7_8() if c.cell_type == "markdown")
    for line in (
        "state = 2 * a_h * (a_h @ state) - state  # client: R_h",
        "return (a + b) ** 2 / 2, (a - b) ** 2 / 2",
    ):
        assert line in text


def _chapters_7_8():
    """The cells of the GapIP and TieAudit chapters, in order."""
    from pathlib import Path

    import nbformat

    book = Path(__file__).resolve().parent.parent / "book"
    return [
        c
        for name in ("07_gapip", "08_tieaudit")
        for c in nbformat.read(book / f"{name}.ipynb", 4).cells
    ]
