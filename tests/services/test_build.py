"""The package builds without a deprecation warning from setuptools.

Built offline from a copy of the source tree with the setuptools the test tools install
(``--no-build-isolation``), so the check needs no network and leaves the tree untouched.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_builds_without_a_deprecation_warning_and_declares_mit(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "scorekeeper", source / "scorekeeper", ignore=shutil.ignore_patterns("__pycache__")
    )
    dist = tmp_path / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir"]
    done = subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-v", "-w", str(dist), "."],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "deprecat" not in output.lower(), output
    (wheel,) = dist.glob("scorekeeper-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert b"License-Expression: MIT" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
