"""Number and unit words now live in :mod:`graphcite.language.values` (.numbers and .unitwords);
this name stays for existing imports."""

from __future__ import annotations

from graphcite.language.values.numbers import *  # noqa: F403
from graphcite.language.values.numbers import __all__ as _numbers_all
from graphcite.language.values.unitwords import *  # noqa: F403
from graphcite.language.values.unitwords import __all__ as _words_all

__all__ = [*_numbers_all, *_words_all]
