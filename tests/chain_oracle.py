"""The hash chain written out from its definitions with hashlib alone: the oracle of the
tests of the chain, independent of seasalt_log.store.event_table.

Format 4 (docs/RELIABILITY.md, the commits DDL): link(0) = BLAKE2b-64(b"seasalt-log:" +
game id); a write storing events a..b records link(w) = BLAKE2b-64(link(w-1) as 8 bytes
big-endian + JSON(e_a) + b"\\n" + ... + JSON(e_b) + b"\\n"), as a signed integer.
Formats 1 to 3 chained every event: hash(k) = BLAKE2b-64(hash(k-1) + JSON(e_k)).
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Sequence


def _b2(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=8).digest()


def _int(digest: bytes) -> int:
    return int.from_bytes(digest, "big", signed=True)


def genesis(game_id: str) -> int:
    """link(0) of a game."""
    return _int(_b2(b"seasalt-log:" + game_id.encode()))


def link(prev: int, texts: Iterable[bytes]) -> int:
    """The link of a write of the events ``texts`` after the write whose link is ``prev``."""
    data = prev.to_bytes(8, "big", signed=True)
    for text in texts:
        data += text + b"\n"
    return _int(_b2(data))


def links_at(game_id: str, texts: Sequence[bytes], ends: Iterable[int]) -> list[int]:
    """The links of writes of a game that ended at the events ``ends`` (counted from 1,
    rising), each storing the events after the one before."""
    h, start, out = genesis(game_id), 0, []
    for end in ends:
        h = link(h, texts[start:end])
        out.append(h)
        start = end
    return out


def format3_chain(game_id: str, texts: Iterable[bytes]) -> list[int]:
    """Formats 1 to 3: the chain hash through each event."""
    h, out = genesis(game_id).to_bytes(8, "big", signed=True), []
    for text in texts:
        h = _b2(h + text)
        out.append(_int(h))
    return out
