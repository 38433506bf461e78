"""bench/run.py keeps working: a ``--quick`` run on a temporary SQLite file finishes,
exits 0 and ends with its line of JSON. Timings are never asserted (house rule:
performance lives in bench/ as ratios; docs/performance.md has the numbers)."""

from __future__ import annotations

import json

import pytest
from support import bench_module


@pytest.mark.parametrize("workers", [1, 2])
def test_a_quick_run_serves_every_request_and_ends_with_one_line_of_json(tmp_path, capsys, workers):
    """With one server process, as serve runs by default, and with two (``--workers``:
    the floor and the app both)."""
    run = bench_module("run")
    code = run.main(
        [
            "--quick",
            "--workers",
            str(workers),
            "--sizes",
            "2,4",
            "--seconds",
            "0.3",
            "--connections",
            "2",
            "--posts",
            "6",
            "--repeat",
            "2",
            "--cache-dir",
            str(tmp_path / "cache"),
        ]
    )
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 0, out
    assert report["database"] == "sqlite" and report["sizes"] == [2, 4]
    assert report["workers"] == workers
    assert report["failures"] == {}
    keys = {"floor", *run.GETS, *run.POSTS}
    for size in ("2", "4"):
        assert set(report["by_size"][size]) == keys
        for key in keys - {"floor"}:
            figures = report["by_size"][size][key]
            assert figures["requests"] > 0, key
            for name in ("rps_share", "p50_x", "p95_x", "in_process_ms", "statements"):
                assert name in figures, (key, name)
    assert set(report["growth"]["4"]) == keys - {"floor"} | {"floor_rps", "floor_in_process"}
    small, large = report["by_size"]["2"], report["by_size"]["4"]
    for key in keys - {"floor"}:  # in-process growth is of the figure over its floor
        grown = report["growth"]["4"][key]
        assert grown["in_process"] == run.ratio(
            large[key]["in_process_x"], small[key]["in_process_x"]
        ), key
        assert grown["in_process_ms"] == run.ratio(
            large[key]["in_process_ms"], small[key]["in_process_ms"]
        ), key
    # the whole history is counted by its first byte and its cost a row, not by its total
    for size, rows in (("2", small["matches_csv"]["rows"]), ("4", large["matches_csv"]["rows"])):
        figures = report["by_size"][size]["matches_csv"]
        assert rows > 0 and figures["first_byte_ms"] <= figures["in_process_ms"], size
        assert figures["row_us"] == round(figures["in_process_ms"] * 1000 / rows, 2), size
    assert large["matches_csv"]["rows"] > small["matches_csv"]["rows"]
    grown = report["growth"]["4"]["matches_csv"]
    assert {"first_byte", "row"} <= set(grown)
    assert "matches_csv: growth" not in report["targets"]
    assert report["targets"]["matches_csv: first byte growth"]["value"] == grown["first_byte"]
    assert report["targets"]["matches_csv: growth a row"]["value"] == grown["row"]
    assert report["targets"] and all("met" in t for t in report["targets"].values())
    assert set(report["builds"]) == {"2", "4"}


def test_the_statements_script_names_each_statement_of_a_post_at_both_sizes(tmp_path, capsys):
    statements = bench_module("statements")
    cache = str(tmp_path / "cache")
    arguments = ["--sizes", "2,4", "--requests", "2", "--kind", "finish_late_post"]
    code = statements.main([*arguments, "--cache-dir", cache, "--top", "3"])
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 0, out
    assert report["kind"] == "finish_late_post" and set(report["ms"]) == {"2", "4"}
    assert report["statements"]["2"] > 20 and report["statements"]["4"] > 20
    assert len(report["grew_most"]) == 3
    assert all(g["statement"] and len(g["ms"]) == 2 for g in report["grew_most"])
    assert "grew the most" in out and "slowest @4" in out


def test_the_in_process_requests_run_on_the_club_as_built_not_after_the_served_ones(
    tmp_path, monkeypatch
):
    """The served POSTs finish hundreds of matches tonight; after them, every
    out-of-order finish has more than ``ratings.IN_REQUEST`` matches after it and would
    only mark the ratings as updating, where a served one replays them in the request.
    So the in-process requests get a copy of the club of their own, as built: none of
    the served phase's matches is in it, and its ratings are not marked as updating."""
    run = bench_module("run")
    from sqlalchemy import create_engine, text

    served_ids: list[str] = []
    seen: list[tuple[int, list]] = []
    real_served, real_in_process = run.served, run.in_process

    def served(built, prepared, args, work):
        served_ids.extend(i for ids in prepared.served.values() for i in ids)
        return real_served(built, prepared, args, work)

    def in_process(built, prepared, args):
        engine = create_engine(built.uri)
        with engine.connect() as c:
            ids = [i for (i,) in c.execute(text("SELECT public_id FROM matches"))]
            stale = c.execute(text("SELECT ratings_stale_on FROM clubs")).scalars().all()
        engine.dispose()
        seen.append((len(set(ids) & set(served_ids)), stale))
        assert prepared.served == {kind: [] for kind in run.PREPARED}
        return real_in_process(built, prepared, args)

    monkeypatch.setattr(run, "served", served)
    monkeypatch.setattr(run, "in_process", in_process)
    arguments = ["--quick", "--sizes", "2", "--seconds", "0.2", "--connections", "2"]
    arguments += ["--posts", "3", "--repeat", "2", "--cache-dir", str(tmp_path / "cache")]
    assert run.main(arguments) == 0
    assert served_ids and seen == [(0, [None])]
