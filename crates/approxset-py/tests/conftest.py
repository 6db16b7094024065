"""Shared helpers of the approxset Python tests."""

import math
import os
import pathlib
import shutil
import subprocess

import pytest

import approxset

# z such that P(Z > z) < 1e-6 for a standard normal Z (one-sided), as the
# Rust suite's tests/common/mod.rs.
Z_ONE_SIDED_1E6 = 4.76

REPO = pathlib.Path(__file__).resolve().parents[3]



def binomial_upper(queries, p, z=Z_ONE_SIDED_1E6):
    """The one-sided upper bound on a binomial count: q*p + z*sqrt(q*p*(1-p))."""
    return queries * p + z * math.sqrt(queries * p * (1 - p))


def variant_info():
    """Every variant's dict of approxset.variants(), by name."""
    return {v["name"]: v for v in approxset.variants()}


def build(variant, keys, fp=0.01, seed=1, **options):
    """A filter of ``variant`` holding ``keys``: added one at a time, or
    built at once for a static variant."""
    if variant_info()[variant]["static"]:
        return approxset.Filter.from_keys(variant, keys, fp, seed=seed, **options)
    f = approxset.Filter(variant, max(len(keys), 1), fp, seed=seed, **options)
    for k in keys:
        f.add(k)
    return f


@pytest.fixture(scope="session")
def cli():
    """The path of the approxset CLI: $APPROXSET_CLI, or target/debug/approxset
    of this repository (built with cargo when missing)."""
    path = os.environ.get("APPROXSET_CLI")
    if path:
        return pathlib.Path(path)
    path = REPO / "target" / "debug" / "approxset"
    if not path.exists():
        cargo = shutil.which("cargo")
        if cargo is None:
            pytest.skip("no approxset CLI and no cargo to build it (set APPROXSET_CLI)")
        subprocess.run([cargo, "build", "-q", "-p", "approxset-cli"], cwd=REPO, check=True)
    return path
