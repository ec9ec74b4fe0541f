"""The bundled Larkspur example archive: corpus, demo answers and labelled set (data, no code).

A regular package so that ``importlib.resources.files("graphcite.examples")`` returns a real path on
Python 3.11 (a namespace package gives a MultiplexedPath whose ``joinpath`` takes one part only).
"""
