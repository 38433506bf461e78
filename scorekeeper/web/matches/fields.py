"""Form fields and validators of the match area that WTForms does not have as such."""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

from flask_babel import lazy_gettext as _l
from wtforms import IntegerField
from wtforms.validators import NumberRange, Optional, StopValidation, ValidationError

from ...engine.entries import COUNT_BOUND


def no_control_characters(form: Any, field: Any) -> None:
    """Refuse NUL and other control characters in a name (PostgreSQL refuses NUL)."""
    if field.data and any(unicodedata.category(c) == "Cc" for c in field.data):
        raise ValidationError(_l("Use letters, digits and spaces only."))


WHOLE_NUMBER = _l("Enter a whole number from %(min)s to %(max)s.")


class WholeRange(NumberRange):
    """WTForms' ``NumberRange`` for whole numbers of any length: its own check calls
    ``math.isnan``, which turns a number past 1e308 (310 digits) into ``OverflowError``."""

    def __call__(self, form: Any, field: Any) -> None:
        """Compare whole numbers as whole numbers; anything else as WTForms does."""
        data = field.data
        if not isinstance(data, int) or isinstance(data, bool):
            super().__call__(form, field)
            return
        if (self.min is not None and data < self.min) or (self.max is not None and data > self.max):
            message = self.message or field.gettext("Number must be between %(min)s and %(max)s.")
            raise ValidationError(message % {"min": self.min, "max": self.max})


@functools.lru_cache(maxsize=16)
def _whole_validators(low: int, high: int) -> tuple[Any, ...]:
    """A whole number field's validators, made once for each range: a deal form binds
    some forty such fields a POST, and validators keep nothing of the form they check."""
    return (Optional(), WholeRange(low, high, WHOLE_NUMBER))


#: WTForms' own message for text that is no integer (translated by WTForms' catalogs).
_NOT_AN_INTEGER = "Not a valid integer value."


class IntegerText(IntegerField):
    """WTForms' ``IntegerField`` reading a sign and digits only: Python's ``int()`` beneath
    it also reads "1_0" as 10, so a slip of the thumb was stored as a number."""

    def process_formdata(self, valuelist: list[Any]) -> None:
        """Refuse digits grouped with underscores, then parse as WTForms does."""
        if valuelist and "_" in str(valuelist[0]):
            self.data = None
            raise ValueError(self.gettext(_NOT_AN_INTEGER))
        super().process_formdata(valuelist)


class WholeNumberField(IntegerText):
    """A count or points field: empty is None, anything but a whole number in range gets
    one message saying what is wanted (not "not a valid integer" and a range error too)."""

    def __init__(
        self, label: Any = "", high: int = COUNT_BOUND, low: int = 0, **kwargs: Any
    ) -> None:
        kwargs.setdefault("render_kw", {"inputmode": "numeric", "min": low, "placeholder": "0"})
        super().__init__(label, _whole_validators(low, high), **kwargs)
        self.low, self.high = low, high

    def process_formdata(self, valuelist: list[Any]) -> None:
        """Read the typed text; blank is empty, not an error."""
        if not valuelist or not str(valuelist[0]).strip():
            self.data = None
            return
        try:
            super().process_formdata(valuelist)
        except ValueError:
            raise ValueError(WHOLE_NUMBER % {"min": self.low, "max": self.high}) from None

    def pre_validate(self, form: Any) -> None:
        """Text that is no number already has its message: skip the range check."""
        if self.process_errors:
            raise StopValidation()
