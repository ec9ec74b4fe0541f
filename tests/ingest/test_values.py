"""Typed-value extraction: every category, the words around a value, unit conversion and offsets."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphcite.ingest.numbers import find_numbers, lookup_unit, parse_number_at
from graphcite.ingest.values import extract_values, to_base, unit_from_header, ureg, values_agree
from graphcite.models import ExtractedValue


def only(text: str, surface: str | None = None, **kwargs: object) -> ExtractedValue:
    """The one value of ``text`` (or the one with ``surface``), checked against ``kwargs``."""
    found = extract_values(text, **kwargs)  # type: ignore[arg-type]
    if surface is not None:
        found = [v for v in found if v.surface == surface]
    assert len(found) == 1, (text, [v.surface for v in extract_values(text)])
    value = found[0]
    assert text[value.start:value.end] == value.surface
    return value


def check(value: ExtractedValue, **expected: object) -> None:
    for name, want in expected.items():
        got = getattr(value, name)
        if isinstance(want, float) and isinstance(got, float):
            assert math.isclose(got, want, rel_tol=1e-9), (name, got, want)
        else:
            assert got == want, (name, got, want)


# --------------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "surface", "magnitude"), [
    ("The table holds 1,250 rows.", "1,250", 1250.0),
    ("The ratio was 12.5 overall.", "12.5", 12.5),
    ("A weight of 0.5 is applied.", "0.5", 0.5),
    ("The offset is -40 today.", "-40", -40.0),
    ("The balance fell to −7 units.", "−7", -7.0),
    ("Exports reached 2.4 billion rows.", "2.4 billion", 2.4e9),
    ("About 10k users signed up.", "10k", 10_000.0),
    ("It holds 1\u202f234\u202f567 keys.", "1\u202f234\u202f567", 1_234_567.0),
])
def test_digit_forms(text: str, surface: str, magnitude: float) -> None:
    check(only(text, surface), magnitude=magnitude)


@pytest.mark.parametrize(("text", "surface", "magnitude"), [
    ("zero errors were logged", "zero", 0.0),
    ("seven workers run", "seven", 7.0),
    ("nineteen shards exist", "nineteen", 19.0),
    ("twenty pods run", "twenty", 20.0),
    ("ninety tickets stayed open", "ninety", 90.0),
    ("twenty-one nodes joined", "twenty-one", 21.0),
    ("two hundred and five jobs", "two hundred and five", 205.0),
    ("three thousand users", "three thousand", 3000.0),
    ("four million rows", "four million", 4e6),
    ("a dozen mirrors", "a dozen", 12.0),
    ("a hundred requests", "a hundred", 100.0),
    ("half a dozen mirrors", "half a dozen", 6.0),
    ("Seven Workers Run", "Seven", 7.0),
])
def test_number_words(text: str, surface: str, magnitude: float) -> None:
    check(only(text, surface), magnitude=magnitude, kind="count")


def test_one_and_a_half_and_fractions() -> None:
    check(only("The drill ran for one and a half hours."), magnitude=1.5, unit="hour", kind="duration")
    check(only("two and a half days"), magnitude=2.5, unit="day")
    assert parse_number_at("three quarters", 0).value == 0.75
    assert parse_number_at("five and a half million", 0).value == 5.5e6


@pytest.mark.parametrize("text", [
    "the third attempt succeeded",
    "the 3rd attempt succeeded",
    "one of the replicas is slow",
    "this one is fine",
    "see RFC 7231 and ISO 8601",
    "encode as utf-8 on x86 or ec2 hosts",
    "ticket SCP-173 is closed",
    "1. Install the tool\n2. Run it",
    "The call is at 14:00 or 6pm.",
    "Host 10.0.0.12 is down.",
    "See https://example.com/v2/items?id=42&page=3 for details.",
    "Read section 4.2 and figure 3 first.",
    "Issue #512 tracks it.",
])
def test_not_values(text: str) -> None:
    assert extract_values(text) == []


def test_text_without_candidates() -> None:
    assert extract_values("") == []
    assert extract_values("No numbers or number words appear in this sentence at all.") == []


# --------------------------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "unit", "magnitude"), [
    ("10 ms", "millisecond", 10.0), ("2 s", "second", 2.0), ("5 sec", "second", 5.0),
    ("7 seconds", "second", 7.0), ("4 minutes", "minute", 4.0), ("9 min", "minute", 9.0),
    ("2 hours", "hour", 2.0), ("3 h", "hour", 3.0), ("200ms", "millisecond", 200.0), ("6 days", "day", 6.0),
    ("2 weeks", "week", 2.0), ("4 months", "month", 4.0), ("1 year", "year", 1.0), ("3 years", "year", 3.0),
    ("thirty minutes", "minute", 30.0), ("an hour", "hour", 1.0), ("a week", "week", 1.0),
    ("half an hour", "hour", 0.5), ("an hour and a half", "hour", 1.5), ("all day", "day", 1.0),
])
def test_durations(text: str, unit: str, magnitude: float) -> None:
    check(only(f"It took {text} overall"), unit=unit, magnitude=magnitude, kind="duration",
          dimensionality="[time]")


def test_vague_duration_has_no_magnitude() -> None:
    check(only("It recovered within a few minutes."), surface="a few minutes", magnitude=None, bound="approx",
          unit="minute")


@pytest.mark.parametrize(("text", "unit"), [
    ("1 KB", "kilobyte"), ("2 MB", "megabyte"), ("3 GB", "gigabyte"), ("4 KiB", "kibibyte"),
    ("5 MiB", "mebibyte"), ("6 GiB", "gibibyte"), ("512 B", "byte"), ("100 bytes", "byte"), ("64 bits", "bit"),
    ("8 TB", "terabyte"), ("10 Mb", "megabit"),
])
def test_data_sizes(text: str, unit: str) -> None:
    check(only(f"The limit is {text} per file"), unit=unit, kind="quantity", dimensionality="[information]")


@pytest.mark.parametrize(("text", "unit", "magnitude"), [
    ("20 °C", "degree_Celsius", 20.0), ("68 °F", "degree_Fahrenheit", 68.0),
    ("25 degrees Celsius", "degree_Celsius", 25.0), ("300 K", "kelvin", 300.0), ("-5 ℃", "degree_Celsius", -5.0),
    ("98.6 degrees fahrenheit", "degree_Fahrenheit", 98.6),
])
def test_temperatures(text: str, unit: str, magnitude: float) -> None:
    check(only(f"Keep it at {text} please"), unit=unit, magnitude=magnitude, kind="temperature",
          dimensionality="[temperature]")


def test_bare_degrees_need_temperature_context() -> None:
    check(only("The room temperature is 21 degrees."), kind="temperature", unit=None)
    check(only("Rotate the panel 90 degrees."), kind="quantity", unit="degree")


@pytest.mark.parametrize(("text", "unit"), [
    ("5 mm", "millimeter"), ("3 cm", "centimeter"), ("2 m", "meter"), ("4 km", "kilometer"),
    ("6 inches", "inch"), ("5 feet", "foot"), ("10 miles", "mile"), ("7 metres", "meter"),
])
def test_lengths(text: str, unit: str) -> None:
    check(only(f"The cable is {text} long"), unit=unit, dimensionality="[length]", kind="quantity")


@pytest.mark.parametrize(("text", "unit"), [
    ("10 g", "gram"), ("2 kg", "kilogram"), ("5 lb", "pound"), ("3 tonnes", "metric_ton"), ("12 ounces", "ounce"),
])
def test_masses(text: str, unit: str) -> None:
    check(only(f"The crate weighs {text} empty"), unit=unit, dimensionality="[mass]", kind="quantity")


@pytest.mark.parametrize(("text", "surface", "unit", "magnitude"), [
    ("The fee is $12.", "$12", "USD", 12.0),
    ("The fee is USD 12.", "USD 12", "USD", 12.0),
    ("The fee is €5.", "€5", "EUR", 5.0),
    ("The fee is 12 dollars.", "12 dollars", "USD", 12.0),
    ("The fee is 5 euros.", "5 euros", "EUR", 5.0),
    ("The fee is £3.50.", "£3.50", "GBP", 3.5),
    ("Revenue hit $1.5M.", "$1.5M", "USD", 1.5e6),
    ("Revenue hit $2 billion.", "$2 billion", "USD", 2e9),
    ("The fee is 50 cents.", "50 cents", "USD", 0.5),
    ("The fee is 200 CHF.", "200 CHF", "CHF", 200.0),
])
def test_money(text: str, surface: str, unit: str, magnitude: float) -> None:
    check(only(text, surface), unit=unit, magnitude=magnitude, kind="money")


def test_pounds_are_mass_unless_money_is_talked_about() -> None:
    check(only("The parcel weighs 25 pounds."), unit="pound", kind="quantity")
    check(only("Quarterly profit rose to 361 million pounds."), unit="GBP", kind="money")


@pytest.mark.parametrize(("text", "surface", "unit", "noun"), [
    ("It serves 5 requests per second.", "5 requests per second", "1 / second", "request"),
    ("It serves 20 req/s at peak.", "20 req/s", "1 / second", "request"),
    ("It serves 300 QPS at peak.", "300 QPS", "1 / second", "query"),
    ("Disks write 100 MB/s.", "100 MB/s", "megabyte / second", None),
    ("Trucks drive 80 km/h there.", "80 km/h", "kilometer_per_hour", None),
    ("It went 60 miles an hour.", "60 miles an hour", "mile_per_hour", None),
])
def test_rates(text: str, surface: str, unit: str, noun: str | None) -> None:
    check(only(text, surface), unit=unit, counted_noun=noun, kind="quantity")


def test_rates_compare_across_units() -> None:
    per_second = only("It serves 5 requests per second.")
    per_minute = only("It serves 300 requests per minute.")
    assert values_agree(per_second, per_minute) is True


@pytest.mark.parametrize(("text", "surface", "magnitude"), [
    ("Error share is 12.5%.", "12.5%", 12.5),
    ("Error share is 12.5 percent.", "12.5 percent", 12.5),
    ("Error share is 3 per cent.", "3 per cent", 3.0),
    ("Error share is twenty percent.", "twenty percent", 20.0),
])
def test_percentages(text: str, surface: str, magnitude: float) -> None:
    check(only(text, surface), magnitude=magnitude, unit="percent", kind="percent",
          dimensionality="dimensionless")


# --------------------------------------------------------------------------------------------
# Ranges
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "surface", "low", "high", "unit"), [
    ("Delivery takes 3 to 5 days.", "3 to 5 days", 3.0, 5.0, "day"),
    ("Delivery takes 3-5 days.", "3-5 days", 3.0, 5.0, "day"),
    ("Delivery takes 3–5 days.", "3–5 days", 3.0, 5.0, "day"),
    ("Delivery takes between 3 and 5 days.", "between 3 and 5 days", 3.0, 5.0, "day"),
    ("Winters run -18 °C to -34 °C there.", "-18 °C to -34 °C", -34.0, -18.0, "degree_Celsius"),
    ("Plans cost $5-$10 a month.", "$5-$10", 5.0, 10.0, "USD"),
    ("Shares move 10% to 20% a year.", "10% to 20%", 10.0, 20.0, "percent"),
])
def test_ranges(text: str, surface: str, low: float, high: float, unit: str) -> None:
    check(only(text, surface), magnitude=None, low=low, high=high, bound="range", unit=unit)


def test_count_ranges_and_year_ranges() -> None:
    check(only("Expect 3-5 retries per job."), kind="count", counted_noun="retry", low=3.0, high=5.0)
    check(only("It ran from 2019 to 2021."), kind="date", bound="range", surface="from 2019 to 2021")


def test_a_change_is_not_a_range() -> None:
    found = extract_values("Latency rose from 5 ms to 50 ms after the deploy.")
    assert [(v.surface, v.bound) for v in found] == [("5 ms", "exact"), ("50 ms", "exact")]


# --------------------------------------------------------------------------------------------
# Dates, versions, revisions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "surface", "first", "last"), [
    ("Shipped on 2024-03-01.", "2024-03-01", "2024-03-01", "2024-03-01"),
    ("Shipped on 1 March 2024.", "1 March 2024", "2024-03-01", "2024-03-01"),
    ("Shipped on March 5, 2024.", "March 5, 2024", "2024-03-05", "2024-03-05"),
    ("Shipped in March 2024.", "March 2024", "2024-03-01", "2024-03-31"),
    ("Valid as of 2024.", "2024", "2024-01-01", "2024-12-31"),
    ("Shipped in Q3 2024.", "Q3 2024", "2024-07-01", "2024-09-30"),
])
def test_dates(text: str, surface: str, first: str, last: str) -> None:
    import datetime as dt

    value = only(text, surface)
    check(value, kind="date", unit=None)
    assert value.low == dt.date.fromisoformat(first).toordinal()
    assert value.high == dt.date.fromisoformat(last).toordinal()


@pytest.mark.parametrize(("text", "surface", "kind", "magnitude"), [
    ("Adapters implement version 2 of the contract.", "version 2", "version", 2.0),
    ("Upgrade to v2.1.0 first.", "v2.1.0", "version", 2.001),
    ("Upgrade to v3 first.", "v3", "version", 3.0),
    ("Release 4.2.1 fixed it.", "4.2.1", "version", 4.002001),
    ("This is revision 31 of the page.", "revision 31", "revision", 31.0),
    ("See rev 4 for the change.", "rev 4", "revision", 4.0),
])
def test_versions_and_revisions(text: str, surface: str, kind: str, magnitude: float) -> None:
    check(only(text, surface), kind=kind, magnitude=magnitude)


def test_version_minor_numbers_stay_distinct() -> None:
    assert only("v2.10").magnitude != only("v2.1").magnitude


# --------------------------------------------------------------------------------------------
# Counts, bounds, roles, measured things
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "surface", "noun"), [
    ("The worker makes three attempts.", "three", "attempt"),
    ("The worker makes 3 retries.", "3", "retry"),
    ("We run five adapters.", "five", "adapter"),
    ("It lost 3 failed nodes.", "3", "node"),
    ("It runs a 5-node cluster.", "5", "node"),
    ("We bought 4 GPUs.", "4", "gpu"),
])
def test_counted_nouns(text: str, surface: str, noun: str) -> None:
    check(only(text, surface), kind="count", counted_noun=noun, unit=None, dimensionality="dimensionless")


def test_a_number_before_a_verb_is_not_a_count() -> None:
    check(only("Of the nodes, 3 failed."), kind="number", counted_noun=None)


@pytest.mark.parametrize(("text", "bound", "role"), [
    ("Responses take a maximum of 200 ms.", "max", "limit"),
    ("Responses take at most 200 ms.", "max", "limit"),
    ("Responses take no more than 200 ms.", "max", "limit"),
    ("Responses take up to 200 ms.", "max", "limit"),
    ("Responses take 200 ms max.", "max", "limit"),
    ("Keep at least 200 ms between calls.", "min", "limit"),
    ("Responses take less than 200 ms.", "max", None),
    ("Responses take more than 200 ms.", "min", None),
    ("Responses take about 200 ms.", "approx", None),
    ("Responses take ~200 ms.", "approx", None),
    ("Responses take 200 ms.", "exact", None),
])
def test_bounds(text: str, bound: str, role: str | None) -> None:
    check(only(text), bound=bound, role=role)


@pytest.mark.parametrize(("text", "role", "measured"), [
    ("The p99 latency was 200 ms.", "observed", "latency"),
    ("We measured 200 ms on the replica.", "observed", None),
    ("The migration took 3 hours.", "observed", "migration"),
    ("Peak throughput observed 40 requests per second.", "observed", "throughput"),
    ("We set a target of 99.9% availability.", "target", None),
    ("We aim for 200 ms at the edge.", "target", None),
    ("The timeout defaults to 30 seconds.", "default", "timeout"),
    ("It uses a default of 3 retries.", "default", None),
    ("The default timeout is 30 s.", "default", "timeout"),
    ("The retention is 30 days.", None, "retention"),
])
def test_roles_and_measured(text: str, role: str | None, measured: str | None) -> None:
    check(only(text), role=role, measured=measured)


@pytest.mark.parametrize(("text", "measured"), [
    ("The outage caused 9 minutes of impact.", "impact"),
    ("The team spent six hours of investigation.", "investigation"),
    ("It used 3 GB of memory.", "memory"),
])
def test_measured_after_of(text: str, measured: str) -> None:
    check(only(text), measured=measured)


def test_role_and_bound_together() -> None:
    check(only("p99 latency was about 180 ms."), role="observed", bound="approx", measured="latency")
    check(only("Checkout latency must stay at most 200 ms."), role="limit", bound="max", measured="latency")


def test_cues_stop_at_the_sentence() -> None:
    found = extract_values("The cap is at most 9 GB. Then 2 GB were used.")
    assert [(v.surface, v.bound) for v in found] == [("9 GB", "max"), ("2 GB", "exact")]


# --------------------------------------------------------------------------------------------
# Table headers and default units
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("header", "unit"), [
    ("Timeout (ms)", "millisecond"), ("Size [MiB]", "mebibyte"), ("Retention (days)", "day"),
    ("Share (%)", "percent"), ("Cost (USD)", "USD"), ("Latency in seconds", "second"), ("Name", None),
    ("Owner (team)", None), ("", None),
])
def test_unit_from_header(header: str, unit: str | None) -> None:
    assert unit_from_header(header) == unit


def test_default_unit_for_table_cells() -> None:
    check(only("250", default_unit="millisecond"), unit="millisecond", kind="duration", magnitude=250.0)
    check(only("12.5", default_unit="percent"), unit="percent", kind="percent")
    check(only("3-5", default_unit="day"), unit="day", low=3.0, high=5.0, bound="range")
    check(only("40 s", default_unit="millisecond"), unit="second")  # a written unit wins


# --------------------------------------------------------------------------------------------
# Conversion and agreement
# --------------------------------------------------------------------------------------------


def test_to_base_equates_fourteen_days_and_two_weeks() -> None:
    days, weeks = only("14 days"), only("2 weeks")
    assert to_base(days) == to_base(weeks)
    assert to_base(days)[2] == "[time]"
    assert values_agree(days, weeks) is True


def test_percent_scale_matters() -> None:
    small, large = only("1.25%"), only("12.5%")
    assert to_base(small)[0] == pytest.approx(0.0125)
    assert values_agree(small, large) is False


def test_megabytes_are_not_mebibytes() -> None:
    mb, mib = only("512 MB"), only("512 MiB")
    assert to_base(mb)[0] != to_base(mib)[0]
    assert values_agree(mb, mib) is False
    assert values_agree(only("1024 MiB"), only("1 GiB")) is True


def test_temperatures_convert_with_offsets() -> None:
    assert values_agree(only("0 °C"), only("32 °F")) is True
    low, high, dims = to_base(only("-18 °C to -34 °C"))
    assert dims == "[temperature]" and low == pytest.approx(239.15) and high == pytest.approx(255.15)


def test_values_agree_with_ranges_and_points() -> None:
    inside, outside, span = only("4 days"), only("9 days"), only("3-5 days")
    assert values_agree(inside, span) is True
    assert values_agree(span, inside) is True
    assert values_agree(outside, span) is False
    assert values_agree(span, only("between 72 and 120 hours")) is True


def test_values_agree_is_numeric_only() -> None:
    assert values_agree(only("at most 200 ms"), only("The p99 latency was 200 ms.")) is True
    assert values_agree(only("3 retries"), only("three attempts")) is True


def test_incomparable_values() -> None:
    assert values_agree(only("14 days"), only("14 GB")) is None
    assert values_agree(only("$12"), only("€12")) is None
    assert values_agree(only("12%"), only("12 users")) is None
    assert values_agree(only("version 2"), only("revision 2")) is None
    assert values_agree(only("a few minutes"), only("3 minutes")) is None


def test_dates_agree_by_containment() -> None:
    day, month = only("2024-03-05"), only("March 2024")
    assert values_agree(day, month) is True
    assert values_agree(only("2024-04-05"), month) is False


def test_registry_is_shared_and_knows_information() -> None:
    assert str(ureg.Unit("MiB").dimensionality) == "[information]"
    assert lookup_unit("Mb").unit == "megabit" and lookup_unit("MB").unit == "megabyte"


def test_find_numbers_layer() -> None:
    assert [(n.start, n.end, n.value) for n in find_numbers("minus five and 1,024 but not 180ml")] == [
        (0, 10, -5.0), (15, 20, 1024.0)]


# --------------------------------------------------------------------------------------------
# Offsets: properties over generated text
# --------------------------------------------------------------------------------------------

_SNIPPETS = ["200 ms", "14 days", "3 retries", "12.5%", "$1,250", "two weeks", "512 MiB", "three attempts",
             "v2.1.0", "between 3 and 5 days", "at most 30 s", "-18 °C to -34 °C", "2024-03-01", "1 March 2024",
             "revision 31", "a dozen", "half an hour", "20 req/s", "100 MB/s", "Q3 2024", "€5", "1.5M", "~7",
             "3-", "-", "1/2", "½", "10 1/2 miles", "5+ years", "0.", ".5", "1e3", "v", "rev", "March", "%",
             "twenty-", "and", "to", "minus", "USD", "°", "(kg)", "\n1. ", "https://x.io/3", "9:30", "x86"]
_FILLER = st.text(alphabet=st.sampled_from(list("ab xyz.,;:-()$%°\n\t0123456789½")), max_size=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(_SNIPPETS), _FILLER), max_size=14))
def test_offsets_are_valid_sorted_and_disjoint(parts: list[str]) -> None:
    text = " ".join(parts)
    found = extract_values(text)
    previous_end = 0
    for value in found:
        assert 0 <= value.start < value.end <= len(text)
        assert text[value.start:value.end] == value.surface
        assert value.start >= previous_end
        previous_end = value.end
        assert value.bound in ("exact", "max", "min", "approx", "range")
        assert value.kind in ("quantity", "count", "percent", "money", "temperature", "duration", "date",
                              "version", "revision", "number")
        if value.bound == "range":
            assert value.magnitude is None and value.low is not None and value.low <= value.high


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    for value in extract_values(text):
        assert text[value.start:value.end] == value.surface
        to_base(value)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(_SNIPPETS[:21]), st.text(alphabet="abc ,.", max_size=20), st.text(alphabet="abc ,.",
                                                                                        max_size=20))
def test_offsets_shift_with_the_text_around(snippet: str, before: str, after: str) -> None:
    """A value read alone is read the same, at shifted offsets, after a sentence boundary."""
    alone = extract_values(snippet)
    embedded = extract_values(f"{before}. {snippet}. {after}")
    shift = len(before) + 2
    alone_spans = {(v.start + shift, v.end + shift, v.magnitude, v.unit) for v in alone}
    embedded_spans = {(v.start, v.end, v.magnitude, v.unit) for v in embedded}
    assert alone_spans <= embedded_spans or not alone


_UNITS_FOR_FAST_PATH = ["ms", "s", "days", "GB", "MiB", "%", "km", "kg", "lb", "pounds", "inches", "h", "min", "K",
                        "m", "t", "B", "years", "weeks", "retries", "°C", "dollars", "per cent", "users",
                        "million", "of", "March", "failed", "failed nodes", "req/s", "requests per second",
                        "percent of", "dozen", "square meters", "metric tons", "yo", "thru 5 days", "k",
                        "degrees", "deg", "MUSD", "(kg)", "ms-long", "sq ft"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5000), st.sampled_from(["", " "]), st.sampled_from(_UNITS_FOR_FAST_PATH),
                          st.sampled_from([" ", ", ", " and ", " to ", "-", " per ", ". ", " of cost ", "/"])),
                max_size=6))
def test_plain_fast_path_matches_the_full_path(items: list[tuple[int, str, str, str]]) -> None:
    """The one-step path for "14 days" gives exactly what the full path gives."""
    from graphcite.ingest.values import _extract

    text = "".join(f"{n}{space}{unit}{joiner}" for n, space, unit, joiner in items)
    assert _extract(text, None) == _extract(text, None, fast=False)


_TOKEN_PIECES = ["abc", "x", "v", "V", "Q", "q", "USD", "EUR", "é", "Ab", "_", "#", "§", ".", ":", "/", "-", "−", ",",
                 "`", " ", "(", "3", "42", "2024", "1.5", "0x1f", "19bda8a225", "ms", "days", "%", "one", "\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TOKEN_PIECES), max_size=14))
def test_identifier_prefilter_matches_the_full_path(pieces: list[str]) -> None:
    """Digits in identifiers, hashes and code tokens ("abc123", "x_2", "#42", "a1.b2", "v2", "USD5",
    "Q3 2024") are skipped by the pre-filter exactly where the full reader skips them."""
    from graphcite.ingest.values import _extract

    text = "".join(pieces)
    assert _extract(text, None) == _extract(text, None, fast=False)


@pytest.mark.parametrize("text", ["abc`3 days", "x`42 ms", "a(5 s", "é5 days", "x_2 days", "#4 retries", "§3 s",
                                  "a1.5 s", "b:30 min", "c/3 days", "d-4 h", "e−4 h", "f,5 s", "-4 h", ".5 s",
                                  "ab v2.1", "abcdeUSD5", "xUSD5", "USD5", "aQ3 2024", "Q3 2024", "v3.2", "1v2"])
def test_identifier_prefilter_matches_the_full_path_on_edges(text: str) -> None:
    from graphcite.ingest.values import _extract

    assert _extract(text, None) == _extract(text, None, fast=False)


def test_identifier_prefilter_keeps_prefixed_values() -> None:
    """The pre-filter leaves versions, quarters and currency codes glued to digits to their readers."""
    from graphcite.ingest.values import _extract

    kinds = [v.kind for v in _extract("see v2.1, Q3 2024 and USD115 but not abc123, x_2, #42 or a1.b2", None)]
    assert kinds == ["version", "date", "money"]
