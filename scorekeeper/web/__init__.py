"""The web layer: one package per area, each with a blueprint ``bp`` in views.py."""
