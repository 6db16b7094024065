"""Every ```python block of README.md and docs/*.md runs as written.

Each snippet runs on its own (a fresh namespace, a fresh temporary working
directory), so each must be self-contained: a reader pastes one, not the
page.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)


def snippets():
    """(id, code) for each ```python block of the README and the docs."""
    files = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    found = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(pytest.param(match.group(1), id=f"{path.relative_to(ROOT)}:{line}"))
    return found


def test_the_docs_have_python_snippets():
    # The README's quick start at least: an empty list would pass vacuously.
    assert any("README.md" in p.id for p in snippets())


@pytest.mark.parametrize("code", snippets())
def test_snippet_runs(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "<snippet>", "exec"), {"__name__": "__snippet__"})
