"""bench/workers.py keeps working: a ``--quick`` run with 1 and 2 server processes on a
temporary SQLite file finishes, exits 0 and ends with its line of JSON, every page answered
by both, with either load generator. Timings are never asserted (docs/performance.md has
the numbers)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support import bench_module

#: Debian's wrk (CI installs it, as it does Chromium).
NEEDS_WRK = pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed")


def _quick(tmp_path: Path, capsys: Any, load: str, seconds: str) -> dict[str, Any]:
    argv = ["--quick", "--sizes", "2", "--seconds", seconds, "--warm", "0", "--connections", "2"]
    code = bench_module("workers").main(
        [*argv, "--load", load, "--cache-dir", str(tmp_path / "cache")]
    )
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 0, out
    assert report["load"] == load
    return report


def test_a_quick_run_serves_every_page_with_one_and_two_processes(tmp_path: Path, capsys) -> None:
    workers = bench_module("workers")
    report = _quick(tmp_path, capsys, "python", "0.3")
    assert report["database"] == "sqlite" and report["workers"] == [1, 2]
    assert report["failures"] == {}
    size = report["by_size"]["2"]
    for n in ("1", "2"):
        assert set(size["by_workers"][n]) == {"floor", *workers.READS}
        for figures in size["by_workers"][n].values():
            assert figures["requests"] > 0 and "load_average" in figures
    assert set(report["ratio"]["2"]) == {"floor", *workers.READS}
    assert report["targets"] == {}  # the target is PostgreSQL's


@NEEDS_WRK
def test_wrk_sends_the_load_with_one_and_two_processes(tmp_path: Path, capsys) -> None:
    report = _quick(tmp_path, capsys, "wrk", "1")
    assert report["failures"] == {}
    for n in ("1", "2"):
        for figures in report["by_size"]["2"]["by_workers"][n].values():
            assert figures["requests"] > 0 and figures["p95_ms"] >= figures["p50_ms"] > 0


@NEEDS_WRK
def test_wrk_answers_that_are_not_200_are_failures(tmp_path: Path) -> None:
    """An answer other than 200 is a failure, not a request answered (wrk itself counts
    a 3xx as answered: the script counts by status)."""
    workers = bench_module("workers")
    args = workers._arguments(["--load", "wrk", "--seconds", "1", "--connections", "2"])
    args.wrk_script = str(tmp_path / "answers.lua")
    with workers.serving(workers.floor_server(1, 2, tmp_path / "floor.log")) as floor:
        tally = workers.wrk(floor.port, ("GET", "/nowhere", None, {}), args)
        assert tally.requests == 0 and sum(tally.failures.values()) > 0
        found = workers.wrk(floor.port, ("GET", "/", None, {}), args)
        assert found.requests > 0 and not found.failures
