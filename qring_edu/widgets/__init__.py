"""Widget factories of the book (presentation layer). Each returns a widget; none displays it."""

from ._base import LIVE_HINT, LiveFigure, figure_to_png
from .audit import gapip_widget, tieaudit_explorer_widget, tieaudit_scaling_widget
from .holevo import dense_coding_widget, ensemble_designer_widget, ledger_floor_widget
from .ring import alpha_beta_widget, ring_schedule_widget
from .superdense import iteration_time_widget, superdense_channel_widget, superdense_training_widget
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
    "iteration_time_widget",
    "superdense_channel_widget",
    "superdense_training_widget",
    # chapter 4
    "vga_attack_widget",
    "vga_epsilon_widget",
    "vga_privacy_widget",
    # chapter 5
    "gapip_widget",
    "tieaudit_explorer_widget",
    "tieaudit_scaling_widget",
]
