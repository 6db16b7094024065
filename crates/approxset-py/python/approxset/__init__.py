"""Approximate-membership filters: sets that answer ``key in f`` with no
false negatives and a chosen rate of false positives, in a few bits per key.

Python bindings of the approxset Rust library. A filter saved here loads
in Rust and in the ``approxset`` CLI, and the other way::

    >>> import approxset
    >>> f = approxset.Filter("blocked", capacity=10**6, fp=0.01, seed=1)
    >>> f.add("alice")
    >>> "alice" in f
    True

``approxset.VARIANTS`` names every variant; ``approxset.variants()`` says
which delete, merge, or are static; ``approxset.design`` sizes them.
"""

from ._approxset import (
    DEFAULT_READ_LIMIT,
    VARIANTS,
    Filter,
    __version__,
    compare,
    design,
    from_bytes,
    load,
    variants,
)
from ._errors import (
    CorruptFilterError,
    Error,
    FullError,
    ParameterError,
    SaturatedError,
    UnsupportedError,
)

__all__ = [
    "__version__",
    "DEFAULT_READ_LIMIT",
    "VARIANTS",
    "CorruptFilterError",
    "Error",
    "Filter",
    "FullError",
    "ParameterError",
    "SaturatedError",
    "UnsupportedError",
    "compare",
    "design",
    "from_bytes",
    "load",
    "variants",
]
