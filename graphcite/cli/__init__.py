"""The command line: a thin layer over library functions of the same names.

:mod:`.app` holds the Typer app and the core commands (ingest, check, gate, ...); each family of
commands has its own module (:mod:`.graph`, :mod:`.formats`, :mod:`.lifecycle`, :mod:`.reviewers`,
:mod:`.batch`, :mod:`.serve`) that adds itself to the app through ``register(app)``; :mod:`.common`
holds the shared options, output helpers and the error handling that turns a user mistake into one
line and exit code 2. The service (:mod:`graphcite.serve`) calls the same library functions.
"""

from graphcite.cli.app import app, main

__all__ = ["app", "main"]
