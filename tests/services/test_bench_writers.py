"""bench/writers.py keeps working: a small run with two thread counts on a temporary
SQLite file finishes, exits 0 and ends with its line of JSON, every POST answered and the
server's CPU a request counted. Timings are never asserted (docs/performance.md has them)."""

from __future__ import annotations

import json
import os
import subprocess
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


def test_postgresqls_cpu_counts_each_server_process_once(dburi: str | None) -> None:
    psycopg = pytest.importorskip("psycopg")
    writers = bench_module("writers")
    try:  # a connection whose server process has used some CPU, open while counted
        busy = psycopg.connect(_postgres(dburi), connect_timeout=3)
    except psycopg.OperationalError:
        pytest.skip("no PostgreSQL server to count")
    with busy:
        for _ in range(50):  # until its process has used a fifth of a second, whatever speed
            busy.execute("SELECT count(*) FROM generate_series(1, 2000000)").fetchone()
            if _own_cpu(busy.info.backend_pid) >= 0.2:
                break
        found = subprocess.run(["pgrep", "-x", "postgres"], capture_output=True, text=True)
        pids = [int(pid) for pid in found.stdout.split()]
        alone = sum(_own_cpu(pid) for pid in pids)
        counted = writers.postgres_cpu()
        used = _own_cpu(busy.info.backend_pid)
    assert used >= 0.2  # counted twice, it would show
    # a process may start, end or tick meanwhile: a little leeway, less than ``used``
    assert abs(counted - alone) <= 0.05


def _own_cpu(pid: int) -> float:
    """The CPU seconds of the process alone, not its children (0.0: gone meanwhile)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _postgres(dburi: str | None) -> str:
    """The suite's PostgreSQL database, or the CI machine's server (``postgres``)."""
    if dburi and dburi.startswith("postgresql"):
        return dburi.replace("postgresql+psycopg://", "postgresql://", 1)
    return "postgresql://postgres@127.0.0.1:5432/postgres"
