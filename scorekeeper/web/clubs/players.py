"""Club players: search as you type (a plain GET), add one, and each player's page."""

from __future__ import annotations

from typing import Any

from flask import Response, abort, redirect, request, url_for

from ...services import clubs
from ...services import players as profiles
from .. import authz, background, page_cache
from ..rendering import invalid_status, render, wants_fragment
from . import forms
from .views import bp, club_or_404, season_of_request


@bp.get("/c/<club_id>/players")
@authz.club("read")
def players(club_id: str) -> Response:
    """The club's players, filtered by ``?q=``; htmx gets the matching options only."""
    club = club_or_404(club_id)
    # The seat fields of the new-match form send their own name: any side_* value is the text.
    typed = (v for k, v in request.args.items() if k.startswith("side_"))
    text = (request.args.get("q") or next(typed, ""))[:40]
    found = clubs.search_players(club, text, limit=20 if wants_fragment() else 500)
    template = (
        "clubs/_player_options.html"
        if request.args.get("as") == "options"
        else ("clubs/_player_list.html")
    )
    return render(
        "clubs/players.html", template, club=club, players=found, q=text, form=forms.PlayerForm()
    )


@bp.post("/c/<club_id>/players")
@authz.club("scorer")
def add_player(club_id: str) -> Response:
    """Add a player to the club."""
    club = club_or_404(club_id)
    form = forms.PlayerForm()
    if form.validate():
        try:
            clubs.add_player(club, form.name.data)
        except clubs.ClubError as error:
            forms.apply_problems(form, error.problems)
        else:
            return redirect(url_for(".players", club_id=club.public_id), 303)
    found = clubs.search_players(club, "", limit=500)
    return render(
        "clubs/players.html",
        "clubs/players.html",
        invalid_status(),
        club=club,
        players=found,
        q="",
        form=form,
    )


@bp.get("/c/<club_id>/p/<player_id>")
@authz.club("read")
def player(club_id: str, player_id: str) -> Response:
    """A player's record, averages, best game, rating and score over time, rivals."""
    club = club_or_404(club_id)
    person = clubs.get_player(club, player_id)
    if person is None:
        abort(404)
    if club.ratings_updating:
        background.catch_up_later(club.id)

    def context() -> dict[str, Any]:
        season = season_of_request(club)
        return {
            "club": club,
            "player": person,
            "season": season,
            "seasons": club.seasons,
            **profiles.profile(club, person, season.id if season else None),
        }

    return page_cache.page(
        ("player", club.id, person.id),
        club.data_version,
        "clubs/_player_body.html",
        context,
        lambda _title, body: render(
            "clubs/player.html", "clubs/player.html", club=club, player=person, body=body
        ),
    )
