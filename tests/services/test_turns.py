"""``keeper.Turns``: the requests of a server process of several threads take turns.

With several processes, ``serve`` gives each two threads: one request's view runs at a
time, in the order they came, and a streamed body (a club's whole-history CSV) is made
beside the next request's turn instead of holding up every connection of its process.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from scorekeeper import keeper

WAIT = 10.0  # seconds a test waits for what must happen (it fails, rather than hangs)


def _call(turns: keeper.Turns, path: str) -> list[bytes]:
    """One request through ``turns``, its body read to the end, as waitress does."""
    return list(turns({"PATH_INFO": path}, lambda status, headers: None))


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come about"
        time.sleep(0.005)


def test_one_call_of_the_app_at_a_time() -> None:
    release, entered = threading.Event(), []

    def app(environ: dict[str, Any], _start: Any) -> list[bytes]:
        entered.append(environ["PATH_INFO"])
        if environ["PATH_INFO"] == "/first":
            assert release.wait(WAIT)
        return [b"ok"]

    turns = keeper.Turns(app)
    first = threading.Thread(target=_call, args=(turns, "/first"))
    first.start()
    _until(lambda: entered == ["/first"])
    second = threading.Thread(target=_call, args=(turns, "/second"))
    second.start()
    second.join(0.3)
    assert entered == ["/first"]  # the second waits for the first's turn to end
    release.set()
    first.join(WAIT)
    second.join(WAIT)
    assert entered == ["/first", "/second"]


def test_a_streamed_body_is_made_outside_the_turn() -> None:
    """A download being made (a generator the server reads) leaves the turn to the
    next request: the page is answered while the download is still being made."""
    release, answered = threading.Event(), threading.Event()

    def app(environ: dict[str, Any], _start: Any) -> Any:
        if environ["PATH_INFO"] == "/page":
            return [b"page"]

        def body() -> Iterator[bytes]:
            yield b"first rows"
            assert release.wait(WAIT)
            yield b"the rest"

        return body()

    turns = keeper.Turns(app)
    download: list[list[bytes]] = []
    downloading = threading.Thread(target=lambda: download.append(_call(turns, "/csv")))
    downloading.start()
    page = threading.Thread(target=lambda: _call(turns, "/page") and answered.set())
    page.start()
    assert answered.wait(WAIT), "the page waited for the download"
    assert download == []  # still being made
    release.set()
    downloading.join(WAIT)
    assert download == [[b"first rows", b"the rest"]]


def test_the_turn_goes_in_the_order_asked() -> None:
    """A thread that has just given the turn up and asks again comes after the one
    already waiting: with a plain lock, the thread giving it up (holding the GIL) most
    often took it again before the waiting one woke."""
    release, entered = threading.Event(), []

    def app(environ: dict[str, Any], _start: Any) -> list[bytes]:
        entered.append(environ["PATH_INFO"])
        if environ["PATH_INFO"] == "/a":
            assert release.wait(WAIT)
        return [b"ok"]

    turns = keeper.Turns(app)

    def again() -> None:
        _call(turns, "/a")
        _call(turns, "/a again")  # at once: the next request of this thread

    a = threading.Thread(target=again)
    a.start()
    _until(lambda: entered == ["/a"])
    b = threading.Thread(target=_call, args=(turns, "/b"))
    b.start()
    _until(lambda: turns._next == 2)  # b has asked for its turn
    release.set()
    a.join(WAIT)
    b.join(WAIT)
    assert entered == ["/a", "/b", "/a again"]


def test_an_error_in_the_app_gives_the_turn_up() -> None:
    def app(environ: dict[str, Any], _start: Any) -> list[bytes]:
        if environ["PATH_INFO"] == "/broken":
            raise RuntimeError("broken")
        return [b"ok"]

    turns = keeper.Turns(app)
    with pytest.raises(RuntimeError):
        _call(turns, "/broken")
    done: list[list[bytes]] = []
    after = threading.Thread(target=lambda: done.append(_call(turns, "/after")))
    after.start()
    after.join(WAIT)
    assert done == [[b"ok"]]


@pytest.mark.parametrize(
    ("threads", "several", "turns"),
    [(2, True, True), (4, True, True), (1, True, False), (4, False, False)],
)
def test_a_process_of_several_with_threads_takes_turns(
    monkeypatch: pytest.MonkeyPatch, threads: int, several: bool, turns: bool
) -> None:
    """``serve``'s processes, when there are several and they have threads, serve the app
    by turns; a lone process's threads (four by default) serve at once, as before."""
    import waitress

    served: list[Any] = []

    class Serving:
        def run(self) -> None:
            pass

        def close(self) -> None:
            pass

    def create_server(app: Any, **options: Any) -> Serving:
        served.append(app)
        assert options["threads"] == threads
        return Serving()

    monkeypatch.setattr(waitress, "create_server", create_server)
    monkeypatch.setattr(keeper, "Balance", lambda fd: None)
    monkeypatch.setattr(keeper, "_accept_in_balance", lambda server, balance, slot: None)
    monkeypatch.setattr(keeper, "_end_with_parent", lambda parent: None)
    import scorekeeper.app

    monkeypatch.setattr(scorekeeper.app, "settle", lambda app: None)
    app = object()
    with keeper.listen("127.0.0.1", 0) as sock:
        balance = (0, 0) if several else None
        keeper.serve_on_inherited(app, os.dup(sock.fileno()), threads, balance)
    if turns:
        assert isinstance(served[0], keeper.Turns) and served[0].app is app
    else:
        assert served == [app]


def test_several_processes_have_two_threads_each_by_default() -> None:
    assert keeper.default_threads(2) == keeper.THREADS_OF_SEVERAL == 2
    assert keeper.default_threads(1) == keeper.THREADS == 4
