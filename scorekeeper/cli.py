"""``scorekeeper serve``: migrate the database, then serve the app to the local network."""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from . import cli_data

DEFAULT_PORT = 8000


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses that phones on the same network can reach.

    Read from the host's own name resolution and, where that knows only loopback (common
    on Linux), from ``hostname -I``; nothing is sent on the network.
    """
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    candidates = [str(info[4][0]) for info in infos]
    if not any(not a.startswith("127.") for a in candidates):
        candidates += _hostname_addresses()
    for address in candidates:
        if _is_ipv4(address) and not address.startswith("127.") and address not in found:
            found.append(address)
    return found


def _hostname_addresses() -> list[str]:
    try:
        done = subprocess.run(
            ["hostname", "-I"], capture_output=True, text=True, timeout=2, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return done.stdout.split() if done.returncode == 0 else []


def _is_ipv4(address: str) -> bool:
    try:
        socket.inet_pton(socket.AF_INET, address)
    except OSError:
        return False
    return True


def announce(host: str, port: int, out: object = None) -> list[str]:
    """Print the addresses to open (and a QR code of the first one); return them."""
    stream = out or sys.stdout
    addresses = local_addresses() if host in ("0.0.0.0", "::", "") else [host]
    urls = [f"http://{a}:{port}/" for a in addresses] or [f"http://127.0.0.1:{port}/"]
    if addresses:
        print("Scorekeeper is running. Open it on a phone on the same Wi-Fi:", file=stream)  # type: ignore[arg-type]
    else:
        print(
            "Scorekeeper is running. This computer's network address was not found:"
            " look it up in its network settings and open http://<address>:"
            f"{port}/ on the phones.",
            file=stream,  # type: ignore[arg-type]
        )
    for url in urls:
        print(f"  {url}", file=stream)  # type: ignore[arg-type]
    print(f"  (on this computer: http://127.0.0.1:{port}/)", file=stream)  # type: ignore[arg-type]
    try:
        import segno

        segno.make(urls[0], error="m").terminal(out=stream, compact=True)  # type: ignore[arg-type]
    except Exception:  # a QR code is a convenience; the printed address is enough
        pass
    print("Press Ctrl+C to stop.", file=stream)  # type: ignore[arg-type]
    return urls


def migrated_app() -> Any:
    """The app, with its database upgraded to the newest migration."""
    from flask_migrate import upgrade

    from .app import create_app

    app = create_app()
    with app.app_context():
        upgrade()
    return app


def serve(host: str, port: int, threads: int) -> None:
    """Apply migrations, then serve with waitress (a production WSGI server)."""
    from waitress import serve as waitress_serve

    app = migrated_app()
    announce(host, port)
    waitress_serve(app, host=host, port=port, threads=threads, ident="scorekeeper")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scorekeeper`` command."""
    parser = argparse.ArgumentParser(prog="scorekeeper", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve", help="migrate the database and serve the app")
    run.add_argument("--host", default="0.0.0.0", help="address to listen on (all by default)")
    run.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default 8000)")
    run.add_argument("--threads", type=int, default=8, help="worker threads (default 8)")
    demo = commands.add_parser("seed-demo", help="create a demo club with a season of matches")
    demo.add_argument("--name", default="Tuesday Card Club", help="the demo club's name")
    demo.add_argument("--weeks", type=int, default=10, help="club nights to play (1 to 52)")
    owner = commands.add_parser("club-owner", help="make an account an owner of a club")
    owner.add_argument("club", help="the club's public id (from its address) or exact name")
    owner.add_argument("username", help="an account that has signed up")
    cli_data.add_commands(commands)  # backup, export, import
    args = parser.parse_args(argv)
    if hasattr(args, "handler"):
        return int(args.handler(args))
    if args.command == "club-owner":
        return club_owner(args.club, args.username)
    if args.command == "seed-demo":
        seed_demo(args.name, args.weeks)
    else:
        serve(args.host, args.port, args.threads)
    return 0


def seed_demo(name: str, weeks: int) -> None:
    """Apply migrations, then create the demo club (see ``services.demo``)."""
    from .services import demo

    if not 1 <= weeks <= 52:
        raise SystemExit("--weeks must be from 1 to 52")
    app = migrated_app()
    with app.app_context():
        club = demo.seed(name, weeks)
        print(f"Created {club.name}: open /c/{club.public_id} in the app.")


def club_owner(club: str, username: str) -> int:
    """Give a club (one made before accounts, say) an owner; see README "Clubs"."""
    from .services import memberships

    app = migrated_app()
    with app.app_context():
        try:
            print(memberships.assign_owner(club, username))
        except LookupError as error:
            print(error, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
