"""One reader of English for claims and evidence alike: lexicon, cues, values, dates and slots.

This package sits at the bottom of graphcite: ingest, claims and verify import it; it imports none of
them, so a claim and a quote are always read by the same code.
"""
