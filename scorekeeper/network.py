"""Where a server on this computer can be reached: its addresses and the URLs to open.

Used by ``scorekeeper serve`` (the addresses it announces) and ``seed-demo`` (the demo
club's URLs). Nothing is sent on the network: the addresses come from this computer's
own name resolution and, where that knows only loopback (common on Linux), from
``hostname -I``.
"""

from __future__ import annotations

import socket
import subprocess

#: Hosts that mean "every interface" to a server.
EVERY_INTERFACE = ("0.0.0.0", "::", "")


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses that phones on the same network can reach."""
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


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this computer only (127.x, ::1, localhost)."""
    return host == "localhost" or host.startswith("127.") or host == "::1"


def url(host: str, port: int, path: str = "/") -> str:
    """``http://host:port/path``, with an IPv6 address in brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def network_urls(host: str, port: int, path: str = "/") -> list[str]:
    """The URLs other devices can open for a server listening on ``host``.

    Every local network address when it listens on every interface, the host itself when
    it is named, and nothing when it listens on loopback only.
    """
    if is_loopback(host):
        return []
    hosts = local_addresses() if host in EVERY_INTERFACE else [host]
    return [url(h, port, path) for h in hosts]


def this_computer_url(host: str, port: int, path: str = "/") -> str:
    """The URL that reaches the server from this computer itself."""
    if host in EVERY_INTERFACE:
        host = "127.0.0.1"
    return url(host, port, path)
