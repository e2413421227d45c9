"""Widget factories of the book (presentation layer). Each returns a widget; none displays it."""

from ._base import LIVE_HINT, LiveFigure, figure_to_png

__all__ = ["LIVE_HINT", "LiveFigure", "figure_to_png"]
