"""The server-made chart's coordinates (services/charts.py)."""

from __future__ import annotations

from scorekeeper.services.charts import line_chart


def test_coordinates_are_kept_to_a_tenth_and_a_whole_one_is_written_without_a_point() -> None:
    chart = line_chart(
        "Totals", ["0", "1", "2"], [("A", [0, 3990, 7980]), ("B", [0, 510, 1020])], ""
    )
    assert chart is not None
    a, b = chart.series
    assert a.points == "48,172 198,92.2 348,12.4"
    assert b.points == "48,172 198,161.8 348,151.6"
    assert a.dots == ((48, 172), (198, 92.2), (348, 12.4))
    # every coordinate is either whole (an int, written "48") or has its tenth
    coordinates = [c for s in chart.series for dot in s.dots for c in dot]
    coordinates += [y for y, _label in chart.y_ticks] + [x for x, _label in chart.x_ticks]
    for c in coordinates:
        assert isinstance(c, int) or str(c) == f"{c:.1f}", c
    assert all(isinstance(x, int) for x, _label in chart.x_ticks)
