"""Line charts as plain values for a server-made SVG (templates/clubs/_chart.html).

No script, no inline style: the template draws polylines from these coordinates and the
colours come from classes in static/css/clubs.css. Every chart carries its numbers as a
table too, the text alternative for screen readers and for anyone who wants the figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext as _

WIDTH, HEIGHT = 360, 200
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 28


@dataclass(frozen=True)
class Series:
    """One line: its label, its values and their SVG coordinates."""

    label: str
    values: tuple[float, ...]
    points: str  # "x,y x,y ..." for <polyline points>
    dots: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Chart:
    """A chart ready to draw: series, axis ticks and the text alternative."""

    title: str
    summary: str
    x_labels: tuple[str, ...]
    series: tuple[Series, ...]
    y_ticks: tuple[tuple[float, str], ...]  # (y coordinate, label)
    x_ticks: tuple[tuple[float, str], ...]
    zero_y: float | None
    width: int = WIDTH
    height: int = HEIGHT

    @property
    def rows(self) -> list[tuple[str, list[float]]]:
        """The table of the text alternative: one row per x label, a value per series."""
        return [
            (label, [s.values[i] for s in self.series]) for i, label in enumerate(self.x_labels)
        ]


def nice_ticks(low: float, high: float, count: int = 4) -> list[float]:
    """Round tick values covering [low, high] (1, 2 or 5 times a power of ten apart)."""
    if high == low:
        high, low = high + 1, low - 1
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value < high + step:
        ticks.append(round(value, 6))
        if value >= high:
            break
        value += step
    return ticks


def line_chart(
    title: str, x_labels: Sequence[str], series: Sequence[tuple[str, Sequence[float]]], summary: str
) -> Chart | None:
    """Lay out ``series`` (each with one value per x label); None when there is nothing."""
    if not x_labels or not series:
        return None
    values = [v for _label, vs in series for v in vs]
    ticks = nice_ticks(min(values), max(values))
    low, high = ticks[0], ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(len(x_labels) - 1, 1)

    def x(i: int) -> float:
        return _place(LEFT + i * step)

    def y(v: float) -> float:
        return _place(TOP + plot_h * (high - v) / (high - low))

    laid = []
    for label, vs in series:
        dots = tuple((x(i), y(v)) for i, v in enumerate(vs))
        laid.append(Series(label, tuple(vs), " ".join(f"{a},{b}" for a, b in dots), dots))
    every = max(1, math.ceil(len(x_labels) / 8))  # at most about 8 labels on a phone
    x_ticks = tuple((x(i), lab) for i, lab in enumerate(x_labels) if i % every == 0)
    return Chart(
        title=title,
        summary=summary,
        x_labels=tuple(x_labels),
        series=tuple(laid),
        y_ticks=tuple((y(t), _short(t)) for t in ticks),
        x_ticks=x_ticks,
        zero_y=y(0) if low < 0 < high else None,
    )


def _place(value: float) -> float:
    """A coordinate to a tenth, written without ".0" when it is whole (``48``, not
    ``48.0``: the page's weight, issue 13)."""
    tenths = round(value, 1)
    return int(tenths) if tenths.is_integer() else tenths


def _short(value: float) -> str:
    """Tick labels: ``1500`` -> ``"1500"``, ``2.5`` -> ``"2.5"``, ``12000`` -> ``"12k"``."""
    if abs(value) >= 10000 and value % 1000 == 0:
        return f"{int(value // 1000)}k"
    return f"{value:g}"


def running_totals_chart(game: Any) -> Chart | None:
    """Each side's running total after every deal of a match (from 0 before deal 1)."""
    rows = game.running_totals()
    if not rows:
        return None
    labels = [side.label for side in game.sides]
    series = [(label, [0, *(row[i] for row in rows)]) for i, label in enumerate(labels)]
    x_labels = ["0", *(str(n) for n in range(1, len(rows) + 1))]
    summary = "; ".join(f"{label}: {rows[-1][i]}" for i, label in enumerate(labels))
    return line_chart(_("Running totals by deal"), x_labels, series, summary)
