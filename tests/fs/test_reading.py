"""Bounded reads: the start of a file by characters, binary files told apart."""

from __future__ import annotations

import io

from cctui.fs.reading import SNIFF_BYTES, read_head


class _Counting(io.BytesIO):
    """Records how many bytes were asked for."""

    asked = 0

    def read(self, size: int | None = -1) -> bytes:
        self.asked += size or 0
        return super().read(size)


def test_a_head_is_cut_by_characters_and_reads_no_more_than_it_needs() -> None:
    text = "é" * 50 + "x" * 10_000_000
    fh = _Counting(text.encode("utf-8"))
    head = read_head(fh, 60)
    assert head.text == "é" * 50 + "x" * 10 and head.truncated and not head.binary
    assert fh.asked == 60 * 4 + 1  # not the 10 MB behind it


def test_a_short_file_comes_whole_and_a_nul_makes_it_binary() -> None:
    assert read_head(io.BytesIO("héllo\n".encode()), 6).text == "héllo\n"
    exact = read_head(io.BytesIO(b"abc"), 3)
    assert (exact.text, exact.truncated) == ("abc", False)
    blob = read_head(io.BytesIO(b"\x89PNG\x00\x00data"), 100)
    assert blob.binary and blob.text == ""
    late = read_head(io.BytesIO(b"a" * SNIFF_BYTES + b"\x00"), SNIFF_BYTES * 2)
    assert not late.binary  # only the sniffed start decides, as in every reader before
    assert read_head(io.BytesIO(b"caf\xe9\n"), 10).text == "caf\ufffd\n"  # not UTF-8: replaced
