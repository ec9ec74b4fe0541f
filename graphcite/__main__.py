"""``python -m graphcite`` runs the command line."""

from graphcite.cli import main

main()
