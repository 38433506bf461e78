"""Scorekeeper: the score-keeping companion for the card game Hand and Foot.

This package's ``__init__`` stays free of Flask so that ``scorekeeper.engine`` can be
imported alone; the web application is built by ``scorekeeper.app.create_app``.
"""

__version__ = "0.1.0"
