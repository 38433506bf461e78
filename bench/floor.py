"""The floor of bench/run.py: a minimal Flask route, served as the app is served.

    python bench/floor.py --host 127.0.0.1 --port P [--threads 8]

One route, ``GET /``, answering ``ok`` with no template, no session and no database,
served by waitress with as many threads as ``scorekeeper serve`` is given, in its own
process. What the real server does per request beyond this is the app's own work: the
figures of ``bench/run.py`` are ratios to this floor, measured in the same run.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from flask import Flask


def floor_app() -> Flask:
    """The smallest Flask app: one route that answers two bytes."""
    app = Flask("floor")

    @app.get("/")
    def ok() -> str:
        return "ok"

    return app


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args(argv)
    from waitress import serve

    serve(floor_app(), host=args.host, port=args.port, threads=args.threads, ident="floor")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
