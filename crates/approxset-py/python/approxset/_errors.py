"""The exceptions of approxset (imported by the extension module)."""


class Error(Exception):
    """The base of every approxset exception."""


class ParameterError(Error, ValueError):
    """Bad parameters: a rate outside (0, 1), a size too large, filters
    that cannot be combined (other variant, size or hash key)."""


class CorruptFilterError(Error, ValueError):
    """Bytes or a file that are not a valid saved filter (truncated,
    damaged, another format version)."""


class FullError(Error):
    """The filter has no room left for the key (a cuckoo filter, or a
    scalable filter that cannot grow); nothing was changed."""


class UnsupportedError(Error, TypeError):
    """The variant cannot do this: remove from a filter that cannot delete,
    add to the static fuse filter, union of a counting filter, ..."""


class SaturatedError(Error):
    """A counting filter's key whose counters are all saturated (at 15): it
    cannot be removed and tests present from now on; nothing was changed."""
