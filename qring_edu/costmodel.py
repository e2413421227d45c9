"""α–β time models for gradient synchronisation (DESIGN.md §4.2, §4.4).

A message of n units over one link takes ``alpha + n * beta`` seconds (Hockney's model): ``alpha``
is the per-message latency, ``beta`` the time per unit (a bit on a classical link, a qubit on a
quantum link). All sizes are per worker: ``d`` entries of ``bits`` bits each.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import check_bits, check_choice, check_float, check_int
from .ring import message_bits

__all__ = [
    "ring_time",
    "parameter_server_time",
    "allreduce_lower_bound_bits",
    "IterationTime",
    "iteration_time",
    "pairs_per_link",
    "MODEL_SIZES",
]

#: Parameter counts of well-known models (published figures), for the "real sizes" tables.
MODEL_SIZES = {
    "ResNet-50": 25_557_032,       # He et al. 2016; torchvision's count
    "BERT-Large": 340_000_000,     # Devlin et al. 2019
    "GPT-2 XL": 1_500_000_000,     # Radford et al. 2019
    "Llama 2 70B": 70_000_000_000,  # Touvron et al. 2023
    "GPT-3": 175_000_000_000,      # Brown et al. 2020
}


def _check_common(workers, d, bits, alpha, beta):
    return (check_int(workers, "P (number of workers)", 2), check_int(d, "d", 1), check_bits(bits),
            check_float(alpha, "alpha", 0.0), check_float(beta, "beta", 0.0))


def ring_time(workers: int, d: int, bits: int, alpha: float, beta: float, *,
              transport: str = "classical") -> float:
    """Seconds for one ring all-reduce: ``2 (P-1) (alpha + n beta)``.

    ``n`` is the largest chunk message: ``ceil(d/P) * bits`` bits (classical) or
    ``ceil(ceil(d/P) * bits / 2)`` qubits (superdense), ``beta`` the time per unit sent.
    """
    P, d, bits, alpha, beta = _check_common(workers, d, bits, alpha, beta)
    transport = check_choice(transport, "transport", ("classical", "superdense"))
    units = int(message_bits(P, d, bits).max())  # the largest chunk message, ceil(d/P) words
    if transport == "superdense":
        units = (units + 1) // 2
    return 2 * (P - 1) * (alpha + units * beta)


def parameter_server_time(workers: int, d: int, bits: int, alpha: float, beta: float) -> float:
    """Seconds for a single parameter server: it receives P vectors and sends P back over its own
    link, ``2 (alpha + P d bits beta)`` (the server's link is the bottleneck)."""
    P, d, bits, alpha, beta = _check_common(workers, d, bits, alpha, beta)
    return 2 * (alpha + P * d * bits * beta)


def allreduce_lower_bound_bits(workers: int, d: int, bits: int) -> float:
    """Bits each worker must send in any all-reduce: ``2 (P-1)/P * d * bits`` (Patarasuk & Yuan)."""
    P = check_int(workers, "P (number of workers)", 2)
    return 2 * (P - 1) / P * check_int(d, "d", 1) * check_bits(bits)


def pairs_per_link(workers: int, d: int, bits: int) -> int:
    """Bell pairs the busiest link of the superdense ring consumes in one all-reduce.

    Chunk c of ``n_c`` words travels as ``u_c = ceil(n_c * bits / 2)`` qubits. Worker k sends every
    chunk but (k+1) mod P in reduce-scatter and every chunk but (k+2) mod P in all-gather, so its
    link uses ``2 U - u_{k+1} - u_{k+2}`` pairs with ``U = sum_c u_c``; this returns the maximum
    over k, equal to ``2 (P-1) ceil(d bits / (2P))`` when P divides d.
    """
    units = (message_bits(workers, d, bits) + 1) // 2  # ceil(k/2) qubits per k-bit message
    return int(units.sum(axis=1).max())


@dataclass(frozen=True)
class IterationTime:
    """One training iteration, in seconds: ``total = max(compute, distribution) + ring`` for the
    quantum ring (pairs are distributed during the backward pass), ``compute + ring`` classically."""

    transport: str
    compute: float
    distribution: float
    ring: float
    total: float

    def __repr__(self) -> str:
        return (f"IterationTime(transport={self.transport!r}, compute={self.compute:.4g}, "
                f"distribution={self.distribution:.4g}, ring={self.ring:.4g}, "
                f"total={self.total:.4g})")


def iteration_time(compute: float, workers: int, d: int, bits: int, alpha: float, beta: float, *,
                   transport: str = "classical", beta_qubit: float | None = None) -> IterationTime:
    """Iteration-time model of DESIGN.md §4.4.

    classical: ``compute + ring_time(classical, beta)``;
    superdense: ``max(compute, distribution) + ring_time(superdense, beta_qubit)`` where
    ``distribution = pairs_per_link(P, d, bits) * beta_qubit`` sends one half of each Bell pair
    the busiest link consumes (= its online qubits) and overlaps the backward pass.
    ``beta_qubit`` defaults to ``beta`` (a qubit costs as much link time as a bit).
    """
    compute = check_float(compute, "compute", 0.0)
    transport = check_choice(transport, "transport", ("classical", "superdense"))
    if beta_qubit is not None:  # checked for both transports (ignored classically)
        beta_qubit = check_float(beta_qubit, "beta_qubit", 0.0)
    if transport == "classical":
        ring = ring_time(workers, d, bits, alpha, beta)
        return IterationTime(transport, compute, 0.0, ring, compute + ring)
    bq = beta if beta_qubit is None else beta_qubit
    ring = ring_time(workers, d, bits, alpha, bq, transport="superdense")
    distribution = pairs_per_link(workers, d, bits) * bq
    return IterationTime(transport, compute, distribution, ring, max(compute, distribution) + ring)
