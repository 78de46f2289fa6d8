"""The PDF parser on PDFs made with pymupdf: text sections, an image-only page, no text."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pymupdf
import pytest
from structfirst.ingest.model import Authority, EdgeType, IngestError, NodeType, to_record
from structfirst.ingest.pdf_source import PAGE_SEPARATOR, parse_pdf

HEADER = "CONSUMER LEASING RULES"


def _page(pdf: pymupdf.Document, lines: list[str]) -> None:
    page = pdf.new_page()
    page.insert_text((72, 72), "\n".join(lines), fontsize=10)


def _image_page(pdf: pymupdf.Document) -> None:
    page = pdf.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), False)
    pix.clear_with(200)
    page.insert_image(page.rect, pixmap=pix)


def _source_text(path: Path) -> str:
    with pymupdf.open(path) as pdf:
        return "".join(page.get_text("text") + PAGE_SEPARATOR for page in pdf)


@pytest.fixture()
def sections_pdf(tmp_path: Path) -> Path:
    pdf = pymupdf.open()
    _page(pdf, [HEADER, "Contents", "§ 1013.1 Authority.", "§ 1013.2 Definitions.", "Page 1"])
    _page(
        pdf,
        [
            HEADER,
            "These rules govern consumer leases.",
            "§ 1013.1 Authority, scope, and purpose.",
            "(a) Authority. This part is issued to implement the Act.",
            "Section 5 of the Act is not a heading here.",
            "Page 2",
        ],
    )
    _page(
        pdf,
        [
            HEADER,
            "(b) Scope. It applies to lessors.",
            "§ 1013.2 Definitions.",
            "(a) Act means the Truth in Lending Act.",
            "Page 3",
        ],
    )
    _page(pdf, [HEADER, "(b) Lessee means a natural person.", "Page 4"])
    path = tmp_path / "Reg M 2018.pdf"
    pdf.set_metadata({"title": "Regulation M", "creationDate": "D:20180101000000"})
    pdf.save(path)
    return path


def test_sections_pages_and_spans(sections_pdf: Path) -> None:
    doc = parse_pdf(
        sections_pdf,
        jurisdiction="us-federal/cfpb",
        authority=Authority.REGULATION,
        citation_prefix="12 CFR",
        effective_from=date(2018, 1, 1),
    )
    nodes = {n.id: n for n in doc.nodes}
    assert list(nodes) == ["/doc/reg-m-2018", "/doc/reg-m-2018/s1013.1", "/doc/reg-m-2018/s1013.2"]
    top = nodes["/doc/reg-m-2018"]
    assert top.type == NodeType.DOCUMENT and top.heading == "Regulation M"
    assert (top.attrs["page_start"], top.attrs["page_end"]) == (1, 4)
    s1 = nodes["/doc/reg-m-2018/s1013.1"]
    assert s1.type == NodeType.SECTION
    assert s1.heading == "Authority, scope, and purpose."
    assert s1.citation == "12 CFR 1013.1"
    assert (s1.attrs["page_start"], s1.attrs["page_end"]) == (2, 3)
    assert "Section 5 of the Act is not a heading here." in s1.text
    assert "(b) Scope. It applies to lessors." in s1.text
    assert HEADER not in s1.text and "Page 2" not in s1.text  # running header and footer
    s2 = nodes["/doc/reg-m-2018/s1013.2"]
    assert (s2.attrs["page_start"], s2.attrs["page_end"]) == (3, 4)
    assert s2.text == "(a) Act means the Truth in Lending Act. (b) Lessee means a natural person."
    assert all(n.effective_from == date(2018, 1, 1) for n in doc.nodes)
    assert all(n.jurisdiction == "us-federal/cfpb" for n in doc.nodes)
    assert doc.edition.effective_from == date(2018, 1, 1)
    assert doc.edition.name == "Regulation M"
    # spans: offsets into the page texts joined by form feeds
    source = _source_text(sections_pdf)
    assert source[slice(*s1.provenance.span)].startswith("§ 1013.1 Authority, scope")
    assert source[slice(*s2.provenance.span)].endswith("(b) Lessee means a natural person.")
    offsets = top.attrs["page_offsets"]
    assert offsets[0] == 0 and source[offsets[2] - 1] == PAGE_SEPARATOR
    assert s1.provenance.parser_version == "pdf/1"
    contains = {(e.src, e.dst) for e in doc.edges if e.type == EdgeType.CONTAINS}
    assert contains == {(top.id, s1.id), (top.id, s2.id)}
    # the table of contents repeats the headings: reported, kept as text
    assert sum("table of contents" in w for w in doc.warnings) == 2
    assert "Contents" in top.text
    again = parse_pdf(
        sections_pdf,
        jurisdiction="us-federal/cfpb",
        authority=Authority.REGULATION,
        citation_prefix="12 CFR",
        effective_from=date(2018, 1, 1),
    )
    assert [to_record(n) for n in again.nodes] == [to_record(n) for n in doc.nodes]


def test_heading_styles_and_given_id(tmp_path: Path) -> None:
    pdf = pymupdf.open()
    _page(
        pdf,
        [
            "Sec. 547. Preferences",
            "The trustee may avoid a transfer.",
            "SECTION 5. EFFECTIVE DATE",
            "This act takes effect July 1.",
        ],
    )
    _page(pdf, ["Section 321A.1 Definitions.", "As used in this chapter:"])
    path = tmp_path / "mixed.pdf"
    pdf.save(path)
    doc = parse_pdf(path, jurisdiction="us-ia", authority="statute", doc_id="/us/ia/code/ch321A")
    nodes = {n.id: n for n in doc.nodes}
    assert set(nodes) == {
        "/us/ia/code/ch321A",
        "/us/ia/code/ch321A/s547",
        "/us/ia/code/ch321A/s5",
        "/us/ia/code/ch321A/s321A.1",
    }
    assert nodes["/us/ia/code/ch321A/s547"].citation == "Sec. 547"
    assert nodes["/us/ia/code/ch321A/s547"].heading == "Preferences"
    assert nodes["/us/ia/code/ch321A/s5"].heading == "EFFECTIVE DATE"
    assert nodes["/us/ia/code/ch321A/s321A.1"].citation == "Section 321A.1"
    assert nodes["/us/ia/code/ch321A/s321A.1"].attrs["page_start"] == 2
    assert all(n.authority == Authority.STATUTE for n in doc.nodes)
    assert all(n.effective_from is None for n in doc.nodes)
    assert any("no effective date given" in w for w in doc.warnings)


def test_image_only_page_is_reported(tmp_path: Path) -> None:
    pdf = pymupdf.open()
    _page(pdf, ["§ 1013.1 Authority.", "This part is issued to implement the Act."])
    _image_page(pdf)
    _page(pdf, ["§ 1013.2 Definitions.", "(a) Act means the Truth in Lending Act."])
    path = tmp_path / "scan-in-the-middle.pdf"
    pdf.save(path)
    doc = parse_pdf(path, jurisdiction="us-federal", authority=Authority.REGULATION)
    [warning] = [w for w in doc.warnings if "no text layer" in w]
    assert "scan-in-the-middle.pdf" in warning and "page 2" in warning and "OCR" in warning
    nodes = {n.id: n for n in doc.nodes}
    assert nodes["/doc/scan-in-the-middle/s1013.1"].attrs["pages_without_text"] == [2]
    assert nodes["/doc/scan-in-the-middle"].attrs["pages_without_text"] == [2]
    assert "pages_without_text" not in nodes["/doc/scan-in-the-middle/s1013.2"].attrs


def test_blank_page_is_reported(tmp_path: Path) -> None:
    pdf = pymupdf.open()
    _page(pdf, ["§ 1013.1 Authority.", "Text."])
    pdf.new_page()
    path = tmp_path / "blank.pdf"
    pdf.save(path)
    doc = parse_pdf(path, jurisdiction="us-federal", authority=Authority.REGULATION)
    assert any("blank.pdf: page 2: no text layer (blank page)" in w for w in doc.warnings)


def test_pdf_without_text_is_an_error(tmp_path: Path) -> None:
    pdf = pymupdf.open()
    _image_page(pdf)
    _image_page(pdf)
    path = tmp_path / "scanned.pdf"
    pdf.save(path)
    with pytest.raises(IngestError) as info:
        parse_pdf(path, jurisdiction="us-federal", authority=Authority.REGULATION)
    message = str(info.value)
    assert "scanned.pdf" in message and "pages 1, 2" in message and "no text layer" in message


def test_bad_inputs(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"this is not a PDF")
    with pytest.raises(IngestError, match="junk.pdf: file: cannot open as PDF"):
        parse_pdf(junk, jurisdiction="us-federal", authority=Authority.REGULATION)
    pdf = pymupdf.open()
    _page(pdf, ["§ 1.1 A."])
    ok = tmp_path / "ok.pdf"
    pdf.save(ok)
    with pytest.raises(IngestError, match="unknown authority"):
        parse_pdf(ok, jurisdiction="us-federal", authority="binding")


def test_scanned_page_with_a_stray_line_is_reported(tmp_path: Path) -> None:
    pdf = pymupdf.open()
    _page(pdf, ["§ 1013.1 Authority.", "This part is issued to implement the Act."])
    _image_page(pdf)
    pdf[1].insert_text((500, 800), "17", fontsize=8)  # a page number printed over the scan
    path = tmp_path / "stray.pdf"
    pdf.save(path)
    doc = parse_pdf(path, jurisdiction="us-federal", authority=Authority.REGULATION)
    assert any("stray.pdf: page 2: mostly image" in w for w in doc.warnings)
    assert doc.nodes[1].attrs["pages_without_text"] == [2]
