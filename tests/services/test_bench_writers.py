"""bench/writers.py keeps working: a small run with two thread counts on a temporary
SQLite file finishes, exits 0 and ends with its line of JSON, every POST answered and the
server's CPU a request counted. Timings are never asserted (docs/performance.md has them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import bench_module


def test_a_small_run_saves_every_kind_with_each_setting(tmp_path: Path, capsys) -> None:
    argv = ["--size", "2", "--posts", "6", "--seconds", "0.3", "--connections", "2"]
    argv += ["--threads", "1,2", "--rounds", "2", "--kinds", "deal_post,finish_late_post"]
    code = bench_module("writers").main([*argv, "--cache-dir", str(tmp_path / "cache")])
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 0, out
    assert report["database"] == "sqlite" and set(report["settings"]) == {"1x1", "2x1"}
    for rounds in report["rounds"].values():
        assert len(rounds) == 2  # ABBA: each setting twice
        for figures in rounds:
            assert set(figures) == {"deal_post", "finish_late_post"}
            for kind in figures.values():
                assert kind["requests"] > 0 and kind["failures"] == 0 and kind["failed"] == {}
                assert kind["server_cpu_ms"] > 0 and "postgres_cpu_ms" not in kind


@pytest.mark.parametrize(
    "argv",
    [["--kinds", "finish_night_post"], ["--threads", "0"], ["--workers", "two"]],
    ids=["kind", "threads", "workers"],
)
def test_arguments_it_cannot_use_are_refused(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as refused:
        bench_module("writers").main(argv)
    assert refused.value.code == 2
