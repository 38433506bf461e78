"""bench/downloads.py keeps working: a tiny run on a temporary SQLite file serves the
page from two connections while a download of the whole history is made, exits 0 and
ends with its line of JSON. Timings are never asserted (docs/performance.md has them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import bench_module


def test_a_tiny_run_serves_pages_beside_a_download(tmp_path: Path, capsys) -> None:
    argv = ["--size", "3", "--workers", "2", "--connections", "2", "--downloads", "1"]
    argv += ["--seconds", "1", "--start", "0.2", "--cache-dir", str(tmp_path / "cache")]
    code = bench_module("downloads").main(argv)
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 0, out
    assert report["database"] == "sqlite" and report["workers"] == 2
    assert report["threads"] == 1  # serve's default with several processes
    assert report["pages"] > 0 and report["failures"] == []
    (download,) = report["downloads"]
    assert download["bytes"] > 100  # the header and the three matches' deals


@pytest.mark.parametrize(
    "argv",
    [["--size", "0"], ["--threads", "0"], ["--seconds", "2", "--start", "3"]],
    ids=["size", "threads", "start"],
)
def test_arguments_it_cannot_use_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        bench_module("downloads").main(argv)
    assert refused.value.code == 2
