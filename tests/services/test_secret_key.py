"""The instance secret key: one private key, whoever starts first; never an empty one."""

from __future__ import annotations

import multiprocessing
import re
import stat
from pathlib import Path

import pytest

from scorekeeper.secret_key import SecretKeyError, instance_secret

PROCESSES = 8
TRIALS = 10


def _start(instance: str, barrier: multiprocessing.synchronize.Barrier, keys: object) -> None:
    barrier.wait(timeout=60)
    keys.put(instance_secret(Path(instance)))  # type: ignore[attr-defined]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_eight_processes_starting_at_once_all_end_with_the_same_private_key(
    tmp_path: Path,
) -> None:
    context = multiprocessing.get_context("fork")
    differing = []
    for trial in range(TRIALS):
        instance = tmp_path / f"instance-{trial}"
        barrier, keys = context.Barrier(PROCESSES), context.Queue()
        workers = [
            context.Process(target=_start, args=(str(instance), barrier, keys))
            for _ in range(PROCESSES)
        ]
        for worker in workers:
            worker.start()
        found = [keys.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(timeout=60)
        assert [w.exitcode for w in workers] == [0] * PROCESSES
        stored = (instance / "secret_key").read_text().strip()
        if set(found) != {stored} or len(stored) != 64:
            differing.append(trial)
        assert _mode(instance / "secret_key") == 0o600
        assert sorted(p.name for p in instance.iterdir() if p.name != ".secret_key.lock") == [
            "secret_key"
        ]  # no temporary file left behind
    assert not differing, f"{len(differing)} of {TRIALS} trials ended with different keys"


def test_the_key_file_is_private_from_the_moment_it_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    seen: list[int] = []
    real_open = os.open

    def watching_open(path: str, flags: int, mode: int = 0o777) -> int:
        descriptor = real_open(path, flags, mode)
        seen.append(stat.S_IMODE(os.fstat(descriptor).st_mode))
        return descriptor

    monkeypatch.setattr(os, "umask", os.umask)  # restored whatever the test does
    old = os.umask(0)  # even with no umask to narrow it
    try:
        monkeypatch.setattr(os, "open", watching_open)
        key = instance_secret(tmp_path)
    finally:
        os.umask(old)
    assert seen and all(mode == 0o600 for mode in seen)
    assert _mode(tmp_path / "secret_key") == 0o600
    assert instance_secret(tmp_path) == key  # read back, not made again


def test_an_empty_key_file_is_replaced_by_a_private_key_that_stays(tmp_path: Path) -> None:
    (tmp_path / "secret_key").write_text("")
    key = instance_secret(tmp_path)
    assert len(key) == 64
    assert _mode(tmp_path / "secret_key") == 0o600
    assert instance_secret(tmp_path) == key


def test_a_world_readable_key_made_by_an_older_version_is_kept_and_made_private(
    tmp_path: Path,
) -> None:
    path = tmp_path / "secret_key"
    path.write_text("a" * 64 + "\n")
    path.chmod(0o644)
    assert instance_secret(tmp_path) == "a" * 64
    assert _mode(path) == 0o600


@pytest.mark.parametrize(
    "content", [b"\x00\x01\x02garbage\xff", b"short", b"two words here and more"]
)
def test_a_key_file_that_holds_no_key_is_refused_with_what_to_do(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / "secret_key").write_bytes(content)
    with pytest.raises(SecretKeyError, match=r"does not hold a key.*Move it away"):
        instance_secret(tmp_path)
    assert (tmp_path / "secret_key").read_bytes() == content  # never overwritten


def test_serve_says_what_is_wrong_with_the_key_file_instead_of_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorekeeper import cli, config

    (tmp_path / "secret_key").write_bytes(b"short")
    monkeypatch.delenv("SCOREKEEPER_SECRET_KEY", raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/club.sqlite3")
    monkeypatch.setattr(config, "instance_secret", lambda _instance: instance_secret(tmp_path))
    assert cli.main(["serve", "--host", "127.0.0.1", "--port", "0"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert re.match(r"scorekeeper: error: The secret key file .* does not hold", err[0])
