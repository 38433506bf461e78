"""What the soak's scorers do: enter and correct deals, in their own and in shared matches.

Each scorer is a phone working through real pages and forms: it starts its own casual or
club match, enters its deals, corrects one now and then (reopening a
finished match first, as the page asks), and between its own deals works on the shared
matches every scorer uses at once: entering the next deal there (another phone may have
entered it first: the server says so) and correcting deals of finished shared matches,
often two phones on two different deals of one match at the same moment.

A club's matches are started, recorded and corrected only by its scorers: each scorer has
an account with the scorer role and works on the club's matches logged in (``Member``,
logged in once through the real log-in form when the scorer starts). Casual matches need
no account: the scorer plays them on an anonymous ``Browser`` (a private window, say).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from bench.soak_client import (
    Answer,
    Browser,
    Budget,
    Ledger,
    LoginFailed,
    Member,
    Traffic,
    Write,
    as_posted,
    deal_fields,
    flashed,
    forms_of,
    logged_out,
    message_of,
)
from scorekeeper.engine import PRESETS
from scorekeeper.services.demo import realistic_deal

DEALS = PRESETS["classic"].deals  # every soak match is played under the classic rules
NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kay", "Lou")
#: What the page says when another phone saved first (the form was loaded before it).
STALE = ("already entered on another phone", "changed this deal meanwhile")
SHARED_CORRECTIONS = 8  # corrections tried on a finished shared match before it is replaced


@dataclass
class Shared:
    """A match every scorer works on."""

    public_id: str
    club: bool
    corrections: int = 0


@dataclass
class Pool:
    """The shared matches; a worn-out one is replaced by a new match started on the web."""

    matches: list[Shared]
    lock: threading.Lock = field(default_factory=threading.Lock)

    def pick(self, rng: random.Random) -> Shared:
        with self.lock:
            return rng.choice(self.matches)

    def worn_out(self, match: Shared) -> bool:
        """Count a correction; True (once) when the match has had enough of them."""
        with self.lock:
            match.corrections += 1
            return match.corrections == SHARED_CORRECTIONS

    def replace(self, old: Shared, new: Shared) -> None:
        with self.lock:
            self.matches[self.matches.index(old)] = new


class Scorer:
    """One phone's loop until the deadline: its own match, then a shared one, and so on."""

    def __init__(
        self,
        number: int,
        port: int,
        club_id: str,
        pool: Pool,
        ledger: Ledger,
        traffic: Traffic,
        account: tuple[str, str],
    ) -> None:
        self.number = number
        self.rng = random.Random(1000 + number)
        self.browser = Browser(port, traffic)  # casual matches: no account
        self.member = Member(port, traffic, *account)  # the club's matches: logged in
        self.login_failure = ""  # why the scorer could not log in, if it could not
        self.club_id, self.pool, self.ledger = club_id, pool, ledger
        self.own: str | None = None
        self.own_club = False
        self.own_corrections = 0  # corrections still to make on the own finished match
        self.matches_started = 0

    def run(self, over: Callable[[], bool]) -> None:
        """Save and correct deals until ``over()`` says the phase is over."""
        try:
            self.member.log_in()
            while not over():
                if self.rng.random() < 0.5:
                    self._shared()
                else:
                    self._own()
        except Budget:
            pass
        except LoginFailed as failure:
            self.login_failure = str(failure)
        finally:
            self.browser.close()
            self.member.close()

    def phone(self, club: bool) -> Browser:
        """The logged-in phone for the club's matches, the anonymous one for casual ones."""
        return self.member if club else self.browser

    # -- the scorer's own match ------------------------------------------------------------

    def _own(self) -> None:
        if self.own is None:
            self.own_club = self.matches_started % 2 == 1
            self.own = self.start_match(club=self.own_club)
            self.own_corrections = self.rng.randint(0, 2)
            return
        phone = self.phone(self.own_club)
        page = phone.get(f"/m/{self.own}")
        if page is None or page.status != 200:
            return
        forms = forms_of(page.text)
        if f"/m/{self.own}/deals" in forms:
            played = int(forms[f"/m/{self.own}/deals"].get("expected_deal") or 1) - 1
            if played and self.rng.random() < 0.2:
                self.correct(phone, self.own, self.rng.randint(1, played), forms)
            else:
                self.record(phone, self.own, forms)
        elif self.own_corrections > 0:
            self.own_corrections -= 1
            self.correct(phone, self.own, self.rng.randint(1, DEALS), forms)
        else:
            self.own = None  # finished and checked: the next match

    def start_match(self, club: bool) -> str | None:
        """A new 2 vs 2 classic match through the new-match page; its public id."""
        self.matches_started += 1
        phone = self.phone(club)
        four = self.rng.sample(NAMES, 4)
        fields = {
            "rules": "classic",
            "layout": "2+2",
            "first_dealer": str(self.rng.randrange(4)),
            **{f"side_{i // 2}_player_{i % 2}": name for i, name in enumerate(four)},
        }
        if club:
            new, create = f"/c/{self.club_id}/matches/new", f"/c/{self.club_id}/matches"
            fields["played_on"] = date.today().isoformat()
        else:
            new, create = "/matches/new?rules=classic&layout=2%2B2", "/matches"
        page = phone.get(new)
        if page is None or page.status != 200:
            return None
        token = forms_of(page.text).get(create, {}).get("csrf_token", "")
        answer = phone.post(create, {"csrf_token": token, **fields})
        if answer is None or answer.status != 303 or logged_out(answer):
            return None  # not started (or started and not told: an empty match, harmless)
        phone.get(answer.location)  # a browser follows the redirect
        return answer.location.rsplit("/", 1)[-1]

    # -- shared matches --------------------------------------------------------------------

    def _shared(self) -> None:
        match = self.pool.pick(self.rng)
        phone = self.phone(match.club)
        page = phone.get(f"/m/{match.public_id}")
        if page is None or page.status != 200:
            return
        forms = forms_of(page.text)
        if f"/m/{match.public_id}/deals" in forms:
            self.record(phone, match.public_id, forms)
            return
        self.correct(phone, match.public_id, self.rng.randint(1, DEALS), forms)
        if self.pool.worn_out(match):
            new = self.start_match(club=match.club)
            if new is not None:
                self.pool.replace(match, Shared(new, match.club))

    # -- saves -----------------------------------------------------------------------------

    def _entries(self) -> list[dict[str, Any]]:
        out = self.rng.randint(0, 1) if self.rng.random() < 0.9 else None
        return [realistic_deal(self.rng, out == i) for i in range(2)]

    def record(self, phone: Browser, public_id: str, forms: dict[str, dict[str, str]]) -> None:
        """Enter the next deal with the form's own submission key and expected deal."""
        hidden = forms[f"/m/{public_id}/deals"]
        entries = self._entries()
        write = self.ledger.add(
            Write(
                "record",
                public_id,
                int(hidden.get("expected_deal") or 0),
                as_posted(entries),
                key=hidden.get("submission_key", ""),
            )
        )
        answer = phone.post(f"/m/{public_id}/deals", {**hidden, **deal_fields(entries)})
        self._settle(phone, write, answer)

    def correct(
        self, phone: Browser, public_id: str, number: int, forms: dict[str, dict[str, str]]
    ) -> None:
        """Correct deal ``number``: reopen the match first when the page offers it."""
        reopen = forms.get(f"/m/{public_id}/reopen")
        if reopen is not None:
            answer = phone.post(f"/m/{public_id}/reopen", reopen)
            if answer is None or answer.status != 303 or logged_out(answer):
                return
        page = phone.get(f"/m/{public_id}/deals/{number}/edit")
        if page is None or page.status != 200:
            if page is not None and page.status == 303:
                phone.get(page.location)  # closed again meanwhile: see the message
            return
        hidden = forms_of(page.text).get(f"/m/{public_id}/deals/{number}", {})
        entries = self._entries()
        write = self.ledger.add(
            Write(
                "correct",
                public_id,
                number,
                as_posted(entries),
                base=int(hidden.get("version") or 0),
            )
        )
        answer = phone.post(f"/m/{public_id}/deals/{number}", {**hidden, **deal_fields(entries)})
        self._settle(phone, write, answer)

    def _settle(self, phone: Browser, write: Write, answer: Answer | None) -> None:
        """Note what the server said about a save; follow its redirect like a browser."""
        if answer is None:
            return  # stays "unanswered"
        write.status = answer.status
        if logged_out(answer):
            # Sent to log in (the phone has logged in again): nothing was saved.
            write.outcome = "logged_out"
        elif answer.status == 303:
            # A correction of a match closed meanwhile is sent back with a message.
            write.outcome = "closed" if flashed(answer.cookie) else "acked"
            phone.get(answer.location)
        elif answer.status == 422 and any(m in answer.text for m in STALE):
            write.outcome = "stale"
        else:
            write.outcome = "refused"
            write.reason = f"{answer.status} {message_of(answer.text)}"
