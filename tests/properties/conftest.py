"""Property tests need no app: only the repository root and this folder on the import path.

The package is not installed into the virtualenv and ``pyproject.toml`` sets no
``pythonpath``, so the root is added here (as ``tests/engine/conftest.py`` does); this
folder holds ``strategies.py``, which the test modules import by name.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (HERE.parents[1], HERE):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
