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

from typing import TYPE_CHECKING

from ._approxset import (
    DEFAULT_READ_LIMIT,
    VARIANTS,
    SparkFilter,
    __version__,
    compare,
    design,
    from_bytes,
    from_spark,
    load,
    variants,
)
from ._approxset import Filter as _Filter
from ._errors import (
    CorruptFilterError,
    Error,
    FullError,
    ParameterError,
    SaturatedError,
    UnsupportedError,
)

if TYPE_CHECKING:  # type checkers see the extension's class (its stubs)
    from ._approxset import Filter
else:

    class _FilterType(type):
        """The type of ``approxset.Filter``: ``Filter("spark", …)`` is a
        ``SparkFilter`` (Apache Spark's format and hashing, which no approxset
        variant shares); every other name builds the extension's ``Filter``,
        and ``isinstance(f, Filter)`` and ``Filter.from_keys`` are its."""

        def __call__(cls, variant, *args, **kwargs):
            if isinstance(variant, str) and variant.strip().lower() == "spark":
                return SparkFilter(*args, **kwargs)
            return _Filter(variant, *args, **kwargs)

        def __instancecheck__(cls, obj):
            return isinstance(obj, _Filter)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, _Filter)

        def __getattr__(cls, name):
            return getattr(_Filter, name)

        def __dir__(cls):
            return dir(_Filter)

        @property
        def __text_signature__(cls):
            return _Filter.__text_signature__

    class Filter(metaclass=_FilterType):
        __doc__ = (_Filter.__doc__ or "") + (
            "\n\n``Filter(\"spark\", capacity, fp)`` is a ``SparkFilter``: Apache "
            "Spark's BloomFilter, which Spark's ``BloomFilter.readFrom`` reads "
            "(``to_spark()``), hashing keys as Spark does."
        )
        __module__ = "approxset"


__all__ = [
    "__version__",
    "DEFAULT_READ_LIMIT",
    "VARIANTS",
    "CorruptFilterError",
    "Error",
    "Filter",
    "SparkFilter",
    "FullError",
    "ParameterError",
    "SaturatedError",
    "UnsupportedError",
    "compare",
    "design",
    "from_bytes",
    "from_spark",
    "load",
    "variants",
]
