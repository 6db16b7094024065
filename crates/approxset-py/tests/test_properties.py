"""Hypothesis properties on every variant: no false negative for any key
added, and the false-positive rate under its target."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import approxset
from conftest import binomial_upper, build, variant_info

INFO = variant_info()

# Fixed examples (derandomize): CI sees the inputs a developer sees.
PROPERTY = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def encoded(key):
    """The bytes a key hashes as (so that keys equal as bytes count once)."""
    if isinstance(key, str):
        return key.encode()
    if isinstance(key, int):
        return key.to_bytes(8, "little", signed=key < 0)
    return bytes(key)


KEYS = st.one_of(
    st.text(max_size=20).filter(lambda s: not any(0xD800 <= ord(c) <= 0xDFFF for c in s)),
    st.binary(max_size=20),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
)


@pytest.mark.parametrize("variant", approxset.VARIANTS)
@PROPERTY
@given(
    keys=st.lists(KEYS, max_size=200, unique_by=encoded),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    fp=st.sampled_from([0.1, 0.01, 0.001]),
)
def test_no_false_negatives(variant, keys, seed, fp):
    f = build(variant, keys, fp=fp, seed=seed)
    assert all(k in f for k in keys)
    assert all(f.contains_many(keys))
    # And after the round trip through bytes.
    g = approxset.from_bytes(bytes(f))
    assert all(k in g for k in keys)
    if INFO[variant]["deletable"] and keys:
        # Removing half keeps the other half.
        for k in keys[::2]:
            f.remove(k)
        assert all(k in f for k in keys[1::2])


@pytest.mark.parametrize("variant", approxset.VARIANTS)
@pytest.mark.parametrize("fp", [0.01, 0.001])
def test_false_positive_rate_is_under_target(variant, fp):
    n, q = 10_000, 200_000
    members = [f"member-{i}" for i in range(n)]
    others = [f"nonmember-{i}" for i in range(q)]
    f = build(variant, members, fp=fp, seed=42)
    assert all(f.contains_many(members))
    hits = sum(f.contains_many(others))
    assert hits <= binomial_upper(q, fp), f"{variant}: {hits} of {q} at target {fp}"
