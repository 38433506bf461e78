"""Extension objects, created once and bound to the app in ``create_app``."""

from flask_babel import Babel
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from htmx_flask import Htmx
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    """Declarative base of every model."""


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
csrf = CSRFProtect()
htmx = Htmx()
babel = Babel()
