"""Engine tests need no app: only the repository root on the import path.

The package is not installed into the virtualenv, and ``pyproject.toml`` sets no
``pythonpath``; so that ``pytest tests/engine`` works from any directory, the root is
added here. Harmless once the package is installed or ``pythonpath`` is set.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
