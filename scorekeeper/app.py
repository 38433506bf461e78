"""The application factory, made of named ``register_*`` steps."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from flask import Flask

from .config import load_settings
from .extensions import babel, csrf, db, htmx, limiter, login_manager, migrate

ROOT = Path(__file__).resolve().parent.parent


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the Flask app; ``test_config`` overrides every other setting."""
    app = Flask(
        "scorekeeper",
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    # A block tag's line leaves no blank line behind: bytes every page sends (the match
    # page's first visit has a budget, test_wire_weight.py).
    app.jinja_options = {**app.jinja_options, "trim_blocks": True, "lstrip_blocks": True}
    load_settings(app, test_config)
    register_extensions(app)
    register_blueprints(app)
    register_errorhandlers(app)
    register_templating(app)
    register_security_headers(app)
    register_assets(app)
    register_actor(app)
    register_input_guards(app)
    register_background(app)
    register_commands(app)
    return app


def settle(app: Flask) -> Flask:
    """For a server process, once its app is built: everything made so far (modules,
    mappers, the template environment, form classes: some 130,000 objects) is moved out of
    the cyclic garbage collector's reach, as it lives as long as the process. Its full
    collections then look at what requests made since, not at all of it: measured
    (``bench/gc_pauses.py``), a full collection went from about 100 ms, every thread of
    the process stopped meanwhile, to about 10."""
    gc.collect()
    gc.freeze()
    return app


def register_extensions(app: Flask) -> None:
    """Bind the extensions; tune SQLite connections (foreign keys, WAL, BEGIN IMMEDIATE);
    refuse NUL characters in text sent to any database; move a club's data version on
    with every change to it."""
    from .database import refuse_nul, tune_sqlite
    from .services import (
        club_versions,
        rate_limits,  # noqa: F401  (the ``database://`` rate-limit storage)
    )
    from .web.i18n import install_page_gettext, select_locale

    db.init_app(app)
    migrate.init_app(app, db, directory=str(ROOT / "migrations"), render_as_batch=True)
    csrf.init_app(app)
    htmx.init_app(app)
    babel.init_app(app, locale_selector=select_locale)
    install_page_gettext(app)
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.session_protection = "basic"
    limiter.init_app(app)
    with app.app_context():
        tune_sqlite(db.engine)
        refuse_nul(db.engine)
    club_versions.install()  # the number a club's kept pages are keyed by (web.page_cache)


def register_blueprints(app: Flask) -> None:
    """Mount every area of the app."""
    from .web.api.views import bp as api_bp
    from .web.auth.views import bp as auth_bp
    from .web.clubs.views import bp as clubs_bp
    from .web.home.views import bp as home_bp
    from .web.matches.live import bp as live_bp
    from .web.matches.trail import bp as trail_bp
    from .web.matches.views import bp as matches_bp
    from .web.meld.views import bp as meld_bp
    from .web.pwa import register as register_pwa
    from .web.rules.views import bp as rules_bp

    app.register_blueprint(home_bp)
    app.register_blueprint(matches_bp)
    app.register_blueprint(trail_bp)
    app.register_blueprint(live_bp)
    app.register_blueprint(meld_bp)
    app.register_blueprint(rules_bp)
    app.register_blueprint(clubs_bp)
    app.register_blueprint(api_bp)
    register_pwa(app)
    app.register_blueprint(auth_bp)
    csrf.exempt(api_bp)  # the JSON API saves nothing


def register_errorhandlers(app: Flask) -> None:
    """Friendly pages for 400/404/405/413 and a JSON body under /api/."""
    from .web.errors import register

    register(app)


def register_templating(app: Flask) -> None:
    """Template globals and filters shared by every page."""
    from .web import i18n
    from .web.authz import register_templating
    from .web.templating import register

    register(app)
    register_templating(app)
    i18n.register(app)


def register_security_headers(app: Flask) -> None:
    """A strict Content-Security-Policy: nothing loads from another host, no inline code."""
    from .web.security import register

    register(app)


def register_assets(app: Flask) -> None:
    """Versioned static URLs with a year of caching; brotli or gzip for text responses."""
    from .web.assets import register

    register(app)


def register_actor(app: Flask) -> None:
    """The device cookie that labels this browser's changes in the audit trail."""
    from .web.actor import register

    register(app)


def register_input_guards(app: Flask) -> None:
    """Answer text no database can store (NUL), and a database that cannot store."""
    from .web import inputs, storage

    inputs.register(app)
    storage.register(app)


def register_background(app: Flask) -> None:
    """Ratings marked as updating are brought up to date once the answer is sent."""
    from .web import background

    background.register(app)


def register_commands(app: Flask) -> None:
    """``flask`` commands of the app."""
    from .commands import register

    register(app)
