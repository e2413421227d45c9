"""The claims table's verdicts and its row registry (book/claims.ipynb; the rows are in
:mod:`qring_edu.experiments.claims` and :mod:`qring_edu.experiments.claims_audits`).

A row is a function ``f(seed=0, **options) -> Claim`` registered with :func:`claim_row` together
with its *judge*, a pure function of the row's numbers that returns the verdict (one of
:data:`VERDICTS`) and the reason (:func:`verdict_from`), so the verdict logic can be tested on
modified numbers (:func:`judge`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from .._validate import check_choice

__all__ = ["VERDICTS", "Claim", "ClaimRow", "CLAIM_ROWS", "claim_row", "judge", "verdict_from"]

#: The four verdicts, from best to worst: the numbers support the claim as stated; they support
#: it but the book proves less (each limit names what is missing); part of the claim is not
#: established by the book at all (neither shown nor refuted); a number contradicts it.
VERDICTS = ("holds", "partly", "not established", "does not hold")


@dataclass(frozen=True)
class Claim:
    """One row of the claims table.

    ``claim``: the claim in words; ``source``: ``"paper"`` for the paper's claims, ``"book"``
    for a question the book asks of them; ``paper_figure``: the figure the paper states;
    ``computed``: what the library measured (text, fixed precision); ``verdict``: one of
    :data:`VERDICTS`; ``reason``: why the verdict is not "holds" (what the book proves, and the
    missing proof or check; "" when it holds); ``caveat``: what else the numbers do not show;
    ``chapter``: the chapter's document name (``"03_superdense_ring"``); ``values``: the raw
    numbers behind ``computed`` (read-only), from which :func:`judge` re-derives the verdict.

    Examples
    --------
    >>> from qring_edu.experiments.claims import halving_claim
    >>> row = halving_claim()
    >>> row.key, row.verdict, row.chapter
    ('halving', 'holds', '03_superdense_ring')
    """

    key: str
    claim: str
    paper_figure: str
    computed: str
    verdict: str
    chapter: str
    reason: str = ""
    caveat: str = ""
    source: str = "paper"
    values: Mapping[str, float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        check_choice(self.verdict, "verdict", VERDICTS)
        check_choice(self.source, "source", ("paper", "book"))
        if (self.verdict == "holds") != (not self.reason):
            raise ValueError(
                "reason must be empty exactly when the verdict is 'holds', got "
                f"verdict {self.verdict!r} with reason {self.reason!r}"
            )

    @property
    def holds(self) -> bool:
        """``verdict == "holds"``."""
        return self.verdict == "holds"

    @property
    def supported(self) -> bool:
        """Whether no computed number contradicts the claim (``verdict != "does not hold"``)."""
        return self.verdict != "does not hold"

    def __repr__(self) -> str:
        return f"Claim(key={self.key!r}, verdict={self.verdict!r}, computed={self.computed!r})"


# -- The verdict logic and the row registry --------------------------------------------------------
def verdict_from(
    failed: Sequence[str], limits: Sequence[str], unestablished: Sequence[str] = ()
) -> tuple[str, str]:
    """``(verdict, reason)`` from the failed checks, the parts of the claim the book does not
    establish, and the limits of what it proves.

    Any failed check gives "does not hold" (reason: the failed checks); otherwise any part not
    established gives "not established"; otherwise any limit gives "partly"; otherwise "holds"
    with no reason. The reason lists the unestablished parts, then the limits. Each entry names
    what is missing (the proof or the check that would change the verdict): the judges hold these
    limits as text, the numbers decide which of them apply.

    Examples
    --------
    >>> verdict_from([], [])
    ('holds', '')
    >>> verdict_from([], ["asymptotic only"])
    ('partly', 'Asymptotic only.')
    >>> verdict_from([], ["asymptotic only"], ["no composable proof"])
    ('not established', 'No composable proof; asymptotic only.')
    >>> verdict_from(["slope 1.6, not 2"], ["asymptotic only"])
    ('does not hold', 'Contradicted by the computation: slope 1.6, not 2.')
    """

    def joined(parts: Sequence[str]) -> str:
        return "; ".join(p.strip().rstrip(".") for p in parts) + "."

    def capitalised(text: str) -> str:
        return text[:1].upper() + text[1:]

    if failed:
        return "does not hold", "Contradicted by the computation: " + joined(failed)
    if unestablished:
        return "not established", capitalised(joined([*unestablished, *limits]))
    if limits:
        return "partly", capitalised(joined(limits))
    return "holds", ""


@dataclass(frozen=True)
class ClaimRow:
    """A registered row: ``compute(seed, **options) -> Claim`` and ``judge(values) -> (verdict,
    reason)``.

    Examples
    --------
    >>> from qring_edu.experiments.claims import CLAIM_ROWS
    >>> row = CLAIM_ROWS["halving"]
    >>> row.key, row.compute.__name__
    ('halving', 'halving_claim')
    """

    key: str
    compute: Callable[..., Claim]
    judge: Callable[[Mapping[str, float]], tuple[str, str]]


#: The registered rows, in table order (:func:`claim_row`).
CLAIM_ROWS: dict[str, ClaimRow] = {}


def claim_row(key: str, judge: Callable[[Mapping[str, float]], tuple[str, str]]):
    """Register the decorated function ``f(seed=0, **options) -> Claim`` as the row ``key``
    (appended to the table) with its ``judge``. Adding a row to the table is one such function.

    Examples
    --------
    >>> from qring_edu.experiments.claims import CLAIM_ROWS, Claim, claim_row, reproduce_claims
    >>> @claim_row("even", lambda values: verdict_from([] if values["n"] % 2 == 0 else ["odd"], []))
    ... def even_claim(seed=0):
    ...     return Claim("even", "n is even", "n = 4", "n = 4", "holds", "01_bottleneck")
    >>> [c.verdict for c in reproduce_claims(keys=["even"])]
    ['holds']
    >>> del CLAIM_ROWS["even"]                          # leave the book's table as it was
    """

    def register(compute: Callable[..., Claim]) -> Callable[..., Claim]:
        if key in CLAIM_ROWS:
            raise ValueError(f"claim row {key!r} is already registered")
        CLAIM_ROWS[key] = ClaimRow(key, compute, judge)
        return compute

    return register


def judge(key: str, values: Mapping[str, float]) -> tuple[str, str]:
    """The verdict and reason of row ``key`` for the numbers ``values`` (e.g. a row's
    ``Claim.values``, possibly modified). The row functions use the same judges.

    Examples
    --------
    >>> from qring_edu.experiments.claims import halving_claim
    >>> v = dict(halving_claim(0).values)
    >>> judge("halving", v)
    ('holds', '')
    >>> v["qubits_per_link"] += 1
    >>> judge("halving", v)[0]
    'does not hold'
    """
    key = check_choice(key, "key", tuple(CLAIM_ROWS))
    return CLAIM_ROWS[key].judge(values)


def _make(key: str, values: Mapping[str, float], **fields) -> Claim:
    """Row ``key`` from its numbers (kept read-only) and texts, judged by its judge."""
    values = MappingProxyType(dict(values))
    verdict, reason = CLAIM_ROWS[key].judge(values)
    return Claim(key=key, verdict=verdict, reason=reason, values=values, **fields)


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _pow2(n: int) -> str:
    """``2**n`` as text with a superscript exponent, e.g. ``"2¹⁶"`` (no TeX on the page)."""
    return "2" + str(int(round(n))).translate(_SUPERSCRIPT)


def _sci(x: float, digits: int = 1) -> str:
    """``x`` in scientific notation as text, e.g. ``_sci(3.358e-5) == "3.4 × 10⁻⁵"``."""
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    return f"{mantissa} × 10" + str(int(exponent)).translate(_SUPERSCRIPT)


def _tau(t: float) -> str:
    """A window end: 0.014 above 10⁻³, 3.7 × 10⁻⁴ below (two significant digits)."""
    return f"{t:.3f}" if t >= 1e-3 else _sci(t)
