"""bench/parts.py keeps working: at a tiny size every part of a finishing POST is timed,
none more than the request it is part of, and the app's functions are given back after.
Timings are never asserted (docs/performance.md has the numbers)."""

from __future__ import annotations

import gc
import importlib
import json
from pathlib import Path

import pytest
from support import bench_module


def _run(argv: list[str], capsys) -> dict:
    assert bench_module("parts").main(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def _finish_is_timed_part_by_part(report: dict) -> None:
    parts = bench_module("parts")
    found = report["parts"]
    names = [parts.REQUEST, parts.GC, parts.SQL, *(name for name, *_where in parts.PARTS)]
    assert set(found) == set(names)
    whole = found[parts.REQUEST]["ms"]
    for name, *_where in parts.PARTS:  # a finish runs every part
        assert 0 < found[name]["ms"] <= whole, name
    assert found["the save's lines, tallies, ratings"]["ms"] <= found["the save"]["ms"]
    assert found[parts.SQL]["ms"] > 0


def test_a_tiny_run_times_every_part_of_a_finish(tmp_path: Path, capsys) -> None:
    argv = ["--size", "2", "--requests", "3", "--cache-dir", str(tmp_path / "cache")]
    report = _run(argv, capsys)
    assert report["database"] == "sqlite" and report["requests"] == 3
    _finish_is_timed_part_by_part(report)
    parts = bench_module("parts")
    for _name, module, attribute in parts.PARTS:  # each function is its own again
        function = getattr(importlib.import_module(module), attribute)
        assert function.__name__ == attribute
    assert gc.get_freeze_count() == 0  # the suite's objects are in the collector's reach


def test_on_postgresql_too(dburi: str | None, tmp_path: Path, capsys) -> None:
    if not (dburi or "").startswith("postgresql"):
        pytest.skip("the suite runs on SQLite: no PostgreSQL server to time on")
    argv = ["--size", "2", "--requests", "3", "--no-cache", "--database-url", dburi]
    report = _run(argv, capsys)
    assert report["database"] == "postgresql"
    _finish_is_timed_part_by_part(report)


@pytest.mark.parametrize(
    "argv",
    [["--requests", "0"], ["--size", "0"], ["--kind", "page"], ["--database-url", "sqlite://"]],
    ids=["requests", "size", "kind", "sqlite-url"],
)
def test_arguments_it_cannot_use_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        bench_module("parts").main(argv)
    assert refused.value.code == 2
