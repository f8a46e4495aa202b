"""The hash chain of store formats 1 to 3, kept for the migration to format 4 alone.

Those formats chained every event: hash(k) = BLAKE2b-64(hash(k-1) as 8 bytes big-endian ||
event k's JSON), from :func:`~.event_table.genesis_hash`; format 1 stored it in every event
row, formats 2 and 3 in each write's ``commits`` row (the hash through its last event).
Before the migration rewrites the links by format 4's definition it checks them with this
(:func:`~.store.migrate_v3`), so that a change made before it does not go unseen after it.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Iterable, Iterator

from .event_table import HASH_BYTES, genesis_hash

_INT64 = struct.Struct(">q")


def format3_links(game_id: str, texts: Iterable[bytes]) -> Iterator[int]:
    """The format-3 chain hash through each event of a game, from the events' JSON in
    order."""
    h, fresh, unpack = (_INT64.pack(genesis_hash(game_id)),
                        hashlib.blake2b(digest_size=HASH_BYTES).copy, _INT64.unpack)
    for text in texts:
        link = fresh()
        link.update(h)
        link.update(text)
        h = link.digest()
        yield unpack(h)[0]
