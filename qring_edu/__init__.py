"""qring_edu: quantum ring all-reduce, the reference library of the book.

Four floors; imports point downward only (``tests/test_import_layers.py`` enforces it):

1. core: :mod:`~qring_edu.fixedpoint`, :mod:`~qring_edu.ledger`, :mod:`~qring_edu.states`
   (NumPy state helpers), argument checks;
2. protocols, one module per protocol: :mod:`~qring_edu.ring`, :mod:`~qring_edu.superdense`,
   :mod:`~qring_edu.costmodel`, :mod:`~qring_edu.training`,
   :mod:`~qring_edu.vqc` (variational quantum classifier), :mod:`~qring_edu.holevo`,
   :mod:`~qring_edu.vga`, :mod:`~qring_edu.alignment` (GapIP), :mod:`~qring_edu.sign_audit`
   (TieAudit), :mod:`~qring_edu.ddp` (PyTorch, imported on demand);
3. experiments, one module per chapter: :mod:`qring_edu.experiments` (sweeps, comparisons, the
   claims; pure results);
4. presentation, one module per chapter in each of :mod:`qring_edu.figures`,
   :mod:`qring_edu.widgets`, :mod:`qring_edu.exercises` (imported on demand; they need
   matplotlib and ipywidgets).

Qiskit is imported only inside the functions of the Qiskit path, so ``import qring_edu`` and every
fast path work without it. This package re-exports the public names of the floors below
presentation.
"""

from .experiments.claims import CLAIM_KEYS, Claim, reproduce_claims
from .costmodel import (
    MODEL_SIZES,
    BucketedIteration,
    CutSetBound,
    IterationTime,
    allreduce_cut_bound,
    allreduce_lower_bound_bits,
    bucketed_best_ratio,
    bucketed_iteration_time,
    iteration_time,
    parameter_server_time,
    ring_time,
)
from .fixedpoint import FixedPoint, fixed_point, modular_sum, to_signed, to_words
from .alignment import (
    GAPIP_CONFIDENCES,
    GAPIP_PROTOCOLS,
    Decision,
    alignment_state,
    controlled_reflection_circuit,
    gapip,
    gapip_circuit,
    gapip_sample_qiskit,
)
from .holevo import (
    AccessibleInformation,
    Ensemble,
    accessible_information,
    dense_coding_threshold,
    optimal_measurement,
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
from .ring import AllReduceResult, RingStep, chunk_bounds, message_bits, ring_allreduce, ring_schedule
from .experiments.alignment import (
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
    TIEAUDIT_ATTACKS,
    TIEAUDIT_BOUNDS,
    TIEAUDIT_NOISE_MODELS,
    TIEAUDIT_PROTOCOLS,
    TIEAUDIT_TEST_STRINGS,
    TIEAUDIT_TWIRLS,
    Estimate,
    classical_worst_failure,
    copy_y_law,
    random_matching,
    ratio_bias,
    signs_with_disagreement,
    tieaudit,
    tieaudit_circuit,
    tieaudit_copies,
    tieaudit_failure_probability,
    tieaudit_sample_qiskit,
    tieaudit_worst_failure,
)
from .experiments.training import LearnerComparison, compare_learners
from .training import (
    TRAINING_MODELS,
    GradientBudget,
    TrainingRun,
    gradient_budget,
    make_moons,
    ring_link_options,
    train_data_parallel,
)
from .vqc import (
    VQC_LAYERS,
    VQC_QUBITS,
    parameter_shift,
    vqc_circuit,
    vqc_encoding,
    vqc_loss_and_grad,
    vqc_n_parameters,
    vqc_observable,
    vqc_score_gradient,
    vqc_score_gradient_qiskit,
    vqc_scores,
    vqc_scores_qiskit,
    vqc_statevector,
)
from .vga import (
    VGALedger,
    VGARingResult,
    VGAResult,
    amplified_leak_probability,
    detection_probability,
    ghz_test_circuit,
    ghz_verification_tests,
    ghz_verified_infidelity,
    ghz_witness,
    rotated_ghz_leak,
    transcript_distance,
    vga_aggregate,
    vga_aggregate_qiskit,
    vga_circuit,
    vga_epsilon,
    vga_epsilon_floor,
    vga_outcome_probabilities,
    vga_ring_allreduce,
)

__version__ = "0.1.0"

__all__ = [
    "AccessibleInformation",
    "Ensemble",
    "accessible_information",
    "dense_coding_threshold",
    "optimal_measurement",
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
    "allreduce_cut_bound",
    "BucketedIteration",
    "CutSetBound",
    "bucketed_best_ratio",
    "bucketed_iteration_time",
    "chunk_bounds",
    "message_bits",
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
    "TRAINING_MODELS",
    "GradientBudget",
    "LearnerComparison",
    "compare_learners",
    "gradient_budget",
    "ring_link_options",
    "VQC_LAYERS",
    "VQC_QUBITS",
    "parameter_shift",
    "vqc_circuit",
    "vqc_encoding",
    "vqc_loss_and_grad",
    "vqc_n_parameters",
    "vqc_observable",
    "vqc_score_gradient",
    "vqc_score_gradient_qiskit",
    "vqc_scores",
    "vqc_scores_qiskit",
    "vqc_statevector",
    "VGALedger",
    "VGARingResult",
    "VGAResult",
    "amplified_leak_probability",
    "detection_probability",
    "ghz_test_circuit",
    "ghz_verification_tests",
    "ghz_verified_infidelity",
    "ghz_witness",
    "rotated_ghz_leak",
    "transcript_distance",
    "vga_aggregate",
    "vga_aggregate_qiskit",
    "vga_circuit",
    "vga_epsilon",
    "vga_epsilon_floor",
    "vga_outcome_probabilities",
    "vga_ring_allreduce",
    "GAPIP_CONFIDENCES",
    "GAPIP_PROTOCOLS",
    "Decision",
    "alignment_state",
    "controlled_reflection_circuit",
    "gapip",
    "gapip_circuit",
    "gapip_sample_qiskit",
    "TIEAUDIT_ATTACKS",
    "TIEAUDIT_BOUNDS",
    "TIEAUDIT_NOISE_MODELS",
    "TIEAUDIT_PROTOCOLS",
    "TIEAUDIT_TEST_STRINGS",
    "TIEAUDIT_TWIRLS",
    "Estimate",
    "classical_worst_failure",
    "copy_y_law",
    "random_matching",
    "ratio_bias",
    "signs_with_disagreement",
    "tieaudit",
    "tieaudit_circuit",
    "tieaudit_copies",
    "tieaudit_failure_probability",
    "tieaudit_sample_qiskit",
    "tieaudit_worst_failure",
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
_DDP_NAMES = ("RingHookConfig", "RingHookState", "LinkReport", "ring_hook", "allreduce_mean_",
              "gather_reports", "launch_local", "DDPDemo", "ddp_demo")


def __getattr__(name: str):
    if name in _DDP_NAMES:
        from . import ddp  # noqa: PLC0415  (needs torch)

        return getattr(ddp, name)
    raise AttributeError(f"module 'qring_edu' has no attribute {name!r}")
