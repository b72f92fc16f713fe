"""A unified diff drawn for the terminal: one file's hunks with syntax colour, unified or
side by side. Rich's ``Syntax`` (Pygments) colours the code of each line; the line's
background says added or removed. No diff library beyond git's text and ``difflib``'s."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.console import RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

THEME = "ansi_dark"
ADDED_BG = "on #12361d"
REMOVED_BG = "on #3d1518"
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")


@dataclass
class FilePatch:
    """One file's part of a unified diff."""

    path: str
    header: list[str] = field(default_factory=list)
    """The ``diff --git``, ``index``, ``---``/``+++`` and mode lines."""
    lines: list[str] = field(default_factory=list)
    """Hunk headers and body lines (``@@``, `` ``, ``+``, ``-``, ``\\``)."""

    @property
    def binary(self) -> bool:
        return any(h.startswith("Binary files") for h in self.header + self.lines)


def split_files(patch: str) -> list[FilePatch]:
    """The files of a ``git diff`` (or ``gitdiff.unified``) text, in order."""
    files: list[FilePatch] = []
    current: FilePatch | None = None
    in_hunks = False
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            path = line.removeprefix("diff --git a/").split(" b/", 1)[0]
            current = FilePatch(path, [line])
            files.append(current)
            in_hunks = False
        elif current is None:
            continue
        elif line.startswith("@@"):
            in_hunks = True
            current.lines.append(line)
        elif in_hunks:
            current.lines.append(line)
        else:
            current.header.append(line)
    return files


class _Painter:
    """Colours the code of single lines in one file's language."""

    def __init__(self, path: str) -> None:
        lexer = Syntax.guess_lexer(path)
        self._syntax = Syntax("", lexer, theme=THEME, background_color="default")

    def code(self, text: str) -> Text:
        out = self._syntax.highlight(text)
        out.rstrip()
        return out


def unified(file: FilePatch) -> RenderableType:
    """The file's hunks, one diff line per row, with line numbers."""
    if file.binary:
        return Text("binary file: no text diff", style="italic dim")
    paint = _Painter(file.path)
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(justify="right", style="dim", no_wrap=True)
    grid.add_column(justify="right", style="dim", no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    old = new = 0
    for line in file.lines:
        hunk = _HUNK.match(line)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            grid.add_row("", "", Text(line, style="bold cyan"))
            continue
        mark, body = line[:1], line[1:]
        if mark == "+":
            grid.add_row("", str(new), _marked("+", paint.code(body), ADDED_BG, "green"))
            new += 1
        elif mark == "-":
            grid.add_row(str(old), "", _marked("-", paint.code(body), REMOVED_BG, "red"))
            old += 1
        elif mark == "\\":
            grid.add_row("", "", Text(line, style="dim italic"))
        else:
            grid.add_row(str(old), str(new), _marked(" ", paint.code(body), "", ""))
            old += 1
            new += 1
    return grid


def split(file: FilePatch) -> RenderableType:
    """The file's hunks side by side: old on the left, new on the right; a run of removed
    lines is paired with the run of added lines after it."""
    if file.binary:
        return Text("binary file: no text diff", style="italic dim")
    paint = _Painter(file.path)
    grid = Table.grid(padding=(0, 1), expand=True)
    for _ in range(2):
        grid.add_column(justify="right", style="dim", no_wrap=True)
        grid.add_column(ratio=1, overflow="fold")
    old = new = 0
    removed: list[tuple[int, str]] = []
    added: list[tuple[int, str]] = []

    def flush() -> None:
        for i in range(max(len(removed), len(added))):
            left = removed[i] if i < len(removed) else None
            right = added[i] if i < len(added) else None
            grid.add_row(
                str(left[0]) if left else "",
                _marked("-", paint.code(left[1]), REMOVED_BG, "red") if left else Text(""),
                str(right[0]) if right else "",
                _marked("+", paint.code(right[1]), ADDED_BG, "green") if right else Text(""),
            )
        removed.clear()
        added.clear()

    for line in file.lines:
        hunk = _HUNK.match(line)
        mark, body = line[:1], line[1:]
        if hunk:
            flush()
            old, new = int(hunk.group(1)), int(hunk.group(2))
            grid.add_row("", Text(line, style="bold cyan"), "", "")
        elif mark == "-":
            removed.append((old, body))
            old += 1
        elif mark == "+":
            added.append((new, body))
            new += 1
        elif mark == "\\":
            continue
        else:
            flush()
            code = paint.code(body)
            grid.add_row(str(old), _marked(" ", code, "", ""), str(new), _marked(" ", code, "", ""))
            old += 1
            new += 1
    flush()
    return grid


def _marked(mark: str, code: Text, background: str, colour: str) -> Text:
    line = Text.assemble((mark + " ", f"bold {colour}" if colour else "dim"), code)
    if background:
        line.stylize(background)
    return line
