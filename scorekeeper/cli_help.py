"""How every ``scorekeeper`` subcommand's ``--help`` is laid out (``cli`` and ``cli_data``)."""

from __future__ import annotations

import argparse
import textwrap


def fill(*paragraphs: str) -> str:
    """Paragraphs wrapped at 79 columns; a paragraph that starts with a space is kept as is
    (without that space), for examples."""
    return "\n\n".join(p[1:] if p.startswith(" ") else textwrap.fill(p, 79) for p in paragraphs)


def formatter(prog: str) -> argparse.HelpFormatter:
    """Descriptions and epilogs as ``fill`` laid them out; options aligned."""
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=28)
