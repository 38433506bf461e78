"""The clubs area: clubs, standings, seasons and settings, CSV exports.

Players (search, add, their page) live in ``players.py`` and club matches (new match,
club night) in ``nights.py``; both add their routes to this blueprint.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, g, redirect, request, url_for
from flask_login import current_user

from ...models import Club, Season
from ...services import clubs, exports, memberships, standings
from .. import authz, background, page_cache
from ..actor import current_actor
from ..rendering import invalid_status, render, wants_fragment
from . import forms

bp = Blueprint("clubs", __name__)
bp.add_app_template_filter(standings.percent, "percent")
bp.add_app_template_filter(standings.one_decimal, "one_decimal")


def club_or_404(public_id: str) -> Club:
    """The club of the URL (as the authorization check found it), or 404."""
    found = g.get("club")
    if found is not None and found.public_id == public_id:
        return found  # type: ignore[no-any-return]
    club = clubs.get_club(public_id)
    if club is None:
        abort(404)
    return club


def season_of_request(club: Club) -> Season | None:
    """The season chosen with ``?season=``; none means all-time."""
    return clubs.get_season(club, request.args.get("season"))


@bp.get("/clubs")
@authz.anyone
def index() -> Response:
    """Every club, and a form to start one."""
    return _index_page(forms.ClubForm())


def _index_page(form: forms.ClubForm, status: int = 200) -> Response:
    mine, public = memberships.visible_clubs(authz.account())
    return render(
        "clubs/index.html", "clubs/index.html", status, mine=mine, public=public, form=form
    )


@bp.post("/clubs")
@authz.signed_in
def create() -> Response:
    """Start a club."""
    form = forms.ClubForm()
    if form.validate():
        club = clubs.create_club(
            form.name.data,
            form.default_rules.data,
            form.min_games.data,
            form.visibility.data,
            owner=current_user,  # who starts a club owns it
            actor=current_actor(),
        )
        return redirect(url_for(".show", club_id=club.public_id), 303)
    return _index_page(form, invalid_status())


@bp.get("/c/<club_id>")
@authz.club("read")
def show(club_id: str) -> Response:
    """The club's standings (a season or all-time; players or partnerships; sortable)."""
    club = club_or_404(club_id)  # read first: its data version keys the kept body
    if club.ratings_updating:
        background.catch_up_later(club.id)

    def context() -> dict[str, Any]:
        season = season_of_request(club)
        view = "partnerships" if request.args.get("view") == "partnerships" else "players"
        table = standings.standings(
            club.id,
            club.min_games,
            season.id if season else None,
            partnerships=view == "partnerships",
            sort=request.args.get("sort", ""),
        )
        return {
            "club": club,
            "season": season,
            "seasons": club.seasons,
            "view": view,
            "table": table,
            "recent": clubs.recent_matches(club, 10),
        }

    if wants_fragment():  # the filter's htmx answer: the table alone
        return render("clubs/show.html", "clubs/_standings.html", **context())
    return page_cache.page(
        ("standings", club.id),
        club.data_version,
        "clubs/_show_body.html",
        context,
        lambda _title, body: render(
            "clubs/show.html", "clubs/_standings.html", club=club, body=body
        ),
    )


@bp.get("/c/<club_id>/standings.csv")
@authz.club("read")
def standings_csv(club_id: str) -> Response:
    """The standings as a spreadsheet file."""
    club = club_or_404(club_id)
    season = season_of_request(club)
    partnerships = request.args.get("view") == "partnerships"
    table = standings.standings(
        club.id, club.min_games, season.id if season else None, partnerships=partnerships
    )
    return exports.csv_response(exports.standings_rows(table), f"standings-{club.public_id}.csv")


@bp.get("/c/<club_id>/matches.csv")
@authz.club("read")
def matches_csv(club_id: str) -> Response:
    """Every deal of the club's matches: a row per side per deal, entries and scores,
    streamed as it is read (a club's whole history is tens of thousands of rows)."""
    club = club_or_404(club_id)
    season = season_of_request(club)
    chunks = exports.history_csv(club.id, season.id if season else None)
    return exports.csv_stream(chunks, f"matches-{club.public_id}.csv")


@bp.get("/c/<club_id>/settings")
@authz.club("owner")
def settings(club_id: str) -> Response:
    """The club's name, rules, ranking minimum and seasons."""
    club = club_or_404(club_id)
    form = forms.ClubForm(obj=club)
    return _settings_page(club, form, forms.SeasonForm(formdata=None))


def _settings_page(
    club: Club, form: forms.ClubForm, season_form: forms.SeasonForm, status: int = 200
) -> Response:
    return render(
        "clubs/settings.html",
        "clubs/settings.html",
        status,
        club=club,
        form=form,
        season_form=season_form,
    )


@bp.post("/c/<club_id>/settings")
@authz.club("owner")
def save_settings(club_id: str) -> Response:
    """Save the club's settings."""
    club = club_or_404(club_id)
    form = forms.ClubForm()
    if form.validate():
        clubs.update_settings(
            club,
            form.name.data,
            form.default_rules.data,
            form.min_games.data,
            form.visibility.data,
            actor=current_actor(),
        )
        return redirect(url_for(".show", club_id=club.public_id), 303)
    return _settings_page(club, form, forms.SeasonForm(formdata=None), invalid_status())


@bp.post("/c/<club_id>/seasons")
@authz.club("owner")
def add_season(club_id: str) -> Response:
    """Add a season; matches already played in its dates join it."""
    club = club_or_404(club_id)
    season_form = forms.SeasonForm()
    if season_form.validate():
        try:
            clubs.add_season(
                club,
                season_form.name.data,
                season_form.starts_on.data,
                season_form.ends_on.data,
                actor=current_actor(),
            )
        except clubs.ClubError as error:
            forms.apply_problems(season_form, error.problems)
        else:
            return redirect(url_for(".settings", club_id=club.public_id), 303)
    return _settings_page(
        club, forms.ClubForm(formdata=None, obj=club), season_form, invalid_status()
    )


from . import log, members, nights, players  # noqa: E402,F401  (they add routes to bp)
