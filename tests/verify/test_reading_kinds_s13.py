"""Kinds of reading error found on the suite's blind2 part (aviation, water billing, a trial protocol,
parking, a marina), one test per kind: each pair is made up here, in words of its own, and runs through
every rule with the real parser."""

from __future__ import annotations

import pytest

from graphcite.claims import decompose
from graphcite.language.values import extract_values
from graphcite.models import Outcome, Relation
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import PairVerdict, evaluate_pair
from graphcite.verify.evidence import Evidence, evidence_from_text, lead_in_of


def _verdicts(claim: str, evidence: Evidence) -> list[PairVerdict]:
    return [evaluate_pair(part, evidence, VerifierConfig()) for part in decompose(claim)]


def _failed(verdicts: list[PairVerdict]) -> set[str]:
    return {f.code for v in verdicts for f in v.findings if f.outcome is Outcome.FAIL}


def _supported(claim: str, evidence: Evidence) -> bool:
    return all(v.relation is Relation.SUPPORTS for v in _verdicts(claim, evidence))


@pytest.mark.parametrize("claim, quote", [
    ("Each kit bag holds a first-aid pouch and a spare radio battery.", "Each kit bag holds a first-aid pouch."),
    ("Members get towels, lockers and hot showers at no cost.", "Members get towels and hot showers at no cost."),
    ("Meals are logged in the ward diary and in the dietitian's chart.", "Meals are logged in the ward diary."),
])
def test_a_conjunct_the_evidence_never_names_is_not_supported(claim: str, quote: str) -> None:
    verdicts = _verdicts(claim, evidence_from_text(quote))
    assert "GC215" in _failed(verdicts)
    assert not any(v.relation is Relation.SUPPORTS for v in verdicts)


def test_a_conjunct_named_in_other_order_or_among_more_is_supported() -> None:
    assert _supported("Each kit bag holds a spare radio battery and a first-aid pouch.",
                      evidence_from_text("Each kit bag holds a first-aid pouch, a map and a spare radio battery."))


def test_a_conjunct_named_only_by_the_heading_is_not_said_by_the_span() -> None:
    evidence = evidence_from_text("Tenants must clear the gutters each autumn.", heading_path=("Gutters and drains",))
    assert "GC215" in _failed(_verdicts("Tenants must clear the gutters and the drains each autumn.", evidence))


@pytest.mark.parametrize("claim, quote, negated", [
    ("The depot still sells paper maps.", "The depot stopped selling paper maps in May.", False),
    ("The library no longer lends laptops.", "The library ceased lending laptops last spring.", True),
])
def test_stopping_an_action_negates_it(claim: str, quote: str, negated: bool) -> None:
    verdicts = _verdicts(claim, evidence_from_text(quote))
    if negated:
        assert all(v.relation is Relation.SUPPORTS for v in verdicts)
    else:
        assert "GC401" in _failed(verdicts)


def test_stopping_at_a_place_is_no_negation() -> None:
    (part,) = decompose("The shuttle stopped at the north gate.")
    assert not part.negated


def test_whichever_comes_first_is_a_selector() -> None:
    quote = "The filter is changed after 500 hours or at the annual service, whichever comes first."
    assert "GC308" in _failed(_verdicts(
        "The filter is changed after 500 hours or at the annual service, whichever comes later.", evidence_from_text(quote)))
    assert _supported("The filter is changed after 500 hours or at the annual service, whichever is sooner.",
                      evidence_from_text(quote))


def test_a_period_on_the_measured_noun_is_the_values_period() -> None:
    quote = "The scheme caps the annual charge of a member at the regional average, which this year is £410."
    assert "GC308" in _failed(_verdicts("The scheme caps a member's charge at £410 a month.", evidence_from_text(quote)))
    assert _supported("The scheme caps a member's charge at £410 a year.", evidence_from_text(quote))


def test_every_member_of_a_class_the_evidence_excepts_one_of_is_contradicted() -> None:
    quote = "The upgrade added a charging point to every bay except bay 9, which has no cable run."
    verdicts = _verdicts("The upgrade added a charging point to every bay.", evidence_from_text(quote))
    assert "GC507" in _failed(verdicts)


def test_an_exception_the_evidence_goes_on_to_describe_is_a_case_it_speaks_of() -> None:
    quote = "Visitors may use any bay, except on race days, when bays 1 to 4 are kept for marshals."
    assert "GC507" not in _failed(_verdicts("On race days bays 1 to 4 are kept for marshals.", evidence_from_text(quote)))


def test_a_passive_claims_doer_must_be_the_evidences_doer() -> None:
    quote = "The river moorings are managed by the Upper Wend Navigation Trust."
    assert "GC214" in _failed(_verdicts("The river moorings are managed by Kettlebrook Marina.", evidence_from_text(quote)))
    assert "GC214" not in _failed(_verdicts("The vote was marred by apathy.",
                                            evidence_from_text("The vote was marred by worries about apathy.")))


def test_how_much_after_by_is_no_doer() -> None:
    verdicts = _verdicts("The inspection can be put off by at most 10% of its interval.",
                         evidence_from_text("The inspection may be deferred by up to 10% of its interval."))
    assert "GC209" not in _failed(verdicts)


def test_a_number_in_words_joins_a_compound_duration() -> None:
    (value,) = extract_values("The longest wait was two weeks and three days.")
    assert value.surface == "two weeks and three days" and value.unit == "week"
    assert abs((value.magnitude or 0) * 7 - 17) < 1e-9
    # a part in words after a comma alone is a new phrase, not the compound's
    assert extract_values("It rained for 3 days, a week later it snowed.")[0].surface == "3 days"


def test_a_unit_in_words_is_the_units_symbol() -> None:
    row = "| Standing charge per m³ | £1.12 |"
    evidence = evidence_from_text(row, block_type="table_row", table_headers=("Charge", "Amount"))
    assert "GC201" not in _failed(_verdicts("The standing charge is £1.12 per cubic metre.", evidence))


def test_an_unknown_plural_is_its_singular() -> None:
    verdicts = _verdicts("A catamaran is charged double the rate.",
                         evidence_from_text("Catamarans are charged double the rate."))
    assert "GC207" not in _failed(verdicts)


def test_a_negative_universal_speaks_of_every_case() -> None:
    verdicts = _verdicts("Four bikes is the most any flat may store.",
                         evidence_from_text("No flat may store more than four bikes."))
    assert not _failed(verdicts) & {"GC401", "GC502"}


def test_at_any_time_against_a_window_is_broadened() -> None:
    verdicts = _verdicts("A tenant may cancel at any time.",
                         evidence_from_text("A tenant may cancel within the first 14 days."))
    assert "GC502" in _failed(verdicts)


def test_the_sentence_that_introduces_a_table_or_list_is_its_lead_in() -> None:
    text = ("# Results\n\nIn the pilot year, the median wait was:\n\n| Clinic | Wait |\n|---|---|\n| North | 9 days |\n\n"
            "Members get:\n\n- a locker\n- two guest passes\n\nCharges are per night.\n\n| Season | Rate |\n|---|---|\n| Low | £20 |\n")
    assert lead_in_of(text, text.index("| North"), "table_row") == "In the pilot year, the median wait was:"
    assert lead_in_of(text, text.index("- two guest"), "list_item") == "Members get:"
    assert lead_in_of(text, text.index("| Low"), "table_row") == ""  # a sentence of its own, no colon
    assert lead_in_of(text, text.index("Charges"), "paragraph") == ""
    row = evidence_from_text("| North | 9 days |", block_type="table_row", table_headers=("Clinic", "Wait"),
                             lead_in="In the pilot year, the median wait was:")
    assert "GC306" not in _failed(_verdicts("In the pilot year, the median wait at North was 9 days.", row))
