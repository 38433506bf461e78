"""The floor of bench/run.py: a minimal Flask route, served as the app is served.

    python bench/floor.py --host 127.0.0.1 --port P [--threads 4] [--workers 1]

One route, ``GET /``, answering ``ok`` with no template, no session and no database,
served by waitress with as many threads as ``scorekeeper serve`` is given, in its own
process. What the real server does per request beyond this is the app's own work: the
figures of ``bench/run.py`` are ratios to this floor, measured in the same run. With
``--workers N`` it is served as ``scorekeeper serve --workers N`` serves the app: N
waitress processes accepting on one socket that this process bound, the one holding the
fewest connections accepting the next (``keeper.Balance``; ``bench/workers.py``).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
from collections.abc import Sequence

from flask import Flask

#: What each of several processes prints as it begins to accept.
READY = "floor process ready"


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
    parser.add_argument("--balance-fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--slot", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from waitress import serve

    from scorekeeper import keeper

    if args.listening_fd is not None:  # one of several: serve on the parent's socket
        balance = (args.balance_fd, args.slot) if args.balance_fd is not None else None
        app = floor_app()
        print(READY, flush=True)  # (bench/run.py waits for every process's line)
        keeper.serve_on_inherited(app, args.listening_fd, args.threads, balance)
        return 0
    if args.workers == 1:
        serve(floor_app(), host=args.host, port=args.port, threads=args.threads, ident="floor")
        return 0
    # as serve --workers: the process holding the fewest connections accepts the next
    # (keeper.Balance); left to themselves, one process took most of the 16 connections
    sock = socket.create_server((args.host, args.port), backlog=1024)
    sock.set_inheritable(True)
    fd = str(sock.fileno())
    balance = keeper.Balance.create(args.workers)
    command = [sys.executable, __file__, "--port", "0", "--threads", str(args.threads)]
    children = []
    for n in range(args.workers):
        balance.starting(n)  # as serve does: the others leave it its share while it starts
        children.append(
            subprocess.Popen(
                [*command, "--listening-fd", fd, "--balance-fd", str(balance.fd), "--slot", str(n)],
                pass_fds=(sock.fileno(), balance.fd),
            )
        )
    try:
        for child in children:
            child.wait()
    finally:
        for child in children:
            child.terminate()
            child.wait()
        balance.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
