"""qring_edu: quantum ring all-reduce, the reference library of the book.

Layers (imports point downward only):

* core: :mod:`~qring_edu.fixedpoint`, :mod:`~qring_edu.ledger`, argument checks;
* protocols: :mod:`~qring_edu.ring`, :mod:`~qring_edu.superdense`, :mod:`~qring_edu.costmodel`,
  :mod:`~qring_edu.training`, :mod:`~qring_edu.holevo`, :mod:`~qring_edu.vga`,
  :mod:`~qring_edu.alignment` (GapIP), :mod:`~qring_edu.sign_audit` (TieAudit),
  :mod:`~qring_edu.scaling`, :mod:`~qring_edu.claims`;
* presentation: :mod:`qring_edu.figures`, :mod:`qring_edu.widgets`, :mod:`qring_edu.exercises`
  (imported on demand; they need matplotlib and ipywidgets).
"""

from .claims import CLAIM_KEYS, Claim, reproduce_claims
from .costmodel import (
    MODEL_SIZES,
    IterationTime,
    allreduce_lower_bound_bits,
    iteration_time,
    parameter_server_time,
    ring_time,
)
from .fixedpoint import FixedPoint, fixed_point, modular_sum, to_signed, to_words
from .alignment import GAPIP_PROTOCOLS, Decision, alignment_state, gapip, gapip_circuit, gapip_sample_qiskit
from .holevo import (
    AccessibleInformation,
    Ensemble,
    accessible_information,
    bb84_ensemble,
    binary_entropy,
    bloch_ensemble,
    bloch_measurement,
    bloch_vector,
    encoded_ensemble,
    superdense_ensemble,
    trine_ensemble,
    two_state_accessible,
    two_state_chi,
    two_state_ensemble,
    dense_coding_capacity,
    holevo_chi,
    isotropic_capacity,
    mutual_information,
    shannon_entropy,
    von_neumann_entropy,
)
from .ledger import Ledger
from .ring import AllReduceResult, RingStep, chunk_bounds, ring_allreduce, ring_schedule
from .scaling import (
    GapIPScaling,
    TieAuditScaling,
    gapip_scaling,
    loglog_slope,
    tieaudit_crossover,
    tieaudit_scaling,
)
from .superdense import (
    isotropic_state,
    superdense_circuit,
    superdense_outcome_probabilities,
    superdense_send,
    superdense_send_qiskit,
)
from .sign_audit import (
    TIEAUDIT_PROTOCOLS,
    Estimate,
    random_matching,
    signs_with_disagreement,
    tieaudit,
    tieaudit_circuit,
    tieaudit_sample_qiskit,
)
from .training import TrainingRun, make_moons, train_data_parallel
from .vga import (
    VGALedger,
    VGARingResult,
    VGAResult,
    ghz_test_circuit,
    vga_aggregate,
    vga_aggregate_qiskit,
    vga_circuit,
    vga_epsilon,
    vga_outcome_probabilities,
    vga_ring_allreduce,
)

__version__ = "0.1.0"

__all__ = [
    "AccessibleInformation",
    "Ensemble",
    "accessible_information",
    "bb84_ensemble",
    "binary_entropy",
    "bloch_ensemble",
    "bloch_measurement",
    "bloch_vector",
    "encoded_ensemble",
    "superdense_ensemble",
    "trine_ensemble",
    "two_state_accessible",
    "two_state_chi",
    "two_state_ensemble",
    "dense_coding_capacity",
    "holevo_chi",
    "isotropic_capacity",
    "mutual_information",
    "shannon_entropy",
    "von_neumann_entropy",
    "AllReduceResult",
    "FixedPoint",
    "IterationTime",
    "Ledger",
    "MODEL_SIZES",
    "RingStep",
    "TrainingRun",
    "allreduce_lower_bound_bits",
    "chunk_bounds",
    "fixed_point",
    "isotropic_state",
    "iteration_time",
    "make_moons",
    "modular_sum",
    "parameter_server_time",
    "ring_allreduce",
    "ring_schedule",
    "ring_time",
    "superdense_circuit",
    "superdense_outcome_probabilities",
    "superdense_send",
    "superdense_send_qiskit",
    "to_signed",
    "to_words",
    "train_data_parallel",
    "VGALedger",
    "VGARingResult",
    "VGAResult",
    "ghz_test_circuit",
    "vga_aggregate",
    "vga_aggregate_qiskit",
    "vga_circuit",
    "vga_epsilon",
    "vga_outcome_probabilities",
    "vga_ring_allreduce",
    "GAPIP_PROTOCOLS",
    "Decision",
    "alignment_state",
    "gapip",
    "gapip_circuit",
    "gapip_sample_qiskit",
    "TIEAUDIT_PROTOCOLS",
    "Estimate",
    "random_matching",
    "signs_with_disagreement",
    "tieaudit",
    "tieaudit_circuit",
    "tieaudit_sample_qiskit",
    "CLAIM_KEYS",
    "Claim",
    "reproduce_claims",
    "GapIPScaling",
    "TieAuditScaling",
    "gapip_scaling",
    "loglog_slope",
    "tieaudit_crossover",
    "tieaudit_scaling",
]

# The DDP communication hook (qring_edu.ddp) needs PyTorch, an optional extra
# (pip install "qring_edu[torch]"); its names are resolved on first use so that `import qring_edu`
# works without torch, and they stay out of __all__ so `from qring_edu import *` never imports it.
_DDP_NAMES = ("RingHookConfig", "RingHookState", "LinkReport", "TappedMessage", "ring_hook",
              "allreduce_mean_", "gather_reports", "launch_local", "DDPDemo", "ddp_demo")


def __getattr__(name: str):
    if name in _DDP_NAMES:
        from . import ddp  # noqa: PLC0415  (needs torch)

        return getattr(ddp, name)
    raise AttributeError(f"module 'qring_edu' has no attribute {name!r}")
