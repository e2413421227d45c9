"""Exercise checkers of the book: ``check_<name>(answer, ...) -> Feedback`` (presentation layer).

``answer=None`` means "not attempted": the feedback says so and nothing raises.
"""

from ._base import Feedback

__all__ = ["Feedback"]
