"""The app for a WSGI server that runs several processes: ``gunicorn scorekeeper.wsgi:app``.

It only builds the app: it migrates nothing, so that workers starting together never race
on the schema. Apply the migrations once before starting them (``scorekeeper migrate``);
docs/deploy.md shows a systemd unit that does both. What the app is built of is kept out
of the garbage collector's full collections (``app.settle``).
"""

from __future__ import annotations

from .app import create_app, settle

app = settle(create_app())
