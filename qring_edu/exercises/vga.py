"""Exercise checkers of chapter 5, *Verified GHZ aggregation* (presentation floor). The rules every
checker keeps are in :mod:`~qring_edu.exercises._base`; :func:`check_ghz_test` and
:func:`check_zero_sum_pads` grade the reader's code.
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from .._validate import check_bits, check_float, check_int
from ..vga import known_pads_detection, vga_copy_counts
from ..vga_security import (
    SplitWorker,
    amplified_leak_probability,
    detection_probability,
    even_y_settings,
    ghz_test_circuit,
    ghz_test_pass_probability,
    vga_epsilon_floor,
)
from ._base import (
    Feedback,
    as_number,
    call_reader,
    checker,
    compare_integer,
    compare_number,
    failed,
    passed,
)

__all__ = [
    "check_phase_angle",
    "check_last_announcement",
    "check_transcript_count",
    "check_known_pads_survival",
    "check_ghz_copies_delivered",
    "check_ghz_test",
    "check_zero_sum_pads",
    "check_dropout_sums",
    "check_rectangle_pairs",
    "check_single_copy_escape",
    "check_split_worker_fail",
    "check_amplified_leak",
]


@checker
def check_phase_angle(answer, x: int, qubit: int, bits: int) -> Feedback:
    """Phase (radians, in [0, 2 pi)) that ``Z^x`` puts on ``|1>`` of qubit ``qubit`` of a b-bit
    register: ``2 pi (x 2**qubit mod 2**b) / 2**b``. Tolerance 1e-6, modulo 2 pi.

    Examples
    --------
    >>> import math
    >>> check_phase_angle(1.5 * math.pi, 3, 1, 3).passed        # 2 pi (3 x 2 mod 8) / 8
    True
    >>> check_phase_angle(-0.5 * math.pi, 3, 1, 3).passed       # the same angle modulo 2 pi
    True
    """
    bits = check_bits(bits)
    qubit = check_int(qubit, "qubit", 0, bits - 1)
    x = check_int(x, "x", 0, (1 << bits) - 1)
    what = f"phase on qubit {qubit} for x = {x}, b = {bits}"
    expected = 2 * math.pi * ((x << qubit) % (1 << bits)) / (1 << bits)
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    diff = (value - expected + math.pi) % (2 * math.pi) - math.pi
    if abs(diff) <= 1e-6:
        return passed(f"{what}: correct ({expected:.6f} rad).")
    return failed(
        f"{what}: {value:.6f} rad is not right. Qubit i has weight 2**i, so "
        "Z^x multiplies |1> by exp(2 pi i x 2**i / 2**b)."
    )


@checker
def check_last_announcement(answer, others, total: int, bits: int) -> Feedback:
    """Given the announcements ``others`` of workers 0..P-2 and the sum ``total``, what must the
    last worker have announced? ``(total - sum(others)) mod 2**b``, exactly.

    Examples
    --------
    >>> check_last_announcement(1, [3, 2], 2, 2).passed         # (2 - 3 - 2) mod 4
    True
    """
    bits = check_bits(bits)
    vals = [check_int(v, "others", 0, (1 << bits) - 1) for v in others]
    total = check_int(total, "total", -(1 << bits), (1 << bits) - 1)
    expected = (total - sum(vals)) % (1 << bits)
    return compare_integer(
        answer,
        expected,
        what="last announcement",
        hint="The announcements add up to the sum modulo 2**b; give a word "
        f"in 0..{(1 << bits) - 1}.",
    )


@checker
def check_transcript_count(answer, workers: int, bits: int) -> Feedback:
    """How many transcripts ``(m_0, ..., m_{P-1})`` are consistent with a given sum (each has the
    same probability)? ``2**(b (P - 1))``, exactly.

    Examples
    --------
    >>> check_transcript_count(16, 3, 2).passed                 # 2**(b (P - 1))
    True
    """
    workers = check_int(workers, "workers", 2, 64)
    bits = check_bits(bits)
    return compare_integer(
        answer,
        2 ** (bits * (workers - 1)),
        what="number of transcripts",
        hint="P - 1 announcements are free; the last one is fixed by the sum.",
    )


@checker
def check_known_pads_survival(answer, tests: int, workers: int) -> Feedback:
    """Probability that a known-pads source passes ``tests`` qubit GHZ tests among ``workers``
    workers: ``(1 - delta_P)**tests`` with ``delta_P = (1 - 2**(1-P))/2``. Relative tolerance
    1e-3 (absolute 1e-12 for tiny values).

    Examples
    --------
    >>> check_known_pads_survival((5 / 8) ** 10, 10, 3).passed   # (1 - delta_3)**10, delta_3 = 3/8
    True
    """
    tests = check_int(tests, "tests", 0, 10_000)
    delta = known_pads_detection(workers)
    expected = (1.0 - delta) ** tests
    return compare_number(
        answer,
        expected,
        tol=max(1e-3 * expected, 1e-12),
        what=f"survival probability after {tests} tests",
        hint="Each test is passed with probability (1 + 2**(1-P))/2, independently.",
    )


@checker
def check_ghz_copies_delivered(answer, entries: int, bits: int, test_fraction: float) -> Feedback:
    """Qubit GHZ copies the source must deliver for ``entries`` entries of ``bits`` bits when a
    fraction ``test_fraction`` of the register-copies is tested: ``ceil(d / (1 - f)) * b``.

    Examples
    --------
    >>> check_ghz_copies_delivered(1600, 100, 8, 0.5).passed   # ceil(100 / (1 - 0.5)) x 8
    True
    """
    bits = check_bits(bits)
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    n_copies, _ = vga_copy_counts(entries, f)
    return compare_integer(
        answer,
        n_copies * bits,
        what="qubit GHZ copies delivered",
        hint="Each entry uses one register of b qubit GHZ states, and only a "
        "fraction 1 - f of the delivered registers is used.",
    )


# -- Build it yourself: the GHZ test ---------------------------------------------------------------
_COPIES = ("GHZ", "phase-flipped GHZ", "product of equator states (a known-pads copy)")


def _copy_circuit(y, kind: int, phases):
    """The delivered copy alone: the library's :func:`ghz_test_circuit` before its barrier."""
    ref = ghz_test_circuit(y, phases=phases if kind == 2 else None, flip=kind == 1)
    cut = next(i for i, inst in enumerate(ref.data) if inst.operation.name == "barrier")
    copy = ref.copy_empty_like()
    for inst in ref.data[:cut]:
        copy.append(inst)
    return copy, ref


def _outcome_law(circuit, workers: int) -> tuple[np.ndarray | None, str]:
    """Exact law of the outcome bits (index ``sum_j bit_j 2**j``) of a circuit measuring qubit j
    into clbit j at the end, or ``(None, what is wrong)``."""
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import Statevector

    if not isinstance(circuit, QuantumCircuit):
        return None, (
            f"ghz_test must return a qiskit QuantumCircuit, got "
            f"{type(circuit).__name__} (did you forget to return the circuit?)"
        )
    if circuit.num_qubits != workers:
        return None, (
            f"the circuit has {circuit.num_qubits} qubits; it must keep the copy's "
            f"{workers} (one per worker)"
        )
    measured = {}
    for inst in circuit.data:
        if inst.operation.name == "measure":
            q = circuit.find_bit(inst.qubits[0]).index
            c = circuit.find_bit(inst.clbits[0]).index
            if q in measured:
                return None, f"qubit {q} is measured twice: measure every qubit once, at the end"
            measured[q] = c
    if sorted(measured) != list(range(workers)):
        missing = sorted(set(range(workers)) - set(measured))
        return None, (
            f"qubit(s) {missing} are not measured: measure every qubit j into classical bit j"
        )
    if any(q != c for q, c in measured.items()):
        return None, "measure qubit j into classical bit j (qc.measure(range(P), range(P)))"
    stripped = circuit.remove_final_measurements(inplace=False)
    if any(inst.operation.name == "measure" for inst in stripped.data):
        return None, "measure only at the end: no gate may act on a qubit after its measurement"
    try:
        return Statevector(stripped).probabilities(), ""
    except Exception as exc:  # e.g. a reset or another non-unitary instruction
        return None, f"the circuit cannot be simulated as a unitary before the measurements ({exc})"


#: Wrong measurement-basis changes, for the hints: gates of an X worker, gates of a Y worker
#: (applied in order before measuring), and what to say.
_CIRCUIT_SLIPS = (
    (("h",), ("h",), "for Y apply S† (qc.sdg) and then H before measuring; H alone measures X"),
    (
        ("h",),
        ("s", "h"),
        "S then H measures −Y, so every Y worker's bit comes out flipped (invisible on a "
        "GHZ copy, visible on a product copy): use qc.sdg(j), then qc.h(j)",
    ),
    (("h",), ("h", "sdg"), "the order matters: first S† (qc.sdg), then H, then measure"),
    (
        (),
        ("sdg",),
        "every worker needs an H before measuring (after S† for Y); without it you measure Z",
    ),
    (("sdg", "h"), ("h",), "X workers get H only; Y workers get S† then H (you swapped them)"),
)


def _rotated(copy, y, x_gates, y_gates):
    qc = copy.copy()
    for j, is_y in enumerate(y):
        for gate in y_gates if is_y else x_gates:
            getattr(qc, gate)(j)
    qc.measure(range(len(y)), range(len(y)))
    return qc


#: Settings on which the reader's pass rule is probed to name its mistake (m = 0, 1, 2).
_RULE_PROBES = ("XX", "YY", "XXX", "YYX", "XXXX", "YYXX", "YYYY")
_RULE_HINTS = (  # (wrong rule(outcome, number of Y's), hint)
    (
        lambda o, n_y: sum(o) % 2 == 0,
        "the parity must equal m mod 2, where 2m is the number of Y's (<X..Y..> = (-1)^m on GHZ), "
        "not always 0",
    ),
    (
        lambda o, n_y: sum(o) % 2 == n_y % 2,
        "m is half the number of Y's: pass iff parity = (#Y / 2) mod 2",
    ),
    (
        lambda o, n_y: sum(o) % 2 != (n_y // 2) % 2,
        "inverted: bit 0 means eigenvalue +1, so the product of the eigenvalues is (-1)^parity; "
        "pass iff (-1)^parity = (-1)^m",
    ),
)


def _rule_hint(passes) -> str:
    """Which common wrong pass rule the reader's ``passes`` follows on :data:`_RULE_PROBES`."""
    verdicts = {}
    for text in _RULE_PROBES:
        for o in itertools.product((0, 1), repeat=len(text)):
            value, fb = call_reader(passes, o, text, name="passes")
            verdicts[o, text] = None if fb is not None else bool(value)
    for rule, hint in _RULE_HINTS:
        if all(v == rule(o, text.count("Y")) for (o, text), v in verdicts.items()):
            return hint
    return "pass iff the XOR of the outcome bits equals m mod 2, where 2m is the number of Y's"


@checker
def check_ghz_test(ghz_test, passes, *, cases: int = 16, seed: int = 0) -> Feedback:
    """Grade the reader's GHZ test: ``ghz_test(copy, settings)`` and ``passes(outcome, settings)``.

    ``copy``: a ``QuantumCircuit`` (P qubits, P clbits) preparing one delivered qubit GHZ copy;
    ``settings``: a string of ``"X"``/``"Y"`` with an even number of ``"Y"``. ``ghz_test`` returns
    the copy followed by each worker's measurement in its basis, qubit j into clbit j (bit 0 =
    eigenvalue +1); ``passes`` gets a tuple of P bits and returns True iff the test passes. On
    ``cases`` seeded instances (P in 2..5; GHZ, phase-flipped GHZ or product copies) it compares the
    exact outcome law with :func:`qring_edu.vga_security.ghz_test_circuit`'s (1e-9), the rule with
    "XOR of the bits = m mod 2" (2m Y's) and the pass probability with
    :func:`qring_edu.vga_security.ghz_test_pass_probability`; the first failure gets a hint.

    Examples
    --------
    >>> def ghz_test(copy, settings):
    ...     qc = copy.copy()
    ...     for j, s in enumerate(settings):
    ...         if s == "Y":
    ...             qc.sdg(j)
    ...         qc.h(j)
    ...     qc.measure(range(len(settings)), range(len(settings)))
    ...     return qc
    >>> def passes(outcome, settings):
    ...     return sum(outcome) % 2 == (settings.count("Y") // 2) % 2
    >>> check_ghz_test(ghz_test, passes, cases=4).passed
    True
    """
    cases = check_int(cases, "cases", 1, 200)
    for name, fn in (("ghz_test", ghz_test), ("passes", passes)):
        if fn is None or not callable(fn):
            return call_reader(fn, name=name)[1]
    rng = np.random.default_rng(seed)
    example = None
    for case in range(cases):
        workers = 2 + case % 4 if case < 4 else int(rng.integers(2, 6))
        y = even_y_settings(1, workers, rng)[0]
        if case < 3 and not y.any():  # the first cases always have Y's
            y[:2] = True
        kind = case % 3
        phases = rng.uniform(0, 2 * np.pi, workers)
        copy, ref = _copy_circuit(y, kind, phases)
        text = "".join("Y" if v else "X" for v in y)
        where = f"settings {text!r} (P = {workers}) on a {_COPIES[kind]}"
        circuit, fb = call_reader(ghz_test, copy.copy(), text, name="ghz_test", case=where)
        if fb is not None:
            return fb
        law, problem = _outcome_law(circuit, workers)
        if law is None:
            return failed(f"Case {case + 1}, {where}: {problem}.")
        ref_law, _ = _outcome_law(ref, workers)
        if not np.allclose(law, ref_law, atol=1e-9):
            hint = "X: H, then measure; Y: S† (qc.sdg), then H, then measure"
            for x_gates, y_gates, text_hint in _CIRCUIT_SLIPS:
                wrong, _ = _outcome_law(_rotated(copy, y, x_gates, y_gates), workers)
                if wrong is not None and np.allclose(law, wrong, atol=1e-9):
                    hint = text_hint
                    break
            worst = int(np.argmax(np.abs(law - ref_law)))
            bits = tuple((worst >> j) & 1 for j in range(workers))
            return failed(
                f"Case {case + 1}, {where}: your circuit gives outcome {bits} with "
                f"probability {law[worst]:.4f}, the library's {ref_law[worst]:.4f}. "
                f"Hint: {hint}."
            )
        outcomes = list(itertools.product((0, 1), repeat=workers))
        m = int(y.sum()) // 2
        verdicts = {}
        for o in outcomes:
            verdict, fb = call_reader(
                passes, o, text, name="passes", case=f"outcome {o}, settings {text!r}"
            )
            if fb is not None:
                return fb
            if not isinstance(verdict, (bool, np.bool_)) and not (
                isinstance(verdict, numbers.Integral) and verdict in (0, 1)
            ):
                return failed(
                    f"passes must return True or False, got {type(verdict).__name__} "
                    f"{verdict!r} for outcome {o}, settings {text!r}."
                )
            verdicts[o] = bool(verdict)
        for o in outcomes:
            if verdicts[o] != (sum(o) % 2 == m % 2):
                return failed(
                    f"Case {case + 1}: passes({o}, {text!r}) returned {verdicts[o]}, "
                    f"but with {2 * m} Y's the test passes iff the parity of the bits "
                    f"is {m % 2}. Hint: {_rule_hint(passes)}."
                )
        p_mine = float(
            sum(law[sum(b << j for j, b in enumerate(o))] for o in outcomes if verdicts[o])
        )
        p_lib = float(
            ghz_test_pass_probability(
                y, phases=phases if kind == 2 else None, ghz_phase=math.pi if kind == 1 else None
            )[0]
        )
        if abs(p_mine - p_lib) > 1e-9:  # cannot differ once the two checks above pass
            return failed(
                f"Case {case + 1}, {where}: pass probability {p_mine:.6f}, the "
                f"library's {p_lib:.6f}."
            )
        if kind == 2 and example is None:
            example = (text, p_mine)
    msg = (
        f"All {cases} cases agree with the library (P = 2..5; GHZ, phase-flipped GHZ and "
        "product copies; the exact outcome law of your circuit and your rule on every "
        "outcome)."
    )
    if example is not None:
        msg += (
            f" For instance settings {example[0]!r} on a product copy pass with probability "
            f"{example[1]:.4f}."
        )
    return passed(msg)


# -- Build it yourself: zero-sum pads --------------------------------------------------------------
#: (P, d, b) of the shape, range and sum checks of :func:`check_zero_sum_pads`.
_PAD_SHAPES = ((2, 5, 3), (3, 4, 2), (4, 7, 8), (5, 3, 16))
#: (P, d, b) of the uniformity checks: every set of P - 1 rows jointly uniform.
_PAD_UNIFORM = ((3, 12_000, 2), (4, 12_000, 1))
#: chi-squared p-value below which a sampler is declared non-uniform (a correct one fails with
#: probability 1e-6 per test, and the seeds are fixed).
_PAD_P_MIN = 1e-6


def check_zero_sum_pads(zero_sum_pads, *, seed: int = 0) -> Feedback:
    """Grade the reader's ``zero_sum_pads(workers, entries, bits, rng)``: integer words in
    ``0..2**bits - 1`` of shape (P, d), columns summing to 0 mod ``2**bits``, any P - 1 rows jointly
    uniform, drawn only from ``rng`` (shapes :data:`_PAD_SHAPES`, reproducibility, then a
    chi-squared test per (P - 1)-subset of rows on :data:`_PAD_UNIFORM`, p < 1e-6 fails). The
    library's :func:`qring_edu.vga.zero_sum_pads` passes.

    Examples
    --------
    >>> def zero_sum_pads(workers, entries, bits, rng):
    ...     pads = rng.integers(0, 2**bits, size=(workers, entries))
    ...     pads[-1] = (-pads[:-1].sum(axis=0)) % 2**bits
    ...     return pads
    >>> check_zero_sum_pads(zero_sum_pads).passed
    True
    """
    from scipy.stats import chisquare

    if zero_sum_pads is None or not callable(zero_sum_pads):
        return call_reader(zero_sum_pads, name="zero_sum_pads")[1]

    def run(workers, entries, bits, s):
        where = f"workers = {workers}, entries = {entries}, bits = {bits}"
        args = (workers, entries, bits, np.random.default_rng(s))
        out, fb = call_reader(zero_sum_pads, *args, name="zero_sum_pads", case=where)
        if fb is not None:
            return None, fb
        try:
            arr = np.asarray(out)
        except Exception:
            return None, failed(f"zero_sum_pads must return an array of integers ({where}).")
        if arr.shape != (workers, entries):
            return None, failed(
                f"{where}: expected shape (P, d) = {(workers, entries)}, got "
                f"{arr.shape}. Row j holds worker j's pads."
            )
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
                arr = arr.astype(np.int64)
            else:
                return None, failed(f"{where}: pads are integer words, got dtype {arr.dtype}.")
        arr = arr.astype(np.int64)
        if arr.min() < 0 or arr.max() >= 1 << bits:
            return None, failed(
                f"{where}: pads must be words in 0..{(1 << bits) - 1}; got values "
                f"from {arr.min()} to {arr.max()}. Reduce modulo 2**bits."
            )
        return arr, None

    for i, (workers, entries, bits) in enumerate(_PAD_SHAPES):
        arr, fb = run(workers, entries, bits, seed + i)
        if fb is not None:
            return fb
        sums = arr.sum(axis=0) % (1 << bits)
        if np.any(sums):
            e = int(np.flatnonzero(sums)[0])
            return failed(
                f"workers = {workers}, bits = {bits}: the pads of entry {e} sum to "
                f"{int(sums[e])} mod {1 << bits}, not 0. Draw P - 1 pads freely and "
                "let the last one close the sum."
            )
    a, _ = run(3, 6, 4, seed + 100)
    b, _ = run(3, 6, 4, seed + 100)
    if not np.array_equal(a, b):
        return failed(
            "Two calls with generators of the same seed returned different pads: draw "
            "every random number from the rng you are given (reproducible runs)."
        )
    for i, (workers, entries, bits) in enumerate(_PAD_UNIFORM):
        arr, fb = run(workers, entries, bits, seed + 200 + i)
        if fb is not None:
            return fb
        q = 1 << bits
        for rows in itertools.combinations(range(workers), workers - 1):
            codes = sum(arr[r] * q**k for k, r in enumerate(rows))
            counts = np.bincount(codes, minlength=q ** (workers - 1))
            p = float(chisquare(counts).pvalue)
            if p < _PAD_P_MIN:
                return failed(
                    f"workers = {workers}, bits = {bits}: the pads of workers {rows} "
                    f"are not jointly uniform (chi-squared p = {p:.1e} over "
                    f"{entries} entries). Any P - 1 pads must be independent and "
                    "uniform: e.g. rng.integers(0, 2**bits, size=(P - 1, d)) for the "
                    "first P - 1 rows, and the last row closes the sum."
                )
    return passed(
        "Your pads have the right shape, words and zero sums, are reproducible from "
        "rng, and every P - 1 of them are jointly uniform: the same law as the "
        "library's zero_sum_pads."
    )


# -- Step checkers of the reasoning exercises ------------------------------------------------------
@checker
def check_dropout_sums(answer, workers: int, bits: int) -> Feedback:
    """Worker dropout: P - 1 of P workers announced; how many values of the sum (mod 2**b) are
    consistent with their announcements? All ``2**b`` (any P - 1 announcements are uniform and
    independent of the sum). Exact.

    Examples
    --------
    >>> check_dropout_sums(256, 4, 8).passed            # every sum: the last pad is still secret
    True
    """
    check_int(workers, "workers", 2, 64)
    bits = check_bits(bits)
    return compare_integer(
        answer,
        1 << bits,
        what="sums consistent with P - 1 announcements",
        hint="Any P - 1 announcements are jointly uniform whatever the "
        "inputs, so they rule out no value of the sum.",
    )


def check_rectangle_pairs(answer) -> Feedback:
    """The rectangle step: a transcript T has positive probability for (x1, x2) and for
    (x1', x2') with x1 != x1', x2 != x2'. For how many of the four pairs in {x1, x1'} x {x2, x2'}
    does T have positive probability? 4. Exact.

    Examples
    --------
    >>> check_rectangle_pairs(4).passed
    True
    """
    return compare_integer(
        answer,
        4,
        what="input pairs that can produce T",
        hint="Pr[T | a, b] = alpha_T(a) beta_T(b): if alpha_T(x1) > 0 and "
        "beta_T(x2') > 0, then (x1, x2') can produce T too; the same for "
        "(x1', x2).",
    )


@checker
def check_single_copy_escape(answer, n_copies: int, test_fraction: float) -> Feedback:
    """Probability that one bad copy among ``n_copies`` is not in the tested set of
    ``T = ceil(f N)`` copies (then every test passes and the bad copy is used):
    ``(N - T)/N`` (:func:`qring_edu.vga_security.vga_epsilon_floor` at beta = 0). Tolerance 1e-9.

    Examples
    --------
    >>> check_single_copy_escape(0.75, 8, 0.25).passed          # T = 2 of 8 copies tested
    True
    """
    expected = vga_epsilon_floor(n_copies, test_fraction, 0.0)
    return compare_number(
        answer,
        expected,
        tol=1e-9,
        what="escape probability of one bad copy",
        hint="The tested set is a uniformly random T-subset of the N copies: the bad copy is "
        "outside it with probability (N - T)/N.",
    )


@checker
def check_split_worker_fail(answer, workers: int) -> Feedback:
    """Probability that one GHZ test fails on ``|+> (x) GHZ_{P-1}`` (worker 0's qubit split
    off): exactly 1/4 for every P (:func:`qring_edu.vga_security.detection_probability` of
    :class:`~qring_edu.vga_security.SplitWorker`). Tolerance 1e-6.

    Examples
    --------
    >>> check_split_worker_fail(0.25, 4).passed                 # 1/4 for every P
    True
    """
    workers = check_int(workers, "workers", 2, 64)
    expected = detection_probability(SplitWorker(), workers, bits=2)
    return compare_number(
        answer,
        expected,
        tol=1e-6,
        what="failure probability of the test",
        hint="The fidelity with GHZ is 1/2 and the copy has no |GHZ->component, so the witness "
        "is tight: P(fail) = (1 - F)/2.",
    )


@checker
def check_amplified_leak(answer, n_copies: int, bad_copies: int, amplification: int) -> Feedback:
    """Probability that an entry leaks under privacy amplification when its k registers are a
    secret uniformly random k-subset of the N delivered ones, B of them attacked:
    ``C(B, k)/C(N, k)`` (:func:`qring_edu.vga_security.amplified_leak_probability`). Relative tolerance 1e-3.

    Examples
    --------
    >>> check_amplified_leak(250 * 249 / (1000 * 999), 1000, 250, 2).passed   # C(B, k) / C(N, k)
    True
    """
    expected = amplified_leak_probability(n_copies, bad_copies, amplification)
    return compare_number(
        answer,
        expected,
        tol=max(1e-3 * expected, 1e-12),
        what=f"leak probability with k = {amplification}",
        hint="The entry leaks only if all k of its registers are attacked: "
        "(B/N)((B-1)/(N-1))... for k factors.",
    )
