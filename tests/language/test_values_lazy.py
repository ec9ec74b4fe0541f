"""Importing the value reader imports no pint and compiles no pattern; each is paid for on first use.

A command that converts no unit (most of ``graphcite show``, a check whose claims hold no value) must not
spend the tenth of a second pint's import and registry take; a value that is read or compared must come
out as it did when everything was built at import (the value tests and ``python -m benchmarks.identical``
prove that; here: that the lazy parts are lazy, and that a lazily compiled pattern is the pattern).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from graphcite.language.values import patterns
from graphcite.language.values.lazyre import LazyPattern, lazy

PROBE = r"""
import json, sys
import graphcite.language.values as values
import graphcite.verify.check
from graphcite.language.values import lazyre, numbers, patterns, unitwords
def compiled():
    mods = [m for n, m in sys.modules.items() if n.startswith("graphcite.language.values.") and m]
    return sorted(f"{m.__name__}.{k}" for m in mods for k, v in vars(m).items()
                  if isinstance(v, lazyre.LazyPattern) and v._compiled is not None)
out = {"pint at import": "pint" in sys.modules, "compiled at import": compiled(),
       "registry built at import": numbers.unit_registry.cache_info().currsize}
found = values.extract_values("The relay retries 4 times.")
out["a count"] = [(v.magnitude, v.unit, v.kind) for v in found]
out["pint after a count"] = "pint" in sys.modules
hours = values.extract_values("parked for 72 hours")[0]
out["hours in base units"] = values.to_base(hours)
out["pint after a conversion"] = "pint" in sys.modules
out["kW·h"] = values.extract_values("used 3 kW·h")[0].unit
out["ureg"] = str(values.ureg.Unit("MiB").dimensionality)
print(json.dumps(out))
"""


def test_pint_and_the_patterns_wait_for_their_first_use() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert out["pint at import"] is False, "importing a check must not import pint"
    assert out["registry built at import"] == 0
    assert out["compiled at import"] == []
    assert out["a count"] == [[4.0, None, "count"]] and out["pint after a count"] is False
    assert out["hours in base units"] == [259200.0, 259200.0, "[time]"]
    assert out["pint after a conversion"] is True
    assert out["kW·h"] == "kilowatt_hour"  # a compound of the data file, named by pint on first lookup
    assert out["ureg"] == "[information]"


def test_a_lazy_pattern_is_the_compiled_pattern_once_used() -> None:
    eager = re.compile(r"(?P<n>\d+)\s*(?P<u>ms|s)\b", re.IGNORECASE)
    made = lazy(lambda: r"(?P<n>\d+)\s*(?P<u>ms|s)\b", re.IGNORECASE)
    assert isinstance(made, LazyPattern) and made._compiled is None
    assert "<lambda>" in repr(made)
    for text in ("took 20 MS today", "5s", "no number", "12 s and 30 ms"):
        assert [m.span() for m in made.finditer(text)] == [m.span() for m in eager.finditer(text)]
        assert (made.search(text) or eager.search(text)) is None or made.search(text).groupdict() == \
            eager.search(text).groupdict()
    assert made.pattern == eager.pattern and made.flags == eager.flags and made.groupindex == eager.groupindex
    assert made.match.__self__ is made.compiled()  # later calls skip the stand-in's __getattr__


def test_every_shipped_table_compiles_to_the_source_it_names() -> None:
    tables = {name: value for name, value in vars(patterns).items() if isinstance(value, LazyPattern)}
    assert len(tables) >= 30
    for name, table in tables.items():
        source = table._source() if callable(table._source) else table._source
        assert table.compiled().pattern == source, name
    assert patterns.WORD_ANCHOR.search("about twelve days") is not None
    assert patterns.DIGIT_ANCHOR.findall("3 of 45½") == ["3", "45½"]
