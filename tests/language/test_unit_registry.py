"""The pint registry read back from the on-disk cache is the one built from the definitions, unit for unit.

:func:`graphcite.language.values.numbers.unit_registry` caches pint's parsed definitions in the user's
cache directory so a process starts sooner; a value must never depend on whether the cache was there.
Each registry here is built in its own process (a cold cache, then a warm one) and compared on every
unit: dimensionality, base magnitude, base unit and offset.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FINGERPRINT = r"""
import json, sys
from graphcite.language.values import numbers
registry = numbers.build_registry_uncached() if sys.argv[1] == "uncached" else numbers.unit_registry()
out = {}
for name in sorted(registry._units):
    try:
        one, zero = registry.Quantity(1.0, name), registry.Quantity(0.0, name)
        base = one.to_base_units()
        out[name] = [str(one.dimensionality), repr(base.magnitude), str(base.units),
                     repr(zero.to_base_units().magnitude)]
    except Exception as exc:  # a unit pint cannot take to base units must fail the same way in both
        out[name] = ["error", type(exc).__name__]
out["prefixes"] = sorted(registry._prefixes)
out["spelled"] = [str(registry.parse_units(x)) for x in ("km/h", "kWh", "Mbit/s", "pp", "decade", "MB")]
out["3 MB in bit"] = str(registry.Quantity(3, "MB").to("bit"))
print(json.dumps(out, sort_keys=True))
"""


def _fingerprint(mode: str, cache: Path) -> dict[str, object]:
    env = {**os.environ, "GRAPHCITE_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-c", FINGERPRINT, mode], capture_output=True, text=True, env=env,
                          check=True)
    return json.loads(done.stdout)


def test_the_cached_registry_is_the_uncached_one_cold_and_warm(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    reference = _fingerprint("uncached", tmp_path / "unused")
    assert len(reference) > 1000 and reference["3 MB in bit"] == "24000000.0 bit"
    assert reference["gram"][2] == "gram"  # no default system: base units are pint's root units
    cold = _fingerprint("cached", cache)
    assert list(cache.glob("pint-*/definitions-*.txt")), "the first process writes the cache"
    warm = _fingerprint("cached", cache)
    assert cold == reference
    assert warm == reference


def test_an_unwritable_cache_folder_still_gives_the_registry(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")  # the cache folder would have to live inside a file
    found = _fingerprint("cached", blocked)
    assert found["decade"] == ["[time]", "315576000.0", "second", "0.0"]
    assert found["bit"][0] == "[information]"
