"""bench/lock.py keeps working: at a tiny size each POST kind is found holding its club's
lock, for no longer than its statements and the rest add up to, with a ceiling that is
the inverse of the time held. Timings are never asserted (docs/performance.md has the
numbers)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from support import bench_module


def _run(argv: list[str], capsys) -> dict:
    assert bench_module("lock").main(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def _every_post_held_the_lock(report: dict, requests: int) -> None:
    lock = bench_module("lock")
    assert list(report["kinds"]) == list(lock.KINDS)
    for kind, found in report["kinds"].items():
        assert found["requests"] == requests, kind  # every POST took the lock, once
        assert found["held_ms"] > 0 and found["statements"] >= 1, kind
        assert 0 < found["statements_ms"] <= found["held_ms"], kind
        assert found["python_ms"] == pytest.approx(
            found["held_ms"] - found["statements_ms"], abs=0.002
        )
        assert found["ceiling_rps"] == pytest.approx(1000 / found["held_ms"], rel=0.01)
    finishes = report["kinds"]
    # a late night's finish rates the matches after it again under the lock: more
    # statements than tonight's, which only appends
    assert finishes["finish_late_post"]["statements"] > finishes["finish_post"]["statements"]


def test_a_tiny_run_times_the_lock_of_every_kind(tmp_path: Path, capsys) -> None:
    argv = ["--size", "2", "--requests", "3", "--cache-dir", str(tmp_path / "cache")]
    report = _run(argv, capsys)
    assert report["database"] == "sqlite" and report["requests"] == 3
    _every_post_held_the_lock(report, 3)


def test_on_postgresql_too(dburi: str | None, tmp_path: Path, capsys) -> None:
    if not (dburi or "").startswith("postgresql"):
        pytest.skip("the suite runs on SQLite: no PostgreSQL server to time on")
    argv = ["--size", "2", "--requests", "3", "--no-cache", "--database-url", dburi]
    report = _run([*argv, "--timeline"], capsys)
    assert report["database"] == "postgresql"
    _every_post_held_the_lock(report, 3)
    _each_step_while_held(report)


def _each_step_while_held(report: dict) -> None:
    """The timeline of each kind: its statements in order, the app's work between them,
    and the app's with the COMMIT last; as many statements as the kind ran."""
    lock = bench_module("lock")
    assert list(report["timelines"]) == list(report["kinds"])
    for kind, found in report["timelines"].items():
        steps = found["steps"]
        assert 1 <= found["requests"] <= 3, kind
        assert steps[0]["step"] not in (lock.APP, lock.APP_AND_COMMIT), kind  # the lock's
        assert steps[-1]["step"] == lock.APP_AND_COMMIT, kind
        statements = [s for s in steps if s["step"] not in (lock.APP, lock.APP_AND_COMMIT)]
        assert len(statements) == report["kinds"][kind]["statements"], kind
        assert all(step["ms"] >= 0 for step in steps), kind
        # never two of the app's steps in a row: each is the work before a statement
        names = [step["step"] for step in steps]
        assert all(not (a == b == lock.APP) for a, b in itertools.pairwise(names)), kind


def test_the_timeline_names_each_statement_held_in_order(tmp_path: Path, capsys) -> None:
    argv = ["--size", "2", "--requests", "3", "--cache-dir", str(tmp_path / "cache")]
    report = _run([*argv, "--kinds", "deal_post", "--timeline"], capsys)
    _each_step_while_held(report)
    steps = [step["step"] for step in report["timelines"]["deal_post"]["steps"]]
    # on SQLite the lock is the write lock: taken by BEGIN IMMEDIATE, and the deal's row
    # is written under it, the club's version moved last
    assert steps[0] == "BEGIN IMMEDIATE"
    inserted = next(i for i, name in enumerate(steps) if name.startswith("INSERT INTO deals "))
    moved = next(i for i, name in enumerate(steps) if name.startswith("UPDATE clubs SET"))
    assert 0 < inserted < moved < len(steps) - 1


def test_without_timeline_no_steps_are_reported(tmp_path: Path, capsys) -> None:
    argv = ["--size", "2", "--requests", "1", "--cache-dir", str(tmp_path / "cache")]
    assert "timelines" not in _run([*argv, "--kinds", "deal_post"], capsys)


@pytest.mark.parametrize(
    "argv",
    [
        ["--requests", "0"],
        ["--size", "0"],
        ["--kinds", "page"],
        ["--kinds", ""],
        ["--database-url", "sqlite://"],
    ],
    ids=["requests", "size", "kind", "no-kind", "sqlite-url"],
)
def test_arguments_it_cannot_use_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        bench_module("lock").main(argv)
    assert refused.value.code == 2
