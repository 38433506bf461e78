"""Where the presets come from: each source's title and language, and the notes that say
where a preset's value is a reading of its source or a default (RULES.md section 5).

The rules card shows them; they are the app's words, so they go through gettext. A
source's title stays in its own language (it is the name of the text).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from flask_babel import gettext as _
from markupsafe import Markup, escape

from ...engine import PRESETS, RuleSet

#: How the presets named their sources before issue 10: by a file path of the repository.
#: Rule sets frozen into matches, saved as house rules, shared or exported then still say
#: so; the card cites the same text by its title and language instead.
LEGACY_SOURCES: Final = {
    "Bosnian rule source (shared/seeds/000_f39004b1ffcd09d7.txt)": "classic",
    "Czech rule source (shared/seeds/002_10af36338e7c99d0.txt)": "four-books",
    "Russian rule source, Bill Whitnack's rules (shared/seeds/004_d878a51282fabc65.txt)": (
        "whitnack"
    ),
}


@dataclass(frozen=True)
class Source:
    """A rule source as the card cites it: its title, the language it is in (words of the
    reader's language) and that language's code, which marks the title for a screen
    reader (a Bosnian title read with English sounds is not understood)."""

    title: str
    language: str
    code: str


def preset_of(rules: RuleSet) -> str | None:
    """The preset ``rules`` is, or a match's frozen copy of it: the same id and the same
    values but for the number of deals the table chose (its minimum melds fitted), so a
    copy frozen before the preset changed, whose values differ, gets no notes."""
    preset = PRESETS.get(rules.id)
    if preset is None:
        return None
    fitted = replace(
        preset.with_deals(rules.deals),
        name=rules.name,
        description=rules.description,
        source=rules.source,
    )
    return rules.id if fitted == rules else None


def source_of(rules: RuleSet) -> str | None:
    """The preset whose source ``rules`` names, as presets name it now or named it before
    (a house rule made from a preset keeps its source)."""
    for preset_id, preset in PRESETS.items():
        if rules.source == preset.source:
            return preset_id
    return LEGACY_SOURCES.get(rules.source)


def source_text(rules: RuleSet) -> Markup:
    """A preset's source by title and language, the title marked with its language; a
    house rule's own words otherwise (escaped, as any text is)."""
    preset_id = source_of(rules)
    if preset_id is None:
        return escape(rules.source)
    source = _sources()[preset_id]
    title = Markup('<span lang="{}">{}</span>').format(source.code, source.title)
    cited = escape(_("“%(title)s”, in %(language)s"))
    return cited % {"title": title, "language": source.language}


def _sources() -> dict[str, Source]:
    return {
        "classic": Source(
            "Pravila kartaške igre rukom i nogom - Kako igrati rukom i nogom", _("Bosnian"), "bs"
        ),
        "four-books": Source("Ruka a noha: varianta hry Canasta", _("Czech"), "cs"),
        "whitnack": Source("Рука и нога (Hand and Foot), Bill Whitnack", _("Russian"), "ru"),
    }


def notes(rules: RuleSet) -> tuple[str, ...]:
    """The notes on a preset's values that are a reading or a default (empty otherwise)."""
    preset_id = preset_of(rules)
    if preset_id is None:
        return ()
    minimum_from_source = _("The minimum melds 50 / 90 / 120 / 150 by deal are the source's own.")
    by_preset = {
        "classic": (
            _(
                "A red three in a foot nobody picked up counts −100 only when another side"
                " went out: the source says it counts against you “ako vaši protivnici"
                " ‘izađu’ prije nego što ste zgrabili svoju ‘nogu’” (if your opponents go out"
                " before you picked up your foot). In a hand it always counts −100."
            ),
            _(
                "The source blocks the discard pile only with a (black) three on top. A wild"
                " card on top is then taken with two wild cards from hand, making a meld of"
                " only wild cards, which is legal here because wild books are."
            ),
            minimum_from_source,
        ),
        "four-books": (
            _(
                "The source blocks the discard pile with a wild card or a three on top:"
                " “nikdy, když je navrchu divoká karta nebo trojka”."
            ),
            minimum_from_source,
        ),
        "whitnack": (
            _(
                "The Russian source gives 150 for a wild book; pagat's English text of the"
                " same rules gives 1500. This card follows the source."
            ),
            _(
                "The source names no penalty for a red three not laid, only the lost bonus"
                " (“при отсутствии этой красной тройки партнеры не получат за них бонусные"
                " баллы”), so a red three left in a hand or a foot counts 0."
            ),
            _(
                "Only a three on top blocks the discard pile (a red three never lies on it),"
                " so a wild card on top is taken with two wild cards from hand."
            ),
            _(
                "“Нельзя собирать сразу несколько мелд” (one may not build several melds at"
                " once) is read, like the other sources, as one unfinished meld per rank."
            ),
            _(
                "“О количестве игр игроки договариваются перед первой игрой”: the players"
                " agree on the number of deals before the first; a match starts with 4"
                " unless the table chooses another number."
            ),
            _(
                "The Russian text gives no minimum meld: this card uses the 50 / 90 / 120 /"
                " 150 of the two other sources."
            ),
        ),
    }
    return by_preset[preset_id]
