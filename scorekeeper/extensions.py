"""Extension objects, created once and bound to the app in ``create_app``."""

from flask_babel import Babel
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
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
login_manager = LoginManager()
#: Rate limits on log-in, sign-up and password reset only (no default limit). Storage:
#: ``RATELIMIT_STORAGE_URI`` (``SCOREKEEPER_RATELIMIT_STORAGE_URI``): the app's database
#: (``database://``, ``services/rate_limits.py``) unless set; ``memory://`` or ``redis://``.
limiter = Limiter(key_func=get_remote_address, default_limits=[])
