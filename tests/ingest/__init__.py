"""Tests of the ingest stage (a package so module names cannot clash with tests/export)."""
