"""Forms of the match area. Deal forms are built per rule set (its book kinds and groups)."""

from __future__ import annotations

import functools
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict
from wtforms import (
    Form,
    FormField,
    HiddenField,
    IntegerField,
    RadioField,
    SelectChoice,
    SelectField,
    StringField,
)
from wtforms.fields import FieldList
from wtforms.validators import InputRequired, Length, Optional

from ...engine import EngineError, Problem, RuleSet, score_deal, value_groups
from ...engine.cards import describe_key, rank_span
from ...engine.entries import COUNT_BOUND, POINTS_BOUND
from ...engine.rules import MAX_DEALS, MIN_DEALS
from ...services import rule_sets
from ..i18n import say, text
from ..i18n import translate_problem as tr
from ..rules.card import layout_text
from .fields import WholeNumberField, no_control_characters

MAX_NAME = 40


def layout_key(layout: tuple[int, ...] | list[int]) -> str:
    """``(2, 2)`` -> ``"2+2"``: how a layout travels in a URL or a form."""
    return "+".join(str(n) for n in layout)


def parse_layout(key: str | None) -> tuple[int, ...] | None:
    """``"2+2"`` -> ``(2, 2)``; None for anything else."""
    parts = (key or "").split("+")
    if not 2 <= len(parts) <= 8 or not all(p in ("1", "2", "3") for p in parts):
        return None
    return tuple(int(p) for p in parts)


def choose_layout(rules: RuleSet, key: str | None) -> tuple[int, ...]:
    """The layout ``key`` names when ``rules`` allow it; else two teams of two, or the
    rule set's first layout."""
    layout = parse_layout(key)
    if layout is not None and layout in rules.layouts:
        return layout
    return (2, 2) if (2, 2) in rules.layouts else rules.layouts[0]


def rule_choices() -> list[SelectChoice]:
    """The rule sets a match can start with: the presets, then the saved house rules."""
    return [
        SelectChoice(choice.origin, choice.name if choice.saved else text(choice.name))
        for choice in rule_sets.available()
    ]


class StartForm(FlaskForm):
    """Step one of a new match: the rule set and how the players sit."""

    class Meta:
        csrf = False  # a GET form that only chooses what the next form shows

    rules = SelectField(_l("Rules"), choices=rule_choices, default="classic")
    layout = SelectField(_l("Players"), validate_choice=False)


def layout_choices(rules: RuleSet) -> list[SelectChoice]:
    """The layouts a rule set allows, as form choices."""
    return [SelectChoice(layout_key(lay), layout_text(lay)) for lay in rules.layouts]


def new_match_form(layout: tuple[int, ...], data: Any = None, deals: int = 4) -> FlaskForm:
    """Step two: the names of the players of each side, who deals first, and how many
    deals the table agreed on (``deals``, the rule set's number, is the default)."""

    class NewMatchForm(FlaskForm):
        rules = HiddenField()
        layout = HiddenField()
        first_dealer = SelectField(_l("Who deals first?"), coerce=int, default=0)
        deals_in_game = WholeNumberField(
            _l("Number of deals"),
            MAX_DEALS,
            low=MIN_DEALS,
            default=deals,
            render_kw={"inputmode": "numeric", "min": MIN_DEALS, "max": MAX_DEALS},
        )

    for i, size in enumerate(layout):
        if size > 1:
            setattr(
                NewMatchForm,
                f"side_{i}_name",
                StringField(
                    _l("Team name (optional)"),
                    [Optional(), Length(max=80), no_control_characters],
                ),
            )
        for j in range(size):
            setattr(
                NewMatchForm,
                f"side_{i}_player_{j}",
                StringField(
                    _l("Player"),
                    [
                        InputRequired(_l("Type a name.")),
                        Length(max=MAX_NAME),
                        no_control_characters,
                    ],
                    render_kw={"autocomplete": "off", "list": "known-names", "maxlength": MAX_NAME},
                ),
            )
    form = NewMatchForm(formdata=data) if data is not None else NewMatchForm()
    form.seats = seats(layout)
    form.first_dealer.choices = [
        SelectChoice(str(index), (form[field].data or "").strip() or label)
        for index, (field, label) in enumerate(form.seats)
    ]
    return form


def seats(layout: tuple[int, ...]) -> list[tuple[str, str]]:
    """The seats in clockwise order: (the name field of who sits there, a label for the
    seat until the name is typed). The page's script puts names in as they are typed."""
    found = []
    for seat in range(max(layout)):
        for side, size in enumerate(layout):
            if seat < size:
                label = str(_l("Side %(side)s, player %(n)s", side=side + 1, n=seat + 1))
                found.append((f"side_{side}_player_{seat}", label))
    return found


def seat_labels(layout: tuple[int, ...]) -> list[str]:
    """Labels for seats in clockwise order, before names are known."""
    return [label for _field, label in seats(layout)]


def field_slug(key: str) -> str:
    """A form-field-safe name for an entry key: ``"8-K"`` -> ``"8toK"``."""
    return key.replace("-", "to")


def card_label(key: str) -> str:
    """``"8-K"`` -> ``"8 to K"``, ``"joker"`` -> ``"Jokers"`` (only the first letter raised),
    in the served language."""
    span = rank_span(key)
    if span is not None and len(span) > 1:
        text = _("%(low)s to %(high)s", low=span[0], high=span[-1])
    else:
        text = say(describe_key(key))
    return text[:1].upper() + text[1:]


def card_keys(rules: RuleSet, block: str) -> tuple[str, ...]:
    """The count fields of a block: jokers, twos, value groups (and black threes left)."""
    keys = ("joker", "2", *value_groups(rules))
    return (*keys, "black3") if block == "left" else keys


def _count(label: Any = "", high: int = COUNT_BOUND) -> IntegerField:
    return WholeNumberField(label, high)


#: What a deal form's fields depend on in a rule set: its books (kind, name), the count
#: fields of the two card blocks, one red-three count or two, whether exact draws count.
Shape = tuple[tuple[tuple[str, str], ...], tuple[str, ...], tuple[str, ...], bool, bool]


def form_shape(rules: RuleSet) -> Shape:
    """The rule set's ``Shape``: the key its form classes are made and kept by."""
    return (
        tuple((kind, rules.book_name(kind)) for kind in rules.book_kinds()),
        card_keys(rules, "melded"),
        card_keys(rules, "left"),
        bool(rules.red_three.hand_and_foot_alike),
        bool(rules.exact_draw_bonus),
    )


@functools.lru_cache(maxsize=64)
def _side_form_class(shape: Shape) -> type[Form]:
    """The entry of one side under rules of this ``shape``."""
    books, melded, left, alike, exact_draws = shape

    class SideForm(Form):
        red_threes = _count(_l("Red threes laid"))
        red_threes_left = _count(_l("Red threes left in a hand"))
        melded_points = _count(_l("Points on the table"), POINTS_BOUND)
        left_points = _count(_l("Points left in hand and foot"), POINTS_BOUND)

    for kind, name in books:
        setattr(SideForm, f"books_{kind}", _count(name))
    for block, keys in (("melded", melded), ("left", left)):
        for key in keys:
            setattr(SideForm, f"{block}_{field_slug(key)}", _count(key))
    if alike:
        # One count serves both: a red three costs the same wherever it was left.
        SideForm.red_threes_left = _count(_l("Red threes left in hand or foot"))
    else:
        SideForm.red_threes_left_in_foot = _count(_l("Red threes in a foot nobody picked up"))
    if exact_draws:
        SideForm.exact_draws = _count(_l("Exact draws"))
    return SideForm


@functools.lru_cache(maxsize=64)
def _deal_form_class(shape: Shape, side_count: int) -> type[FlaskForm]:
    """Made once per shape and number of sides (labels are translated when shown), not
    for every form: a class's fields are sorted and bound anew for each new class."""

    class DealForm(FlaskForm):
        went_out = RadioField(_l("Who went out?"), default="")
        submission_key = HiddenField()
        expected_deal = HiddenField()
        version = HiddenField()
        sides = FieldList(
            FormField(_side_form_class(shape)), min_entries=side_count, max_entries=side_count
        )

    return DealForm


def deal_form(rules: RuleSet, side_count: int, data: Any = None, obj: Any = None) -> FlaskForm:
    """The whole deal: who went out, each side's entry, and the submission guards."""
    DealForm = _deal_form_class(form_shape(rules), side_count)
    if data is not None:
        # FieldList numbers its entries by the indices posted: mark every side present,
        # so a post that leaves side 0's fields out cannot shift side 1 into its place
        data = MultiDict(data)
        for i in range(side_count):
            data.setdefault(f"sides-{i}", "")
    # formdata=None: a fresh or stored deal must never pick up the request's own post
    # (Flask-WTF's default), e.g. the next deal's form after an htmx save.
    form = DealForm(formdata=data, data=obj)
    # the radio offers nobody or one side; anything else posted is refused, not ignored
    form.went_out.choices = [SelectChoice(""), *(SelectChoice(str(i)) for i in range(side_count))]
    return form


#: What a field with an error of its own stands for in an entry: no number, so that the
#: engine leaves the part it belongs to unread (``engine.entries.read_side_partly``).
UNREAD = "?"


def entries_from_form(form: Any, rules: RuleSet) -> list[dict[str, Any]]:
    """The engine's entry dicts from a deal form (empty fields are 0, as in the API). A
    field with an error of its own (after ``validate``) is ``UNREAD``."""

    def value(field: Any) -> Any:
        return UNREAD if field.errors else field.data

    went_out = value(form.went_out)
    entries = []
    for i, side in enumerate(form.sides):
        entry: dict[str, Any] = {"went_out": went_out if went_out == UNREAD else went_out == str(i)}
        entry["books"] = {k: value(side[f"books_{k}"]) or 0 for k in rules.book_kinds()}
        entry["red_threes"] = value(side["red_threes"]) or 0
        entry["red_threes_left"] = value(side["red_threes_left"]) or 0
        if not rules.red_three.hand_and_foot_alike:
            entry["red_threes_left_in_foot"] = value(side["red_threes_left_in_foot"]) or 0
        if rules.exact_draw_bonus:
            entry["exact_draws"] = value(side["exact_draws"]) or 0
        for block in ("melded", "left"):
            typed = {
                key: value(side[f"{block}_{field_slug(key)}"]) for key in card_keys(rules, block)
            }
            counts = {key: count for key, count in typed.items() if count is not None}
            points = value(side[f"{block}_points"])
            if points is not None:
                entry[f"{block}_points"] = points
            if counts or points is None:
                entry[block] = counts
        entries.append(entry)
    return entries


def problems_beside_errors(form: Any, game: Any, deal: int) -> list[Problem]:
    """What the game refuses in a form that already has errors of its own (a typo in one
    number): the engine's problems with the rest, so that every problem shows at once, not
    the game's only after the typo is put right. The fields with an error are left unread,
    and their own problems are not said twice."""
    had_errors = {id(f) for f in _fields(form) if f.errors}
    entries = entries_from_form(form, game.rules)
    try:
        score_deal(game.rules, deal, game.player_count, entries, game.side_sizes)
    except EngineError as error:
        return [p for p in error.problems if id(_field_for(form, p.field)) not in had_errors]
    return []


def _fields(form: Any) -> list[Any]:
    return [form.went_out, *(field for side in form.sides for field in side)]


def form_data_from_entries(entries: list[dict[str, Any]], rules: RuleSet) -> dict[str, Any]:
    """Initial form data for correcting a stored deal."""
    went_out = next((str(i) for i, e in enumerate(entries) if e.get("went_out")), "")
    alike = rules.red_three.hand_and_foot_alike
    sides = []
    for entry in entries:
        in_hand = entry.get("red_threes_left") or 0
        in_foot = entry.get("red_threes_left_in_foot") or 0
        side: dict[str, Any] = {
            "red_threes": entry.get("red_threes") or None,
            # one stepper where hand and foot cost the same: it shows both counts
            "red_threes_left": (in_hand + in_foot if alike else in_hand) or None,
            "exact_draws": entry.get("exact_draws") or None,
        }
        if not alike:
            side["red_threes_left_in_foot"] = in_foot or None
        for kind, n in entry.get("books", {}).items():
            side[f"books_{kind}"] = n or None
        for block in ("melded", "left"):
            if f"{block}_points" in entry:
                side[f"{block}_points"] = entry[f"{block}_points"]
            for key, n in entry.get(block, {}).items():
                side[f"{block}_{field_slug(key)}"] = n
        sides.append(side)
    return {"went_out": went_out, "sides": sides}


def apply_problems(form: Any, problems: Any) -> list[str]:
    """Put engine problems beside their fields; return those that belong to no field."""
    general: list[str] = []
    for problem in problems:
        field = _field_for(form, problem.field)
        if field is None:
            general.append(tr(problem))
        else:
            field.errors = [*field.errors, tr(problem)]
    return general


def _field_for(form: Any, path: str) -> Any:
    """The form field an engine field path points at, or None."""
    if not path.startswith("sides["):
        return None
    index_text, _, rest = path[len("sides[") :].partition("]")
    if not index_text.isdigit() or int(index_text) >= len(form.sides):
        return None
    side = form.sides[int(index_text)]
    rest = rest.lstrip(".")
    if rest == "went_out":
        return form.went_out
    head, _, key = rest.partition(".")
    name = {
        "books": f"books_{key}",
        "melded": f"melded_{field_slug(key)}" if key else "melded_points",
        "left": f"left_{field_slug(key)}" if key else "left_points",
    }.get(head, head)
    if head == "books" and not key:
        name = next((f.name.rsplit("-", 1)[-1] for f in side if "books_" in f.name), name)
    try:
        return side[name]
    except KeyError:
        if name == "red_threes_left_in_foot":  # one stepper counts hand and foot alike
            return side["red_threes_left"]
        return None
