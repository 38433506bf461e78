"""bench/pages.py keeps working: its history builder and its report, at tiny sizes.

Timings are never asserted here (house rule: performance lives in bench/ as ratios);
these tests check that the script builds the histories, reaches every page and reports
numbers a reader can trust.
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from support import bench_module

from scorekeeper.extensions import db
from scorekeeper.models import Club, Match


def test_the_page_benchmark_reaches_every_page_at_both_history_sizes(app):
    pages = bench_module("pages")
    report = pages.run(app, small=2, large=4, repeat=1)
    assert (report.small, report.large, report.repeat) == (2, 4, 1)
    assert [row.name for row in report.rows] == [*pages.PAGES, *pages.BASELINES]
    for row in report.rows:
        for measure in (row.small, row.large):
            assert measure.status == 200, measure.url
            assert len(measure.seconds) == 1 and measure.seconds[0] > 0
            assert measure.median_ms > 0 and measure.size > 0
        assert row.ratio > 0
        assert row.baseline or row.small.queries > 0, f"{row.name} ran no SQL at all"
    club_pages = [row for row in report.rows if row.name != "home page" and not row.baseline]
    assert all(row.small.url != row.large.url for row in club_pages)
    assert pages.problems(report, max_ratio=float("inf")) == []  # same queries at 2 and 4


def test_each_club_has_its_history_and_tonight_s_tables(app):
    pages = bench_module("pages")
    pages.run(app, small=2, large=4, repeat=1)
    with app.app_context():
        counts = db.session.execute(
            select(Club.name, func.count(Match.id), func.sum(Match.finished.cast(db.Integer)))
            .join(Match, Match.club_id == Club.id)
            .group_by(Club.name)
            .order_by(func.count(Match.id))
        ).all()
    tonight = pages.TONIGHT
    assert [tuple(c[1:]) for c in counts] == [
        (2 + tonight, 2 + tonight - 1),
        (4 + tonight, 4 + tonight - 1),
    ]


def test_a_page_whose_queries_grow_or_whose_time_ratio_passes_the_limit_is_named():
    pages = bench_module("pages")

    def row(name, small_ms, large_ms, small_queries, large_queries, status=200):
        small = pages.Measure("/a", status, small_queries, 10, [small_ms / 1000])
        large = pages.Measure("/b", 200, large_queries, 10, [large_ms / 1000])
        return pages.Row(name, small, large)

    report = pages.Report(
        20,
        400,
        1,
        [
            row("flat", 2.0, 2.2, 5, 5),
            row("slow", 2.0, 8.0, 5, 5),
            row("chatty", 2.0, 2.0, 5, 405),
            row("broken", 2.0, 2.0, 5, 5, status=500),
        ],
    )
    found = pages.problems(report, max_ratio=3.0)
    assert len(found) == 3
    assert found[0].startswith("slow: 4.00x slower with 400 matches than with 20")
    assert found[1].startswith("chatty: 5 SQL queries with 20 matches but 405 with 400")
    assert found[2] == "broken: /a answered 500, not 200"
    assert pages.problems(report, max_ratio=5.0) == found[1:]


def test_the_benchmark_refuses_a_database_that_already_has_the_tables(app):
    pages = bench_module("pages")
    with pytest.raises(SystemExit, match="already has the scorekeeper's tables"):
        pages.bench_app(app.config["SQLALCHEMY_DATABASE_URI"])


@pytest.mark.parametrize(
    "arguments", [["--small", "400", "--large", "20"], ["--repeat", "0"], ["--max-ratio", "0"]]
)
def test_the_benchmark_refuses_sizes_and_limits_that_make_no_sense(arguments, capsys):
    pages = bench_module("pages")
    with pytest.raises(SystemExit) as stopped:
        pages.main(arguments)
    assert stopped.value.code == 2
    assert "must be" in capsys.readouterr().err


def test_the_wire_benchmark_weighs_every_page_in_every_encoding(app):
    wire = bench_module("wire")
    rows = wire.run(app, deals=1)
    assert [row.name for row in rows] == [
        "match page",
        "home page",
        "meld check",
        "service worker install",
    ]
    for row in rows[:3]:
        first, repeat = row.first, row.repeat
        assert first["br"].requests == first["identity"].requests >= 5, row.name
        assert 0 < first["br"].bytes < first["gzip"].bytes < first["identity"].bytes, row.name
        # a repeat visit asks only for the page, the manifest and the worker (304s)
        assert [s for _, s, _ in repeat["br"].files] == [200, 304, 304], row.name
    table = wire.format_table(rows)
    assert table.count("\n") == 2 + 2 * 3, table
    assert wire.problems(rows, first_budget=1, repeat_budget=1)  # a tiny budget is passed
    assert not wire.problems(rows, first_budget=1000, repeat_budget=1000)
