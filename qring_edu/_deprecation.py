"""Deprecated aliases kept for one release (core floor).

A module whose names moved gets a module-level ``__getattr__`` from :func:`forward`: reading an
old name returns the object from its new home and emits a ``DeprecationWarning`` naming the new
path. Aliases are resolved on access only, so they never shadow the module's own names.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["REMOVED_IN", "forward"]

#: The release that removes the aliases.
REMOVED_IN = "0.3"


def forward(
    old: str,
    targets: Sequence[types.ModuleType],
    renamed: Mapping[str, tuple[Any, str]] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for module ``old``: every public name of the ``targets``
    modules, and every ``renamed[name] = (object, "new.path")``, read with a DeprecationWarning.

    Examples
    --------
    >>> import math, warnings
    >>> getattr_, _ = forward("old_math", [math])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     getattr_("pi") == math.pi, caught[0].category.__name__
    (True, 'DeprecationWarning')
    """
    renamed = dict(renamed or {})

    def __getattr__(name: str):
        if name in renamed:
            obj, new = renamed[name]
        else:
            for module in targets:
                if not name.startswith("_") and hasattr(module, name):
                    obj, new = getattr(module, name), f"{module.__name__}.{name}"
                    break
            else:
                raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(
            f"{old}.{name} is deprecated and will be removed in qring_edu {REMOVED_IN}; use {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return obj

    def __dir__() -> list[str]:
        names = set(renamed)
        for module in targets:
            names.update(
                getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")])
            )
        return sorted(names)

    return __getattr__, __dir__
