"""The engine is pure standard library: importing it loads no web or database module."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN = ("flask", "flask_sqlalchemy", "sqlalchemy", "wtforms", "flask_wtf")


def test_importing_the_engine_loads_no_flask_sqlalchemy_or_wtforms_module() -> None:
    code = (
        "import sys, scorekeeper.engine\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(loaded))\n"
    )
    # ``-c`` puts the working directory first on the path: run from the repository root.
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == ""


def test_the_purity_check_would_notice_a_forbidden_import() -> None:
    # Guard against a check that can never fail: loading one of the modules shows up.
    code = "import sys, wtforms\nprint('wtforms' in sys.modules)\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "True"
