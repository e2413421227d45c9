"""Widget factories of the book (presentation floor), one module per chapter slug; each returns
a :class:`~qring_edu.widgets._base.LiveFigure` (``experiment`` + ``figure`` + controls) and
displays nothing."""

from ._base import LIVE_HINT, LiveFigure, figure_to_png
from .bottleneck import alpha_beta_widget, ring_schedule_widget
from .gapip import gapip_widget
from .holevo import dense_coding_widget, ensemble_designer_widget, ledger_floor_widget
from .superdense_ring import overlap_widget, superdense_channel_widget
from .tieaudit import tieaudit_explorer_widget, tieaudit_scaling_widget
from .training import compression_widget, learner_training_widget, superdense_training_widget
from .vga import vga_attack_widget, vga_epsilon_widget, vga_privacy_widget

__all__ = [
    "LIVE_HINT",
    "LiveFigure",
    "figure_to_png",
    # chapter 1
    "alpha_beta_widget",
    "ring_schedule_widget",
    # chapter 2
    "dense_coding_widget",
    "ensemble_designer_widget",
    "ledger_floor_widget",
    # chapter 3
    "overlap_widget",
    "superdense_channel_widget",
    # chapter 3, training section
    "compression_widget",
    "learner_training_widget",
    "superdense_training_widget",
    # chapters 5 and 6
    "vga_attack_widget",
    "vga_epsilon_widget",
    "vga_privacy_widget",
    # chapters 7 and 8
    "gapip_widget",
    "tieaudit_explorer_widget",
    "tieaudit_scaling_widget",
]
