"""Every page of a soak club, requested in-process: a load small enough for valgrind (issue 9).

``build`` makes the club (``soak_phases.prepare``, outside valgrind: it takes seconds
natively and most of an hour under it) and writes its pages to a JSON file; ``read``
requests every page of that file with Flask's test client from ``--threads`` threads,
half of them logged in as the club's owner, ``--rounds`` times each, and prints the
answers it got. See bench/README.md ("memcheck.py") for the valgrind command line.

    python bench/memcheck.py build --db URL --history 5000 --out club.json
    PYTHONMALLOC=malloc valgrind ... python bench/memcheck.py read club.json --rounds 1
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.soak_phases import prepare, read_urls
from scorekeeper.app import create_app
from scorekeeper.config import normalise_db_url

KEY = "memcheck"


def build(db: str, history: int, out: Path) -> None:
    uri = normalise_db_url(db)
    app = create_app({"SQLALCHEMY_DATABASE_URI": uri, "SECRET_KEY": KEY})
    began = time.monotonic()
    made = prepare(app, history, shared=4, scorers=2)
    pages = read_urls(app, made.club_id)
    spec = {"uri": uri, "owner": made.owner, "public": pages.public, "owner_pages": pages.owner}
    out.write_text(json.dumps(spec, indent=1))
    print(f"built {history} matches in {time.monotonic() - began:.1f} s; {len(pages.owner)} pages")


def read(spec_file: Path, rounds: int, threads: int) -> int:
    spec = json.loads(spec_file.read_text())
    app = create_app(
        {
            "SQLALCHEMY_DATABASE_URI": spec["uri"],
            "SECRET_KEY": KEY,
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
        }
    )
    answers: Counter[str] = Counter()
    lock = threading.Lock()

    def reader(number: int) -> None:
        client = app.test_client()
        urls = list(spec["public"])
        if number % 2:
            username, password = spec["owner"]
            login = client.post("/login", data={"username": username, "password": password})
            with lock:
                answers[f"POST /login -> {login.status_code}"] += 1
            urls = list(spec["owner_pages"])
        rng = random.Random(number)
        for _ in range(rounds):
            rng.shuffle(urls)
            for url in urls:
                answer = client.get(url)
                answer.get_data()
                with lock:
                    answers[str(answer.status_code)] += 1
                    if answer.status_code != 200:
                        answers[f"GET {url} -> {answer.status_code}"] += 1

    began = time.monotonic()
    workers = [threading.Thread(target=reader, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    print(f"read in {time.monotonic() - began:.1f} s: {dict(answers)}", flush=True)
    return 0 if set(answers) <= {"200", "POST /login -> 303"} else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    made = steps.add_parser("build", help="make the club in an empty database")
    made.add_argument("--db", required=True, help="an empty database's URL")
    made.add_argument("--history", type=int, default=5000, help="finished matches (5000)")
    made.add_argument("--out", type=Path, required=True, help="the JSON file of its pages")
    reading = steps.add_parser("read", help="request every page of a built club")
    reading.add_argument("spec", type=Path, help="the JSON file build wrote")
    reading.add_argument("--rounds", type=int, default=1, help="times each page (1)")
    reading.add_argument("--threads", type=int, default=4, help="readers at once (4)")
    args = parser.parse_args(argv)
    if args.step == "build":
        build(args.db, args.history, args.out)
        return 0
    return read(args.spec, args.rounds, args.threads)


if __name__ == "__main__":
    raise SystemExit(main())
