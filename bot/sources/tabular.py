"""Record files: JSON Lines, a JSON array (or {"papers": [...]}) and CSV with a header row."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.sources.files import file_size, read_lines, read_text
from bot.sources.normalize import build_paper, kind, normalize_date, split_authors, split_categories
from bot.sources.progress import Progress, Ticker
from bot.sources.records import BadRecord, Rejected, SourceError
from bot.text.whitespace import collapse_ws
from storage.models import Paper, PaperSession
from storage.moments import iso_utc

_TEXT_FIELDS = ("title", "url", "venue", "doi")


def record_to_paper(record: Mapping[str, Any], title_only: bool = False) -> Paper:
    """Turn one record (a JSON object or CSV row) into a Paper; raises BadRecord with the reason.

    ``abstract`` is required, unless ``title_only`` allows a record with just a title (evaluation
    sets such as citeulike-a have abstracts for only some papers). ``id`` may be a string or a number
    (kept as a string); ``authors`` and ``categories`` a list or a delimited string; ``published``
    an ISO date; ``doi`` a DOI written any usual way; ``session``, ``starts_at`` and ``location`` where
    and when it is presented (:func:`session_of`). Empty values count as missing. Other keys are ignored.
    """
    abstract = record.get("abstract")
    if abstract is not None and not isinstance(abstract, str):
        raise BadRecord(f"abstract is {kind(abstract)}, not a string")
    title = record.get("title")
    if not abstract or not abstract.strip():
        if not (title_only and isinstance(title, str) and title.strip()):
            raise BadRecord("no abstract")
        abstract = ""
    raw_id = record.get("id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int, type(None))):
        raise BadRecord(f"id is {kind(raw_id)}, not a string or a whole number")
    fields = {}
    for name in _TEXT_FIELDS:
        value = record.get(name)
        if value is not None and not isinstance(value, str):
            raise BadRecord(f"{name} is {kind(value)}, not a string")
        fields[name] = value
    paper = build_paper(
        abstract=abstract,
        allow_empty_abstract=title_only,
        id=None if raw_id is None else str(raw_id),
        authors=split_authors(record.get("authors")),
        published=normalize_date(record.get("published")),
        categories=split_categories(record.get("categories")),
        **fields,
    )
    paper.session = session_of(record)
    return paper


#: A record's fields saying where and when its paper is presented (issue 43: conference plans).
_SESSION_FIELDS = ("session", "starts_at", "location")


def session_of(record: Mapping[str, Any]) -> PaperSession | None:
    """Where and when a record's paper is presented: its ``session`` and ``location`` (text) and
    ``starts_at`` (an ISO 8601 moment; one without an offset is taken as UTC), or None when it says none
    of them; raises BadRecord for a field of another kind or a start that is no moment."""
    values: dict[str, str | None] = {}
    for name in _SESSION_FIELDS:
        value = record.get(name)
        if value is not None and not isinstance(value, str):
            raise BadRecord(f"{name} is {kind(value)}, not a string")
        values[name] = collapse_ws(value) or None if value is not None else None
    if not any(values.values()):
        return None
    starts = values["starts_at"]
    if starts is not None:
        try:
            moment = datetime.fromisoformat(starts.replace("Z", "+00:00"))
        except ValueError:
            raise BadRecord(f"bad starts_at '{starts[:40]}'") from None
        starts = iso_utc(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    return PaperSession(values["session"], starts, values["location"])


def read_jsonl(path: Path, progress: Progress | None = None,
               title_only: bool = False) -> Iterator[Paper | Rejected]:
    """Yield a Paper or a Rejected "line N" per non-blank line of a JSON Lines file.

    ``progress`` gets bytes read and the file size.
    """
    ticker = Ticker(progress, file_size(path))
    done = 0
    for number, line, done in read_lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            yield Rejected(f"line {number}", f"invalid JSON: {e.msg}")
        else:
            yield _convert(record, f"line {number}", title_only)
        ticker.tick(done)
    ticker.finish(done)


def read_json(path: Path, progress: Progress | None = None,
              title_only: bool = False) -> Iterator[Paper | Rejected]:
    """Yield a Paper or a Rejected "record N" per object of a JSON array or ``{"papers": [...]}``.

    The file is parsed whole, so invalid JSON or another shape is a SourceError. ``progress``
    gets bytes (all of the file is read at once) and the file size.
    """
    size = file_size(path)
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise SourceError(f"{path} is not valid JSON: {e}") from e
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        data = data["papers"]
    if not isinstance(data, list):
        raise SourceError(f'{path} should hold a JSON array of papers or an object with a "papers" list')
    ticker = Ticker(progress, size)
    for number, record in enumerate(data, start=1):
        yield _convert(record, f"record {number}", title_only)
        ticker.tick(size)
    ticker.finish(size)


def read_csv(path: Path, progress: Progress | None = None,
             title_only: bool = False) -> Iterator[Paper | Rejected]:
    """Yield a Paper or a Rejected "line N" (where the row starts) per row of a CSV with a header.

    Header names are matched without regard to case or surrounding spaces; a header without an
    ``abstract`` column is a SourceError. ``progress`` gets bytes read and the file size.
    """
    ticker = Ticker(progress, file_size(path))
    done = 0

    def lines() -> Iterator[str]:
        nonlocal done
        for _, text, position in read_lines(path):
            done = position
            yield text

    reader = csv.reader(lines())
    try:
        header = csv_header(reader)
    except csv.Error as e:
        raise SourceError(f"{path}: can't read the CSV header: {e}") from e
    if header is None:
        return
    if "abstract" not in header:
        raise SourceError(f"{path} has no 'abstract' column (columns: {', '.join(header) or 'none'})")
    for start, record in csv_records(reader, header):
        if isinstance(record, str):
            yield Rejected(f"line {start}", record)
        else:
            yield _convert(record, f"line {start}", title_only)
        ticker.tick(done)
    ticker.finish(done)


def csv_header(reader: Iterator[list[str]]) -> list[str] | None:
    """The column names of a CSV's first row, lower case and stripped (matched so), or None for an empty
    file; raises ``csv.Error`` when it can't be read."""
    try:
        return [name.strip().lower() for name in next(reader)]
    except StopIteration:
        return None


def csv_records(reader, header: list[str]) -> Iterator[tuple[int, dict[str, str] | str]]:
    """Each row after the header (blank ones skipped) as ``(the line it starts on, its record)``: the
    non-empty cells by column name, or why it can't be one (invalid CSV, more fields than the header)."""
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            yield start, f"invalid CSV: {e}"
            continue
        if not any(cell.strip() for cell in row):
            continue  # a blank line
        if len(row) > len(header):
            yield start, f"{len(row)} fields but the header has {len(header)}"
        else:
            # Short rows are fine (the rest is missing). Empty cells are missing values, not empty
            # strings that a date or id check would reject.
            yield start, {name: value for name, value in zip(header, row, strict=False) if value.strip()}


def _convert(record: Any, where: str, title_only: bool = False) -> Paper | Rejected:
    if not isinstance(record, dict):
        return Rejected(where, f"not a JSON object but {kind(record)}")
    try:
        return record_to_paper(record, title_only)
    except BadRecord as e:
        return Rejected(where, str(e))
