"""qring_edu: quantum ring all-reduce, the reference library of the book.

Four floors, imports pointing downward only (ARCHITECTURE.md): core (fixed-point words, the
ledger, states, argument checks, result types), protocols (one module each, in this package),
:mod:`qring_edu.experiments` (one module per chapter), and the presentation floor
(:mod:`qring_edu.figures`, :mod:`qring_edu.widgets`, :mod:`qring_edu.exercises`: matplotlib and
ipywidgets). ``import qring_edu`` needs NumPy and SciPy only; Qiskit and PyTorch are imported on
demand. This package re-exports the names a reader meets first; the rest live in their modules.
"""

from .costmodel import iteration_time, ring_time
from .distillation import Distillation, distill
from .fixedpoint import FixedPoint, fixed_point, modular_sum
from .gapip import Decision, gapip
from .holevo import (
    accessible_information,
    bb84_ensemble,
    dense_coding_capacity,
    dense_coding_threshold,
    holevo_chi,
    isotropic_capacity,
    mutual_information,
    optimal_measurement,
    superdense_ensemble,
    trine_ensemble,
    von_neumann_entropy,
)
from .ledger import Ledger
from .noise import Link, depolarizing_capacities
from .protection import FEC, Distill, Protection, expected_net_factor
from .ring import AllReduceResult, chunk_bounds, message_bits, ring_allreduce, ring_schedule
from .superdense import (
    superdense_circuit,
    superdense_outcome_probabilities,
    superdense_send,
    superdense_send_qiskit,
)
from .tieaudit import Estimate, tieaudit
from .training import TrainingRun, train_data_parallel
from .transports import Classical, Protected, Superdense
from .vga import VGAResult, vga_aggregate
from .vga_security import vga_epsilon

__version__ = "0.1.0"

__all__ = [
    # the ring and its transports
    "ring_allreduce",
    "AllReduceResult",
    "ring_schedule",
    "chunk_bounds",
    "message_bits",
    "Classical",
    "Superdense",
    "Protected",
    "Link",
    "Ledger",
    "FixedPoint",
    "fixed_point",
    "modular_sum",
    # superdense coding, noisy links, protection
    "superdense_send",
    "superdense_circuit",
    "superdense_outcome_probabilities",
    "superdense_send_qiskit",
    "depolarizing_capacities",
    "distill",
    "Distillation",
    "Protection",
    "Distill",
    "FEC",
    "expected_net_factor",
    # the Holevo bound
    "von_neumann_entropy",
    "holevo_chi",
    "mutual_information",
    "accessible_information",
    "optimal_measurement",
    "dense_coding_capacity",
    "isotropic_capacity",
    "dense_coding_threshold",
    "bb84_ensemble",
    "trine_ensemble",
    "superdense_ensemble",
    # private aggregation, auditing
    "vga_aggregate",
    "VGAResult",
    "vga_epsilon",
    "gapip",
    "Decision",
    "tieaudit",
    "Estimate",
    # cost and training
    "ring_time",
    "iteration_time",
    "train_data_parallel",
    "TrainingRun",
]

# The DDP communication hook needs PyTorch, an optional extra (pip install "qring_edu[torch]"):
# its names are resolved on first use, so `import qring_edu` works without torch.
_DDP_NAMES = ("RingHookState", "ring_hook")


def __getattr__(name: str):
    if name in _DDP_NAMES:
        from . import ddp  # noqa: PLC0415  (needs torch)

        return getattr(ddp, name)
    raise AttributeError(f"module 'qring_edu' has no attribute {name!r}")
