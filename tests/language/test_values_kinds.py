"""Values as people write them (issue 13, section 3): one test per kind of writing, each on a real
sentence, checked in pint base units so the unit's spelling does not matter, only what it means."""

from __future__ import annotations

import math

import pytest

from graphcite.language.values import extract_values, to_base, ureg
from graphcite.models import ExtractedValue


def _one(text: str, surface: str) -> ExtractedValue:
    found = [v for v in extract_values(text) if v.surface == surface]
    assert found, f"{surface!r} not read in {text!r}: {[v.surface for v in extract_values(text)]}"
    return found[0]


def _is(value: ExtractedValue, amount: float, unit: str) -> None:
    """``value`` states ``amount`` of pint ``unit`` (a point, or the midpoint of a range)."""
    low, high, dims = to_base(value)
    assert low is not None and high is not None
    expected = ureg.Quantity(amount, unit).to_base_units()
    assert dims == str(expected.dimensionality)
    assert math.isclose((low + high) / 2, expected.magnitude, rel_tol=1e-9)


def test_mixed_fraction_with_inches() -> None:
    text = "The shelf board is 1 3/4 in thick, so the screws must be longer."
    _is(_one(text, "1 3/4 in"), 1.75, "inch")
    # a bare "in" that starts a phrase stays a preposition
    assert next(v.surface for v in extract_values("She was 2 in 1979.")) == "2"


def test_powers_and_words_for_area_and_volume() -> None:
    text = "The lake holds 2.5 km^3 of water, that is 2.5 cubic kilometres, or 2.5 km cubed."
    for surface in ("2.5 km^3", "2.5 cubic kilometres", "2.5 km cubed"):
        _is(_one(text, surface), 2.5, "kilometer ** 3")
    area = "The reserve covers 40 km², also written 40 km^2, 40 square kilometers or 40 km squared."
    for surface in ("40 km²", "40 km^2", "40 square kilometers", "40 km squared"):
        _is(_one(area, surface), 40, "kilometer ** 2")
    _is(_one("Violet light oscillates near 7.5e14 s-1 at the short end.", "7.5e14 s-1"), 7.5e14, "1 / second")


def test_compound_duration_is_one_value() -> None:
    text = "The expedition lasted 2 years, 5 months, 3 days and 6 hours before the ship returned."
    values = extract_values(text)
    assert [v.surface for v in values] == ["2 years, 5 months, 3 days and 6 hours"]
    total = (ureg.Quantity(2, "year") + ureg.Quantity(5, "month") + ureg.Quantity(3, "day")
             + ureg.Quantity(6, "hour"))
    _is(values[0], total.to("year").magnitude, "year")
    # an ascending list is two values, not a sum
    assert len(extract_values("Sentences of 3 years, 5 years and 8 years were handed down.")) == 3


@pytest.mark.parametrize(("text", "surface", "amount", "unit"), [
    ("Silicon's band gap is 1.12 eV at room temperature.", "1.12 eV", 1.12, "electron_volt"),
    ("The collider reached 13.6 TeV in its third run.", "13.6 TeV", 13.6, "teraelectron_volt"),
    ("The mill processes 1,200 tpd of ore.", "1,200 tpd", 1200, "ton / day"),
    ("Planck's constant is close to 6.626e-34 J·s in SI units.", "6.626e-34 J·s", 6.626e-34, "joule * second"),
    ("Our backups grew to 3 exabytes by spring.", "3 exabytes", 3, "exabyte"),
    ("Each record fits in 64 kibibytes of memory.", "64 kibibytes", 64, "kibibyte"),
    ("The patient received 14 mGy from the scan.", "14 mGy", 14, "milligray"),
    ("The rocks formed about 66 Ma ago.", "66 Ma", 66, "megayear"),
])
def test_units_pint_knows(text: str, surface: str, amount: float, unit: str) -> None:
    _is(_one(text, surface), amount, unit)


def test_range_with_one_unit() -> None:
    tev = _one("Beams collided at 6.5–7.0 TeV during the test.", "6.5–7.0 TeV")
    assert tev.bound == "range" and (tev.low, tev.high) == (6.5, 7.0)
    _is(tev, 6.75, "teraelectron_volt")
    _is(_one("The archive holds 20-25 exabytes of scans.", "20-25 exabytes"), 22.5, "exabyte")
    _is(_one("A proposed 8- to 16-meter mirror was studied.", "8- to 16-meter"), 12, "meter")


def test_scale_suffixes_on_money() -> None:
    gdp = _one("Its output reached $1.3T last year and $2.2bn came from exports.", "$1.3T")
    assert gdp.kind == "money" and gdp.unit == "USD" and gdp.magnitude == 1.3e12


def test_spelled_numbers() -> None:
    assert _one("She lit a hundred and two lanterns.", "a hundred and two").magnitude == 102
    assert _one("He read out three million, two hundred & forty names.",
                "three million, two hundred & forty").magnitude == 3_000_240
    # a list of round numbers after a comma is still a list
    assert [v.magnitude for v in extract_values("Prices: one thousand, two thousand, three thousand.")] == [
        1000, 2000, 3000]
    cents = _one("Give me one hundred cents for the coin.", "one hundred cents")
    assert (cents.unit, cents.magnitude) == ("USD", 1.0)
    _is(_one("He drank a gallon of water on the hike.", "a gallon"), 1, "gallon")
    penny = _one("Look, a penny on the floor!", "a penny")
    assert (penny.unit, penny.magnitude) == ("GBP", 0.01)


def test_scientific_notation() -> None:
    assert _one("The residual was 3.1×10−4 after tuning.", "3.1×10−4").magnitude == 3.1e-4
    assert _one("The residual was 2×10⁻⁵ at worst.", "2×10⁻⁵").magnitude == 2e-5
    _is(_one("Each page holds 4x2^10 bytes of text.", "4x2^10 bytes"), 4096, "byte")


def test_rates_in_money() -> None:
    wage = _one("She asked for $18.5/hour on the night shift.", "$18.5/hour")
    assert (wage.unit, wage.magnitude) == ("USD / hour", 18.5)
    price = _one("Copper went for $350 per kg to $680 per kg over the decade.", "$350 per kg to $680 per kg")
    assert (price.unit, price.low, price.high) == ("USD / kilogram", 350, 680)


def test_small_lengths_and_clock_times() -> None:
    _is(_one("The lattice spacing is 3.5 pm here.", "3.5 pm"), 3.5, "picometer")
    assert extract_values("We met at 7.45 am and left at 5 pm.") == []


def test_lengths_written_with_a_power_digit() -> None:
    text = "Melt rose to about 220 km3 (52.8 cu mi) a year, over 5 mi2 of shelf."
    _is(_one(text, "220 km3"), 220, "kilometer ** 3")
    _is(_one(text, "52.8 cu mi"), 52.8, "mile ** 3")
    _is(_one(text, "5 mi2"), 5, "mile ** 2")
    # a product the reader cannot resolve keeps its first unit rather than dropping it
    _is(_one("Forcing reached 1.82 W·m2 by then.", "1.82 W"), 1.82, "watt")


def test_money_rate_range_and_time_phrases() -> None:
    spend = _one("Adaptation costs $25 billion to $45 billion per year by 2030.", "$25 billion to $45 billion per year")
    assert (spend.unit, spend.low, spend.high) == ("USD / year", 25e9, 45e9)
    # "a year earlier" is when, not a rate; "a tonne" after a price is not a tonne of its own
    sales = extract_values("Sales were $1.2 billion a year earlier, at $40 a tonne.")
    assert [(v.surface, v.unit) for v in sales] == [("$1.2 billion", "USD"), ("$40", "USD")]


@pytest.mark.parametrize(("text", "surface"), [
    ("Copyright 2016 - 2019 Kim Lee and others.", "2016 - 2019"),  # "Kim" is a name, not kibi-metres
    ("The depot installed 500 EV chargers.", "500"),  # "EV" is a car here, not an exavolt
    ("They bought 3 TV sets.", "3"),  # nor "TV" a teravolt
])
def test_words_pint_could_misread_stay_words(text: str, surface: str) -> None:
    value = _one(text, surface)
    assert value.unit is None


def test_units_divided_by_units() -> None:
    _is(_one("Crews on the station absorb 20 J/m^2 per year.", "20 J/m^2 per year"), 20, "joule / meter ** 2 / year")
    _is(_one("Objects there fall at 3.7 m/s2.", "3.7 m/s2"), 3.7, "meter / second ** 2")
    _is(_one("The trial used 5 mg/kg twice daily.", "5 mg/kg"), 5, "milligram / kilogram")


def test_value_with_its_uncertainty() -> None:
    rise = _one("Sea level rose by 3.1 ± 0.3 mm per year over the decade.", "3.1 ± 0.3 mm per year")
    assert (rise.magnitude, rise.bound, rise.unit) == (3.1, "approx", "millimeter / year")
    assert math.isclose(rise.low or 0, 2.8) and math.isclose(rise.high or 0, 3.4)
    warm = _one("The decade was 0.93 +/- 0.07 °C warmer.", "0.93 +/- 0.07 °C")
    assert (warm.magnitude, warm.unit) == (0.93, "degree_Celsius")


def test_working_and_business_days_are_days() -> None:
    """A "working day" is a duration, not a count of "work" (a claim's deadline must reach the value rules)."""
    _is(_one("The help desk answers within one working day.", "one working day"), 1, "day")
    _is(_one("Refunds reach the card in 3 business days.", "3 business days"), 3, "day")
    assert extract_values("She kept working day and night.") == []


def test_a_fraction_of_a_unit_is_one_duration() -> None:
    """"a quarter of an hour" is 15 minutes, not "an hour"; "three quarters of an hour" is 45 minutes."""
    from graphcite.language.values.extract import values_in

    assert [(v.surface, v.magnitude, v.unit) for v in values_in("Check in within a quarter of an hour.")] == [
        ("a quarter of an hour", 0.25, "hour")]
    assert [(v.magnitude, v.unit) for v in values_in("It takes three quarters of an hour.")] == [(0.75, "hour")]
    assert [(v.magnitude, v.unit) for v in values_in("three quarters of the staff")] == [(0.75, None)]


@pytest.mark.parametrize(("text", "bound"), [
    ("Do not take more than 600 mg in 24 hours.", "max"),
    ("Prices did not rise more than 5%.", "max"),
    ("Never use less than 2 litres.", "min"),
    ("Rents rose more than 5%.", "min"),
])
def test_a_negated_comparison_is_the_opposite_bound(text: str, bound: str) -> None:
    assert extract_values(text)[0].bound == bound
