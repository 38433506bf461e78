"""bench/compare.py keeps working: this checkout compared with itself at a tiny size on
temporary SQLite files finishes, exits 0 and ends with its line of JSON, every POST
answered. Timings are never asserted (docs/performance.md has them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import bench_module

ROOT = Path(__file__).resolve().parents[2]


def test_a_checkout_compared_with_itself_reports_both_sides(tmp_path: Path, capsys) -> None:
    argv = [str(ROOT), "--size", "2", "--requests", "3", "--block", "2"]
    argv += ["--kinds", "finish_post", "--cache-dir", str(tmp_path / "cache")]
    code = bench_module("compare").main(argv)
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 0, out
    assert report["database"] == "sqlite" and set(report["kinds"]) == {"finish_post"}
    figures = report["kinds"]["finish_post"]
    assert figures["requests"] == 3
    assert figures["base_ms"] > 0 and figures["head_ms"] > 0 and figures["ratio"] > 0


def test_on_postgresql_its_servers_cpu_is_reported_too(
    dburi: str | None, tmp_path: Path, capsys
) -> None:
    if not (dburi or "").startswith("postgresql"):
        pytest.skip("the suite runs on SQLite: no PostgreSQL server to compare on")
    argv = [str(ROOT), "--size", "2", "--requests", "20", "--block", "5", "--no-cache"]
    code = bench_module("compare").main([*argv, "--kinds", "finish_post", "--database-url", dburi])
    out = capsys.readouterr().out
    figures = json.loads(out.strip().splitlines()[-1])["kinds"]["finish_post"]
    assert code == 0, out
    # twenty finishes each: some 60 ms of the server's CPU, six of its clock's ticks
    assert figures["postgres_base_ms"] > 0 and figures["postgres_head_ms"] > 0
    assert figures["postgres_ratio"] > 0 and "PostgreSQL's CPU" in out


def test_a_servers_cpu_is_read_only_from_this_machines_processes() -> None:
    compare = bench_module("compare")
    assert compare._cpu_of(set()) == 0.0  # SQLite: no server processes
    assert compare._cpu_of({os.getpid()}) >= 0.0
    # a server elsewhere: its processes' ids name nothing here, and nothing is made up
    assert compare._cpu_of({2**22 + 12345}) is None


@pytest.mark.parametrize(
    "argv",
    [[], [str(ROOT), "--kinds", "page"], [str(ROOT), "--block", "0"], ["/nowhere"]],
    ids=["no-base", "kind", "block", "not-a-checkout"],
)
def test_arguments_it_cannot_use_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        bench_module("compare").main(argv)
    assert refused.value.code == 2
