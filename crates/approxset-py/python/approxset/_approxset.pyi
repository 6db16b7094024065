"""Type stubs of the extension module (re-exported by ``approxset``)."""

import os
from collections.abc import Iterable
from typing import Any, Literal, SupportsIndex, TypeAlias, TypedDict, overload

from typing_extensions import Self

Key: TypeAlias = str | bytes | bytearray | memoryview | int | SupportsIndex
"""A key: ``str`` (its UTF-8), bytes-like (its bytes), an integer (64 bits:
``int``, or any ``__index__`` such as ``numpy.int64``, as the ``int`` of
its value)."""

Keys: TypeAlias = Iterable[Key] | Any
"""An iterable of keys, or a 1-D NumPy array (integers, ``S`` or ``U``
strings, objects; read through the buffer protocol) or an Arrow
string/binary array. Read a chunk at a time: a batch call's extra memory
is a few MiB whatever the input's size."""

VARIANTS: tuple[str, ...]
DEFAULT_READ_LIMIT: int
__version__: str

class VariantInfo(TypedDict):
    name: str
    static: bool
    deletable: bool
    mergeable: bool

class FilterInfo(TypedDict):
    variant: str
    len: int
    capacity: int
    fp_rate: float
    estimated_fp_rate: float
    estimated_items: float
    memory_bytes: int
    bits_per_key: float
    hash: str
    static: bool
    deletable: bool
    mergeable: bool
    parameters: dict[str, int | float]

class Filter:
    """An approximate-membership filter: ``key in f`` with no false
    negatives and a chosen rate of false positives."""

    def __init__(
        self,
        variant: str,
        capacity: int,
        fp: float = 0.01,
        *,
        seed: int | None = None,
        key: bytes | None = None,
        hash: Literal["siphash64", "siphash", "xxh3"] | None = None,
        max_bytes: int | None = None,
    ) -> None: ...
    @classmethod
    def from_keys(
        cls,
        variant: str,
        keys: Keys,
        fp: float = 0.01,
        *,
        seed: int | None = None,
        key: bytes | None = None,
        hash: Literal["siphash64", "siphash", "xxh3"] | None = None,
        max_bytes: int | None = None,
    ) -> Filter:
        """A filter built from every key at once (the static ``"fuse"`` and ``"ribbon"``)."""
    @staticmethod
    def from_bytes(data: bytes | bytearray | memoryview) -> Filter:
        """The filter saved in ``data``."""
    def add(self, key: Key) -> None:
        """Adds ``key``."""
    def update(self, keys: Keys) -> None:
        """Adds every key (as ``add_many``)."""
    def add_many(self, keys: Keys) -> None:
        """Adds every key, a chunk at a time with the GIL released. On an
        error every key before the failing one is in the filter, and the
        failing one is not."""
    @overload
    def contains_many(self, keys: list[Key] | tuple[Key, ...] | Iterable[Key]) -> list[bool]: ...
    @overload
    def contains_many(self, keys: Any) -> Any:
        """A NumPy bool array for a NumPy or Arrow array of keys."""
    def __contains__(self, key: object) -> bool: ...
    def remove(self, key: Key) -> None:
        """Removes one copy; ``KeyError`` when certainly absent."""
    def discard(self, key: Key) -> bool:
        """Removes one copy if present; whether it did."""
    def count(self, key: Key) -> int:
        """An upper bound on the key's count (counting and cuckoo)."""
    def add_if_absent(self, key: Key) -> bool:
        """Adds the key unless it may be present; whether it did."""
    def clear(self) -> None: ...
    def copy(self) -> Filter: ...
    def __len__(self) -> int: ...
    def __eq__(self, other: object) -> bool:
        """Whether ``other`` is a filter of the same bytes."""
    __hash__: None  # type: ignore[assignment]
    def __bytes__(self) -> bytes: ...
    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...
    def save(self, path: str | os.PathLike[str]) -> None: ...
    def __or__(self, other: Filter) -> Filter: ...
    def __and__(self, other: Filter) -> Filter: ...
    def __ior__(self, other: Filter) -> Self: ...
    def __iand__(self, other: Filter) -> Self: ...
    def union_update(self, other: Filter) -> None: ...
    def intersection_update(self, other: Filter) -> None: ...
    @property
    def variant(self) -> str: ...
    @property
    def capacity(self) -> int: ...
    @property
    def fp(self) -> float: ...
    @property
    def key(self) -> bytes: ...
    @property
    def hash(self) -> str: ...
    def info(self) -> FilterInfo: ...

def from_bytes(data: bytes | bytearray | memoryview) -> Filter: ...
def load(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> Filter: ...
def variants() -> list[VariantInfo]: ...
def design(n: int, fp: float, variants: list[str] | None = None) -> list[dict[str, Any]]: ...
def compare(
    n: int = 100_000,
    fp: float = 0.01,
    *,
    queries: int | None = None,
    seed: int = 1,
    variants: list[str] | None = None,
    hash: str | None = None,
) -> list[dict[str, Any]]: ...

SparkKey = int | str | bytes | bytearray | memoryview

class SparkFilter:
    """Apache Spark's BloomFilter: ``key in f`` answers as Spark's
    ``mightContain`` (an int as a long, a str as UTF-8, bytes as binary)."""

    def __init__(
        self, capacity: int, fp: float = 0.01, *, version: Literal[1, 2] = 2, seed: int = 0
    ) -> None: ...
    def add(self, key: SparkKey) -> None: ...
    def update(self, keys: Iterable[SparkKey]) -> None: ...
    def contains_many(self, keys: Iterable[SparkKey]) -> list[bool]: ...
    def __contains__(self, key: SparkKey) -> bool: ...
    def to_spark(self) -> bytes: ...
    def __bytes__(self) -> bytes: ...
    def union_update(self, other: SparkFilter) -> None: ...
    def __or__(self, other: SparkFilter) -> SparkFilter: ...
    def __ior__(self, other: SparkFilter) -> Self: ...
    def copy(self) -> SparkFilter: ...
    @property
    def variant(self) -> Literal["spark"]: ...
    @property
    def version(self) -> int: ...
    @property
    def hashes(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def bits(self) -> int: ...
    def info(self) -> dict[str, Any]: ...

def from_spark(data: bytes | bytearray | memoryview) -> SparkFilter: ...
