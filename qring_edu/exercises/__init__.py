"""Exercise checkers of the book: ``check_<name>(answer, ...) -> Feedback`` (presentation floor).

One module per chapter slug (:mod:`.qubits` ... :mod:`.tieaudit`; :mod:`.training` is chapter 3's
training section, :mod:`.vga` both VGA chapters); the rules every checker keeps (``None`` is "not
attempted", answers compared as values, never evaluated) are in
:mod:`~qring_edu.exercises._base`.
"""

from ._base import Feedback
from .bottleneck import (
    check_chunk_sent,
    check_link_bits,
    check_model_comm_time,
    check_ring_vs_ps_speedup,
)
from .gapip import (
    check_not_ah_probability,
    check_overlap,
    check_phase_estimation_qubits,
    check_pingpong_probability,
    check_sketch_bits,
    check_vector_bits,
)
from .holevo import (
    check_capacity_threshold,
    check_chi_bb84,
    check_chi_code,
    check_dense_capacity,
    check_max_bits,
    check_povm,
    check_two_state_chi,
)
from .qubits import (
    check_agreement,
    check_basis_index,
    check_entropy,
    check_mixture_entropy,
    check_on_qubit,
    check_partial_trace,
    check_plus_probability,
)
from .superdense_ring import (
    check_alice_gates,
    check_bidirectional_qubits,
    check_bit_error_rate,
    check_flip_damage,
    check_flip_reach,
    check_idle_head,
    check_lifetime_uses,
    check_link_busy_time,
    check_superdense_coding,
    check_superdense_qubits,
    check_symbol_error_rate,
)
from .tieaudit import (
    check_calibrated_estimate,
    check_crossover,
    check_expected_y,
    check_ratio_bias,
    check_test_overlap,
    check_tieaudit_measurement,
    check_tieaudit_qubits,
    check_y_variance,
)
from .training import (
    check_bandwidth_ratio,
    check_circuits_per_step,
    check_crossover_params,
    check_parameter_shift,
    check_update_jump,
)
from .vga import (
    check_ghz_copies_delivered,
    check_known_pads_survival,
    check_last_announcement,
    check_phase_angle,
    check_transcript_count,
)

__all__ = [
    "Feedback",
    # chapter 0
    "check_agreement",
    "check_basis_index",
    "check_entropy",
    "check_mixture_entropy",
    "check_on_qubit",
    "check_partial_trace",
    "check_plus_probability",
    # chapter 1
    "check_chunk_sent",
    "check_link_bits",
    "check_model_comm_time",
    "check_ring_vs_ps_speedup",
    # chapter 2
    "check_capacity_threshold",
    "check_chi_bb84",
    "check_chi_code",
    "check_dense_capacity",
    "check_max_bits",
    "check_povm",
    "check_two_state_chi",
    # chapter 3
    "check_alice_gates",
    "check_bidirectional_qubits",
    "check_bit_error_rate",
    "check_flip_damage",
    "check_flip_reach",
    "check_idle_head",
    "check_lifetime_uses",
    "check_link_busy_time",
    "check_superdense_coding",
    "check_superdense_qubits",
    "check_symbol_error_rate",
    # chapter 3, training section
    "check_bandwidth_ratio",
    "check_circuits_per_step",
    "check_crossover_params",
    "check_parameter_shift",
    "check_update_jump",
    # chapter 4
    "check_ghz_copies_delivered",
    "check_known_pads_survival",
    "check_last_announcement",
    "check_phase_angle",
    "check_transcript_count",
    # chapters 7 and 8 (GapIP, TieAudit)
    "check_calibrated_estimate",
    "check_crossover",
    "check_expected_y",
    "check_not_ah_probability",
    "check_overlap",
    "check_phase_estimation_qubits",
    "check_pingpong_probability",
    "check_ratio_bias",
    "check_sketch_bits",
    "check_test_overlap",
    "check_tieaudit_measurement",
    "check_tieaudit_qubits",
    "check_vector_bits",
    "check_y_variance",
]
