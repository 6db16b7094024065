"""Parquet split-block Bloom filters checked against an engine that is not
the ``parquet`` crate: DuckDB writes a Parquet file (dictionary-encoded
VARCHAR, BIGINT and INTEGER columns, three row groups, so it writes a
split-block filter per column chunk), and ``approxset query --parquet``
answers every probe exactly as DuckDB's ``parquet_bloom_probe`` does."""

import json
import subprocess

import pytest

duckdb = pytest.importorskip("duckdb")

ROWS = 300_000
GROUP = 100_000
REPEAT = 20  # each value on 20 consecutive rows: dictionary-encoded


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("duckdb") / "t.parquet"
    con = duckdb.connect()
    con.execute(
        f"""COPY (
            SELECT 's-' || (i // {REPEAT}) || '-ж' AS s,
                   (i // {REPEAT})::BIGINT * 1000003 - 5000000000 AS b,
                   ((i // {REPEAT}) * 7 - 20000)::INTEGER AS n
            FROM range({ROWS}) t(i)
        ) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE {GROUP})"""
    )
    meta = con.execute(
        f"SELECT row_group_id, path_in_schema, bloom_filter_length "
        f"FROM parquet_metadata('{path}')"
    ).fetchall()
    # Three row groups, each column with a bloom filter.
    assert len({r[0] for r in meta}) == 3
    assert all(r[2] and r[2] > 0 for r in meta), meta
    return path, con


def values(column, kind):
    """Probes of ``column``: a member of every row group and of none."""
    groups = ROWS // REPEAT  # distinct values
    members = list(range(0, groups, 97))
    others = list(range(groups, groups + 400))
    out = []
    for j in members + others:
        if column == "s":
            out.append(f"s-{j}-ж")
        elif column == "b":
            out.append(j * 1000003 - 5000000000)
        else:
            out.append(j * 7 - 20000)
    return out


def duckdb_answers(con, path, column, probes):
    """For each probe, whether each row group may hold it (not excluded)."""
    answers = []
    for v in probes:
        rows = con.execute(
            "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?) "
            "ORDER BY row_group_id",
            [str(path), column, v],
        ).fetchall()
        answers.append([not excluded for _, excluded in rows])
    return answers


def cli_answers(cli, path, column, probes):
    stdin = "".join(f"{v}\n" for v in probes).encode()
    out = subprocess.run(
        [str(cli), "query", "--json", "--parquet", str(path), "--column", column],
        input=stdin,
        capture_output=True,
        check=False,
    )
    if out.returncode == 2 and b"--parquet" in out.stderr:
        pytest.skip("this approxset CLI was built without the parquet feature")
    assert out.returncode == 0, out.stderr.decode()
    rows = json.loads(out.stdout)
    assert [r["key"] for r in rows] == [str(v) for v in probes]
    for r in rows:
        assert all(g["bloom_filter"] for g in r["row_groups"])
    return [[g["present"] for g in r["row_groups"]] for r in rows]


@pytest.mark.parametrize("column", ["s", "b", "n"])
def test_cli_answers_as_duckdb(cli, parquet_file, column):
    path, con = parquet_file
    probes = values(column, None)
    theirs = duckdb_answers(con, path, column, probes)
    ours = cli_answers(cli, path, column, probes)
    assert ours == theirs
    # Each member is in exactly one row group: the filters are not all-yes.
    excluded = sum(not p for row in ours for p in row)
    assert excluded > len(probes)
