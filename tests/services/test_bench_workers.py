"""bench/workers.py keeps working: a ``--quick`` run with 1 and 2 server processes on a
temporary SQLite file finishes, exits 0 and ends with its line of JSON, every page answered
by both. Timings are never asserted (docs/performance.md has the numbers)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_quick_run_serves_every_page_with_one_and_two_processes(tmp_path: Path, capsys) -> None:
    if str(ROOT) not in sys.path:  # as the script imports it (``bench`` is not installed)
        sys.path.insert(0, str(ROOT))
    workers = importlib.import_module("bench.workers")
    argv = ["--quick", "--sizes", "2", "--seconds", "0.3", "--warm", "0", "--connections", "2"]
    code = workers.main([*argv, "--cache-dir", str(tmp_path / "cache")])
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 0, out
    assert report["database"] == "sqlite" and report["workers"] == [1, 2]
    assert report["failures"] == {}
    size = report["by_size"]["2"]
    for n in ("1", "2"):
        assert set(size["by_workers"][n]) == {"floor", *workers.READS}
        for figures in size["by_workers"][n].values():
            assert figures["requests"] > 0 and "load_average" in figures
    assert set(report["ratio"]["2"]) == {"floor", *workers.READS}
    assert report["targets"] == {}  # the target is PostgreSQL's
