"""Kinds of reading error found on the suite's fresh part (other people's domains), one test per kind:
each pair is made up here, in words of its own, and runs through every rule with the real parser."""

from __future__ import annotations

import pytest

from graphcite.claims import decompose
from graphcite.models import Outcome, Relation
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import PairVerdict, evaluate_pair
from graphcite.verify.evidence import Evidence, evidence_from_text


def _verdicts(claim: str, evidence: Evidence) -> list[PairVerdict]:
    return [evaluate_pair(part, evidence, VerifierConfig()) for part in decompose(claim)]


def _failed(verdicts: list[PairVerdict]) -> set[str]:
    return {f.code for v in verdicts for f in v.findings if f.outcome is Outcome.FAIL}


def _table(row: str, headers: str) -> Evidence:
    return evidence_from_text(row, block_type="table_row", table_headers=tuple(h.strip() for h in headers.split("|")))


@pytest.mark.parametrize("claim, quote", [
    ("A permit can be renewed once, provided the request is made 10 or more days before expiry.",
     "A permit can be renewed once, provided the request is made at least 10 days before expiry."),
    ("Riders can wait no more than 12 minutes at the kerb.", "Riders can wait 12 minutes at the kerb."),
])
def test_a_bound_written_after_its_value_is_the_values_not_a_word_to_find(claim: str, quote: str) -> None:
    verdicts = _verdicts(claim, evidence_from_text(quote))
    assert not _failed(verdicts) & {"GC205", "GC403", "GC301", "GC203"}
    assert all(v.relation is Relation.SUPPORTS for v in verdicts)


def test_more_than_a_number_still_excludes_it() -> None:
    verdicts = _verdicts("Riders can wait more than 12 minutes at the kerb.",
                         evidence_from_text("Riders can wait 12 minutes at the kerb."))
    assert "GC301" in _failed(verdicts)


def test_a_negated_antonym_says_the_word_but_a_denied_thing_is_not_its_opposite() -> None:
    said = _verdicts("Pupils who miss the trip write a short essay instead.",
                     evidence_from_text("Pupils who cannot attend the trip write a short essay instead."))
    assert "GC205" not in _failed(said)
    assert all(v.relation is Relation.SUPPORTS for v in said)
    other = _verdicts("There is no girl riding a pony.", evidence_from_text("The boy is riding a pony."))
    assert "GC205" in _failed(other)


def test_a_connectives_words_are_no_slots() -> None:
    verdict = _verdicts("Bikes may be parked here as long as the rack is not full.",
                        evidence_from_text("Bikes may be parked here unless the rack is full."))
    missing = {s for v in verdict for f in v.findings if f.code == "GC201" for s in [f.detail or ""]}
    assert not any("long" in m for m in missing)


def test_a_clause_qualifying_a_noun_that_the_evidence_never_says_leaves_the_claim_unsupported() -> None:
    verdicts = _verdicts("He founded the studio that later became a national broadcaster.",
                         evidence_from_text("He was a sound engineer and the founder of the studio."))
    assert "GC212" in _failed(verdicts)
    assert all(v.relation is not Relation.SUPPORTS for v in verdicts)


@pytest.mark.parametrize("claim", ["The shuttle stops at the north car park.",
                                   "Residents get the discount on parking fines."])
def test_what_the_evidence_sets_apart_is_not_what_it_says(claim: str) -> None:
    quote = ("The shuttle stops at every car park except the north car park. "
             "Residents get the discount on permits, but not on parking fines.")
    verdicts = _verdicts(claim, evidence_from_text(quote))
    assert "GC507" in _failed(verdicts)
    assert any(v.relation is Relation.CONTRADICTS for v in verdicts)


def test_a_figure_per_night_is_not_the_figure_for_the_whole_stay() -> None:
    verdicts = _verdicts("A cot costs £9 for the whole stay.", evidence_from_text("A cot costs £9 a night."))
    assert "GC308" in _failed(verdicts)
    fine = _verdicts("A cot costs £9 a night.", evidence_from_text("A cot costs £9 per night."))
    assert "GC308" not in _failed(fine)


def test_the_column_whose_bound_is_the_claims_is_the_one_it_names() -> None:
    row = _table("| Full service | £60 | £95 |", "Service | Van under 3.5 t | Van 3.5 t or more")
    assert "GC301" not in _failed(_verdicts("A full service of a van of 3.5 t or more costs £95.", row))
    assert "GC301" in _failed(_verdicts("A full service of a van under 3.5 t costs £95.", row))


def test_semicolon_clauses_keep_their_own_values() -> None:
    quote = "A first locker costs £20 a term, or £12 for students on a bursary; each extra locker costs £8."
    verdicts = _verdicts("Each extra locker costs £12.", evidence_from_text(quote))
    assert "GC309" in _failed(verdicts)
    assert "GC309" not in _failed(_verdicts("Each extra locker costs £8.", evidence_from_text(quote)))


def test_no_on_the_claims_own_noun_denies_it() -> None:
    quote = "Glazed tiles need no sealing; unglazed tiles are sealed at the final visit after fitting."
    verdicts = _verdicts("Glazed tiles have to be sealed at the final visit after fitting.", evidence_from_text(quote))
    assert "GC401" in _failed(verdicts)
    assert any(v.relation is Relation.CONTRADICTS for v in verdicts)


def test_a_clock_times_am_and_pm_are_not_words_to_find() -> None:
    verdicts = _verdicts("Boats must be back by 7:30 pm.", evidence_from_text("Boats must be back by 19:30."))
    assert all(v.relation is Relation.SUPPORTS for v in verdicts)


def test_a_column_header_dates_its_cells_and_a_price_for_each_thing_is_per_thing() -> None:
    row = _table("| Median days to repair a streetlight | 9 | 7 |", "Measure | 2022-23 | 2023-24")
    assert "GC312" not in _failed(_verdicts("In 2023-24 the median time to repair a streetlight was 7 days.", row))
    verdicts = _verdicts("Visitors pay £4 for each bike for each day.",
                         evidence_from_text("Visitors pay £4 per bike per day."))
    assert "GC502" not in _failed(verdicts)


@pytest.mark.parametrize("claim, quote, supported", [
    ("Okafor took over the pharmacy in 2011.", "Okafor took the pharmacy to court in 2011.", False),
    ("Okafor took over the pharmacy in 2011.", "In 2011 Okafor took over the family pharmacy.", True),
    ("The choir gave up touring in 2016.", "The choir gave a final tour in 2016.", False),
    ("The choir gave up touring in 2016.", "The choir stopped touring in 2016.", True),
    ("The crossing can take up to 40 minutes.", "The crossing takes 25 to 40 minutes.", True),
])
def test_a_light_verb_with_its_particle_is_a_verb_the_evidence_must_say(claim: str, quote: str, supported: bool) -> None:
    verdicts = _verdicts(claim, evidence_from_text(quote))
    assert all(v.relation is Relation.SUPPORTS for v in verdicts) is supported


@pytest.mark.parametrize("claim, quote, supported", [
    ("Maren K. Dahl is the editor of the gazette.", "Maren K. Dahl is deputy to the editor of the gazette.", False),
    ("Maren K. Dahl is the editor of the gazette.", "Maren K. Dahl, the editor of the gazette, wrote the piece.", True),
    ("Tobias Lind is the coach.", "Tobias Lind, the son of the coach, scored twice.", False),
])
def test_the_role_a_claim_gives_its_subject_must_head_the_evidences_role_for_it(claim: str, quote: str,
                                                                                supported: bool) -> None:
    verdicts = _verdicts(claim, evidence_from_text(quote))
    assert len(verdicts) == 1  # a middle initial ends no sentence
    assert (verdicts[0].relation is Relation.SUPPORTS) is supported
    assert ("GC213" in _failed(verdicts)) is not supported


@pytest.mark.parametrize("claim, quote, lost", [
    ("Nadia was at the pier when she was stopped by a guard.",
     "Nadia was standing at the pier, taking photographs, when a guard stopped her, the harbour office said.", False),
    ("The crew are due back at the depot.", "The crew were told to come back to the depot on Friday, when they may be questioned.",
     False),
    ("The gate is closed to coaches.", "The gate is closed to coaches when the field is wet.", True),
])
def test_a_when_clause_of_a_past_event_or_of_a_named_day_is_a_time_not_a_condition(claim: str, quote: str,
                                                                                  lost: bool) -> None:
    assert ("GC501" in _failed(_verdicts(claim, evidence_from_text(quote)))) is lost


def test_older_than_is_a_bound_said_by_over() -> None:
    row = _table("| Kayak | £25 | Anyone over 14 |", "Boat | Hire per hour | Who may hire")
    verdicts = _verdicts("Anyone older than 14 may hire a kayak.", row)
    assert not _failed(verdicts) & {"GC201", "GC304", "GC301"}


def test_a_table_row_need_not_repeat_the_verb_a_claim_relates_its_cells_by() -> None:
    row = _table("| Adults | 2 | 400 mg | 1,200 mg | 6 hours |",
                 "Age | Tablets per dose | Amount per dose | Most in 24 hours | Time between doses")
    assert all(v.relation is Relation.SUPPORTS for v in _verdicts("Adults should leave 6 hours between doses.", row))
    assert "GC301" in _failed(_verdicts("Adults should leave 8 hours between doses.", row))


@pytest.mark.parametrize("claim, quote, supported", [
    ("The otter is catching a fish.", "The heron is catching a fish near an otter.", False),
    ("A fox is chasing the hen.", "The farmer is chasing a hen and a fox.", False),
    ("A fox is chasing the hen.", "The hen is being chased by a fox.", True),
    ("Panda bears are eating bamboo.", "The pandas are eating bamboo.", True),
])
def test_the_claims_doer_must_be_the_evidences_doer_of_that_action(claim: str, quote: str, supported: bool) -> None:
    verdicts = _verdicts(claim, evidence_from_text(quote))
    assert ("GC214" in _failed(verdicts)) is not supported


def test_two_values_with_one_surface_blank_once() -> None:
    from graphcite.verify.rules.common import blank_values

    part = decompose("All five vans make at most five deliveries.")[0]
    blanked = blank_values(part.object or "", part.values, bounds=True)
    assert "deliveries" in blanked


def test_a_phrase_set_off_by_commas_describes_the_subject_it_does_not_narrow_it() -> None:
    said = _verdicts("Tenants are notified within 14 days.",
                     evidence_from_text("Tenants, who are listed on the lease, are notified within 14 days."))
    assert "GC502" not in _failed(said)
    narrowed = _verdicts("Every tenant is notified within 14 days.",
                         evidence_from_text("Tenants with a signed lease are notified within 14 days."))
    assert "GC502" in _failed(narrowed)


def test_the_word_naming_a_column_does_not_also_say_its_cell() -> None:
    row = _table("| Greenhouse | £40 | Hose point | Anyone |", "Space | Yearly rent | Water supply | Who may rent")
    assert "GC210" in _failed(_verdicts("The greenhouse is watered from a shared tank.", row))
    assert "GC210" not in _failed(_verdicts("The greenhouse is watered from a hose point.", row))


def test_a_claim_giving_another_columns_figure_is_not_read_against_a_word_cell() -> None:
    row = _table("| Children 5 to 9 | half a sachet | 2 g | 6 hours |",
                 "Patient group | Sachets per dose | Amount per dose | Wait between doses")
    assert "GC210" not in _failed(_verdicts("Children between 5 and 9 should wait 6 hours between doses.", row))
