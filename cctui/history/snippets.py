"""A search hit's text, read back from its transcript (the index keeps none), and its snippet.

The index stores, per piece, the byte offset and length of its line and the line's CRC-32. A
hit's line is read again when the hit is shown: if it is gone or its bytes differ (the file was
rewritten, truncated or deleted), ``read_piece`` says so and the caller has the file indexed
again; a wrong snippet is never shown.

The snippet is made here as FTS5's ``snippet()`` would: the window of ``SNIPPET_TOKENS`` words
holding the most query terms, each matched word marked. Words are split and folded like the
index's ``unicode61 remove_diacritics 2`` tokenizer (letters and digits; case and accents
ignored), so what is marked is what matched.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from dataclasses import dataclass

from cctui.history.extract import parse, piece_text

SNIPPET_TOKENS = 16
"""Words in a snippet."""
SNIPPET_CHARS = 400
"""A snippet is cut here whatever its words (a long run of punctuation between two of them)."""
_TOKEN = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Located:
    """Where a piece of indexed text is: its line in a transcript, and which piece of it."""

    path: str
    offset: int
    length: int
    crc: int
    part: int


@dataclass(frozen=True, slots=True)
class Read:
    """A piece read back from its transcript."""

    text: str
    uuid: str | None


def read_piece(at: Located) -> Read | None:
    """The piece's text as it is in the transcript now; ``None`` if its line changed or is gone."""
    try:
        with open(at.path, "rb") as fh:
            fh.seek(at.offset)
            line = fh.read(at.length + 1)
    except OSError:
        return None
    if len(line) != at.length + 1 or line[-1:] != b"\n":
        return None
    line = line[:-1]
    if zlib.crc32(line) != at.crc:
        return None
    entry, _ = parse(line)
    piece = None if entry is None else piece_text(entry, at.part)
    if entry is None or piece is None:
        return None
    uuid = entry.get("uuid")
    return Read(piece.body, uuid if isinstance(uuid, str) else None)


def fold(word: str) -> str:
    """A word as the index compares it: case-folded, accents removed."""
    word = word.casefold()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The folded words of a query term (a phrase has several)."""
    return [fold(m.group()) for m in _TOKEN.finditer(text)]


@dataclass(frozen=True, slots=True)
class Term:
    """One query term for marking: its folded words, and whether the last is a prefix."""

    words: tuple[str, ...]
    prefix: bool = False


LONG = 2_000
"""Texts longer than this (a 200 KB tool result, a long reply) are cut around the first match
before their words are split: a page of hits stays a few milliseconds."""


def snippet(text: str, terms: list[Term]) -> tuple[str, list[tuple[int, int]]]:
    """The best window of ``text`` for ``terms`` on one line, and the spans of matched words."""
    if len(text) > LONG:
        low = text.lower()
        firsts = [i for t in terms if t.words and (i := _first(low, t.words[0])) >= 0]
        if firsts:
            at = max(0, min(firsts) - LONG // 4)
            cut, marks = snippet(text[at : at + LONG // 2], terms)
            if at > 0 and not cut.startswith("…"):
                cut, marks = "…" + cut, [(a + 1, b + 1) for a, b in marks]
            return cut, marks
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    if not tokens:
        return _flat(text[:SNIPPET_CHARS]), []
    folded = [w.casefold() if w.isascii() else fold(w) for w in (text[a:b] for a, b in tokens)]
    where: dict[str, list[int]] = {}
    for i, w in enumerate(folded):
        where.setdefault(w, []).append(i)
    ranges: list[tuple[int, int]] = []  # (first, last) token of each match: a phrase is one
    hits: list[tuple[int, int]] = []  # (token index, term index)
    for ti, term in enumerate(terms):
        k = len(term.words)
        if not k:
            continue
        if k == 1 and term.prefix:
            starts = sorted(i for w, at in where.items() if w.startswith(term.words[0]) for i in at)
        else:
            starts = where.get(term.words[0], [])
        for i in starts:
            if k == 1 or (i + k <= len(folded) and _match(folded, i, term)):
                hits.append((i, ti))
                ranges.append((i, i + k - 1))
    start = _best_window(hits, len(tokens))
    end = min(len(tokens), start + SNIPPET_TOKENS)
    # Like FTS5's snippet(): the text's own start and end when the window reaches them.
    a = tokens[start][0] if start > 0 else 0
    b = tokens[end - 1][1] if end < len(tokens) else len(text)
    lead = "…" if start > 0 else ""
    tail = "…" if end < len(tokens) else ""
    body = text[a:b]
    if len(body) > SNIPPET_CHARS:
        body, tail = body[:SNIPPET_CHARS], "…"
    spans: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if last < start or first >= end:
            continue
        x = max(tokens[first][0], a) - a + len(lead)
        y = min(tokens[min(last, end - 1)][1] - a, len(body)) + len(lead)
        if y <= x:
            continue
        if spans and x <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(y, spans[-1][1]))
        else:
            spans.append((x, y))
    return lead + _flat(body) + tail, spans


def _first(low: str, word: str) -> int:
    """Where ``word`` first starts a word of ``low`` (a lowered text), or -1. (``str.find``:
    a case-insensitive regex over a 200 KB text cost a page of hits tens of milliseconds.)"""
    i = low.find(word)
    while i > 0 and low[i - 1].isalnum():
        i = low.find(word, i + 1)
    return i


def _match(folded: list[str], i: int, term: Term) -> bool:
    last = len(term.words) - 1
    for j, w in enumerate(term.words):
        tok = folded[i + j]
        if not (tok.startswith(w) if term.prefix and j == last else tok == w):
            return False
    return True


def _best_window(hits: list[tuple[int, int]], n: int) -> int:
    """The window start holding the most distinct terms (the earliest of the best)."""
    best, best_count = 0, -1
    lead = 1  # one word before the match: a narrow column (the TUI at 80 wide) still shows it
    for pos, _ in hits:
        start = max(0, min(pos - lead, n - SNIPPET_TOKENS))
        count = len({t for p, t in hits if start <= p < start + SNIPPET_TOKENS})
        if count > best_count:
            best, best_count = start, count
        if len(hits) > 200 and best_count > 0:
            break  # a word repeated thousands of times: the first window will do
    return best


def _flat(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
