"""Our own labelled suites: documents of domains outside the bundled corpus and claims citing them."""
