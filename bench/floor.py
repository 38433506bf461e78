"""The floor of bench/run.py: a minimal Flask route, served as the app is served.

    python bench/floor.py --host 127.0.0.1 --port P [--threads 4] [--workers 1]

One route, ``GET /``, answering ``ok`` with no template, no session and no database,
served by waitress with as many threads as ``scorekeeper serve`` is given, in its own
process. What the real server does per request beyond this is the app's own work: the
figures of ``bench/run.py`` are ratios to this floor, measured in the same run. With
``--workers N`` it is served as ``scorekeeper serve --workers N`` serves the app: N
waitress processes accepting on one socket that this process bound (``bench/workers.py``).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
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
    parser.add_argument("--threads", type=int, default=4)  # serve's (scorekeeper.keeper)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--listening-fd", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from waitress import create_server, serve

    if args.listening_fd is not None:  # one of several: serve on the parent's socket
        sock = socket.socket(fileno=args.listening_fd)
        create_server(floor_app(), sockets=[sock], threads=args.threads, ident="floor").run()
        return 0
    if args.workers == 1:
        serve(floor_app(), host=args.host, port=args.port, threads=args.threads, ident="floor")
        return 0
    sock = socket.create_server((args.host, args.port), backlog=1024)
    sock.set_inheritable(True)
    fd = str(sock.fileno())
    command = [sys.executable, __file__, "--port", "0", "--threads", str(args.threads)]
    children = [
        subprocess.Popen([*command, "--listening-fd", fd], pass_fds=(sock.fileno(),))
        for _ in range(args.workers)
    ]
    try:
        for child in children:
            child.wait()
    finally:
        for child in children:
            child.terminate()
            child.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
