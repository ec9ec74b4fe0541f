"""PDF parser: page texts, page numbers, paragraphs rebuilt from lines, bad PDFs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcite.errors import IngestError
from graphcite.ingest import pdf
from graphcite.models import BLOCK_TYPES, ParsedDocument

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def assert_units_valid(doc: ParsedDocument) -> None:
    previous_end = 0
    starts = doc.metadata["page_starts"]
    for unit in doc.units:
        assert 0 <= unit.start < unit.end <= len(doc.text)
        assert unit.start >= previous_end
        surface = doc.text[unit.start : unit.end]
        assert surface and surface == surface.strip()
        assert unit.block_type in BLOCK_TYPES
        page_start = starts[unit.page - 1]
        page_end = starts[unit.page] - len(pdf.PAGE_SEPARATOR) if unit.page < len(starts) else len(doc.text)
        assert page_start <= unit.start and unit.end <= page_end
        previous_end = unit.end


def two_page_pdf(*, unicode_font: bool = True) -> bytes:
    document = FPDF()
    document.set_title("Retry policy")
    if unicode_font and DEJAVU.exists():
        document.add_font("DejaVu", "", str(DEJAVU))
        family = "DejaVu"
    else:
        family = "helvetica"
    document.add_page()
    document.set_font(family, size=12)
    document.cell(text="1 Retry Policy", new_x="LMARGIN", new_y="NEXT")
    document.multi_cell(0, 6, "The client retries a failed call at most three times within 30 ms. " * 4
                        + "Backoff doubles after each attempt.", align="L")
    document.ln(6)
    document.multi_cell(0, 6, "A second paragraph is short.")
    document.ln(6)
    document.cell(text="1.1 Rejected Alternatives", new_x="LMARGIN", new_y="NEXT")
    document.cell(text="- Retry forever", new_x="LMARGIN", new_y="NEXT")
    document.cell(text="- Retry without backoff", new_x="LMARGIN", new_y="NEXT")
    document.add_page()
    document.multi_cell(0, 6, "Page two says the timeout is 45 s.")
    return bytes(document.output())


def test_two_page_pdf_text_pages_and_units() -> None:
    doc = pdf.parse(two_page_pdf(), where="retry.pdf")
    assert doc.format == "pdf"
    assert doc.metadata["title"] == "Retry policy"
    assert doc.metadata["pages"] == 2
    page_two = doc.metadata["page_starts"][1]
    assert doc.text[page_two - len(pdf.PAGE_SEPARATOR) : page_two] == pdf.PAGE_SEPARATOR
    assert doc.text[page_two:].startswith("Page two says")
    units = [(u.block_type, u.page, doc.text[u.start : u.end]) for u in doc.units]
    assert units[0] == ("heading", 1, "1 Retry Policy")
    assert units[1][0:2] == ("paragraph", 1)
    assert units[1][2].startswith("The client retries") and units[1][2].endswith("after each attempt.")
    assert units[2] == ("paragraph", 1, "A second paragraph is short.")
    assert units[3] == ("heading", 1, "1.1 Rejected Alternatives")
    assert units[4] == ("list_item", 1, "- Retry forever")
    assert units[5] == ("list_item", 1, "- Retry without backoff")
    assert units[6] == ("paragraph", 2, "Page two says the timeout is 45 s.")
    by_text = {doc.text[u.start : u.end]: u for u in doc.units}
    assert by_text["- Retry forever"].heading_path == ("1 Retry Policy", "1.1 Rejected Alternatives")
    assert by_text["Page two says the timeout is 45 s."].heading_path == (
        "1 Retry Policy", "1.1 Rejected Alternatives")
    assert_units_valid(doc)


def test_encrypted_pdf_is_an_ingest_error() -> None:
    document = FPDF()
    document.set_encryption(owner_password="owner", user_password="user")
    document.add_page()
    document.set_font("helvetica", size=12)
    document.cell(text="secret")
    with pytest.raises(IngestError, match="encrypted PDF") as caught:
        pdf.parse(bytes(document.output()), where="secret.pdf")
    assert caught.value.where == "secret.pdf" and "decrypt" in caught.value.fix


def test_owner_password_only_pdf_is_readable() -> None:
    document = FPDF()
    document.set_encryption(owner_password="owner")
    document.add_page()
    document.set_font("helvetica", size=12)
    document.cell(text="Readable without a password.")
    doc = pdf.parse(bytes(document.output()), where="open.pdf")
    assert "Readable without a password." in doc.text


@pytest.mark.parametrize("data", [b"not a pdf at all", b"%PDF-1.4\n1 0 obj\n<<", two_page_pdf()[:300]])
def test_corrupt_pdf_is_an_ingest_error(data: bytes) -> None:
    with pytest.raises(IngestError) as caught:
        pdf.parse(data, where="bad.pdf")
    assert caught.value.where == "bad.pdf"


def test_pdf_without_text_is_an_ingest_error() -> None:
    document = FPDF()
    document.add_page()
    document.rect(10, 10, 50, 50)
    with pytest.raises(IngestError, match="no extractable text"):
        pdf.parse(bytes(document.output()), where="scan.pdf")


def test_blank_line_pages_split_on_blank_lines_only() -> None:
    page = "INTRODUCTION\n\nFirst paragraph line one\nline two.\n\nShort.\nStill the same block\n\n• item"
    doc = pdf.document_from_pages([page, "2 Next Part\nbody text"])
    assert [(u.block_type, u.page, doc.text[u.start : u.end]) for u in doc.units] == [
        ("heading", 1, "INTRODUCTION"),
        ("paragraph", 1, "First paragraph line one\nline two."),
        ("paragraph", 1, "Short.\nStill the same block"),
        ("list_item", 1, "• item"),
        ("heading", 2, "2 Next Part"),
        ("paragraph", 2, "body text"),
    ]
    assert doc.units[-1].heading_path == ("2 Next Part",)


def test_wrapped_lines_join_until_a_short_sentence_end() -> None:
    long_line = "the service keeps retrying the request while the budget allows it and"
    page = "\n".join([long_line, long_line, "then it stops.", long_line, "again stops here."])
    doc = pdf.document_from_pages([page])
    assert [doc.text[u.start : u.end].count("\n") for u in doc.units] == [2, 1]


_PAGE_TEXT = st.lists(st.sampled_from(["The retry budget is 30 ms.", "1.2 Retry Budget", "SUMMARY", "• bullet",
                                       "wrapped line without end", "Ünïcödé 😀 e\u0301", "", " ", "\r\n", "\f",
                                       "a) option", "- dash item"]), max_size=12).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_PAGE_TEXT, st.text(max_size=80)), min_size=1, max_size=4))
def test_property_units_stay_inside_their_pages(pages: list[str]) -> None:
    doc = pdf.document_from_pages(pages)
    assert doc.text == pdf.PAGE_SEPARATOR.join(pages)
    assert doc.metadata["pages"] == len(pages)
    assert_units_valid(doc)
