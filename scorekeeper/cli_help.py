"""How every ``scorekeeper`` subcommand's ``--help`` is laid out (``cli`` and ``cli_data``)."""

from __future__ import annotations

import argparse
import textwrap


def fill(*paragraphs: str) -> str:
    """Paragraphs wrapped at 79 columns; a paragraph that starts with a space is kept as is
    (without that space), for examples."""
    return "\n\n".join(p[1:] if p.startswith(" ") else _wrap(p) for p in paragraphs)


def _wrap(paragraph: str) -> str:
    # never at a hyphen: "QR-kód", "демо-клуб" and "-wal" stay whole in every language
    return textwrap.fill(paragraph, 79, break_on_hyphens=False)


def formatter(prog: str) -> argparse.HelpFormatter:
    """Descriptions and epilogs as ``fill`` laid them out; options aligned."""
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=28)
