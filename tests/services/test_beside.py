"""``keeper.Beside``: a server process of one thread gets another while a download is made.

``serve``'s processes, when there are several, have one thread each. A streamed body
(a club's whole history as CSV) is made as the server sends it, on its request's thread:
without ``Beside``, every connection the process held waited until the download ended.
"""

from __future__ import annotations

import http.client
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from scorekeeper import keeper

WAIT = 10.0  # seconds a test waits for what must happen (it fails, rather than hangs)


def test_a_body_made_beside_has_a_thread_more_while_it_lasts() -> None:
    counts: list[int] = []
    beside = keeper.Beside(lambda environ, start: [b"ok"])
    beside.set_thread_count = counts.append
    with beside.beside():
        assert counts == [2]
        with beside.beside():  # two downloads at once: a thread each
            assert counts == [2, 3]
        assert counts == [2, 3, 2]
    assert counts == [2, 3, 2, 1]
    with pytest.raises(RuntimeError), beside.beside():  # a download that fails midway
        raise RuntimeError("the disk went away")
    assert counts[-2:] == [2, 1]


def test_at_most_a_few_threads_are_added(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each download reads through a database connection of its own: a fifth one waits
    for a thread, as every download did before, not for a connection."""
    counts: list[int] = []
    beside = keeper.Beside(lambda environ, start: [b"ok"])
    beside.set_thread_count = counts.append
    monkeypatch.setattr(keeper.Beside, "MOST", 2)
    with beside.beside(), beside.beside(), beside.beside():
        assert counts == [2, 3, 3]
    assert counts == [2, 3, 3, 3, 2, 1]


def test_each_request_is_given_the_context_manager_and_answered_by_the_app() -> None:
    seen: list[Any] = []

    def app(environ: dict[str, Any], _start: Any) -> list[bytes]:
        seen.append(environ[keeper.BESIDE])
        return [b"ok"]

    beside = keeper.Beside(app)
    assert beside({}, lambda status, headers: None) == [b"ok"]
    assert seen == [beside.beside]


def _slow_download_app(release: threading.Event, started: threading.Event) -> Any:
    """``/csv``: a first chunk, then a wait for ``release`` (the rest being made),
    made beside as ``exports.csv_stream`` makes it; ``/page``: answered at once."""

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        start_response("200 OK", [("Content-Type", "text/plain")])
        if environ["PATH_INFO"] == "/page":
            return [b"page"]
        beside = environ.get(keeper.BESIDE)

        def body() -> Iterator[bytes]:
            assert beside is not None
            with beside():
                yield b"first rows\n"
                started.set()
                assert release.wait(WAIT)
                yield b"the rest\n"

        return body()

    return app


def test_a_process_of_one_thread_answers_a_page_while_a_download_is_made() -> None:
    """Through waitress itself, with one thread as ``serve``'s processes have: a page is
    answered while a download is still being made; without ``Beside`` it waited."""
    from waitress import create_server

    release, started = threading.Event(), threading.Event()
    beside = keeper.Beside(_slow_download_app(release, started))
    server = create_server(beside, host="127.0.0.1", port=0, threads=1)
    beside.set_thread_count = server.task_dispatcher.set_thread_count
    port = server.effective_port
    serving = threading.Thread(target=server.run, daemon=True)
    serving.start()
    download = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    page = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        download.request("GET", "/csv")
        assert started.wait(WAIT), "the download did not start"
        page.request("GET", "/page")
        answer = page.getresponse()  # times out (fails) if it waits for the download
        assert (answer.status, answer.read()) == (200, b"page")
        assert not release.is_set()
        release.set()
        got = download.getresponse()
        assert got.read() == b"first rows\nthe rest\n"
        deadline = time.monotonic() + WAIT
        while len(server.task_dispatcher.threads) > 1:  # the thread more is given back
            assert time.monotonic() < deadline, "the thread more was kept"
            time.sleep(0.01)
    finally:
        release.set()
        download.close()
        page.close()
        # closed in the server's own thread, then waited for: closed from this one, its
        # loop could be in select() on the closed sockets (EBADF, reported by pytest as a
        # warning of whichever test ran next)
        server.trigger.pull_trigger(server.close)
        serving.join(WAIT)
        assert not serving.is_alive(), "the server's loop did not end"


@pytest.mark.parametrize(
    ("threads", "several", "wrapped"),
    [(1, True, True), (2, True, False), (4, False, False), (1, False, False)],
)
def test_one_of_several_processes_of_one_thread_is_served_so(
    monkeypatch: pytest.MonkeyPatch, threads: int, several: bool, wrapped: bool
) -> None:
    """``serve``'s processes, when there are several of one thread each (its default),
    serve the app through ``Beside``, bound to the server's own threads; with more
    threads (a lone process has four) a download has threads beside it already."""
    import waitress

    import scorekeeper.app

    served: list[Any] = []

    class Dispatcher:
        def set_thread_count(self, count: int) -> None:
            pass

    class Serving:
        task_dispatcher = Dispatcher()

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
    monkeypatch.setattr(scorekeeper.app, "settle", lambda app: None)
    app = object()
    with keeper.listen("127.0.0.1", 0) as sock:
        balance = (0, 0) if several else None
        keeper.serve_on_inherited(app, os.dup(sock.fileno()), threads, balance)
    if wrapped:
        assert isinstance(served[0], keeper.Beside) and served[0].app is app
        assert served[0].set_thread_count == Serving.task_dispatcher.set_thread_count
    else:
        assert served == [app]
