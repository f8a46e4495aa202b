"""What the engine does with every event of many random games and with corrupted variants of
each: the state it returns (as a digest) or the error it raises (class, rule id, message).

The engine's speed work must not change any of it. ``tests/test_engine_reference.py``
compares these outcomes with ``tests/engine_reference.json``, written once from the engine
before a rewrite; to compare two engines directly, run this module under each and diff::

    python -m tests.engine_outcomes --games 300 > new.txt

(An intended change of behaviour rewrites the reference: ``--write``.)
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Iterator

import msgspec
from msgspec.structs import asdict, replace

from seasalt_log import events as ev
from seasalt_log.cards import ALL_CODES
from seasalt_log.engine import State, apply, legal_moves
from seasalt_log.errors import SeasaltError

from .randomplay import play_random_game, without_deck_order

REFERENCE = Path(__file__).with_name("engine_reference.json")
#: the games compared: (seed, players, ruleset, events); a few of each setting
SETTINGS = ((None, None), ("extra-salt", None), (None, "pepper"), ("extra-salt", "pepper"))
#: a state's JSON with its fields sorted by name: the digest of a state does not depend on the
#: order its fields are declared in
_encode = functools.partial(msgspec.json.encode, order="sorted")


def _fields(s: State) -> dict[str, object]:
    """The state's fields and its game's (:class:`State.game`) in one mapping: the digest
    does not depend on which of the two holds a field either, nor on whether the phase is
    the state's or its flow's. The table as the cards it holds, its deck as the cards left
    (``Table.deck``), not as ``Table.dealt`` and ``Table.left``: the digest does not depend
    on how the deck is kept."""
    fields = {**asdict(s), **asdict(s.game), "phase": s.phase}
    del fields["game"]
    flow = asdict(s.flow)
    del flow["phase"]
    fields["flow"] = flow
    t = s.table
    fields["table"] = {"deck": t.deck, "deck_ordered": t.deck_ordered, "piles": t.piles,
                       "hands": t.hands, "laid": t.laid, "face_down": t.face_down}
    return fields


def games(count: int) -> Iterator[tuple[str, list[ev.Event]]]:
    """``count`` seeded random games over every setting and 2-4 players, each also
    without its deck order (every draw then checked against the unseen cards)."""
    for i in range(count):
        ruleset, events = SETTINGS[i % len(SETTINGS)]
        players = 2 + i % 3
        game = play_random_game(9000 + i, players, ruleset=ruleset, events=events)
        name = f"{9000 + i}-{players}-{ruleset or 'base'}-{events or 'none'}"
        yield name, game
        yield name + "-unordered", without_deck_order(game)


def outcome(s: State, e: ev.Event) -> tuple[str, State | None]:
    """One line for ``apply(s, e)``: a digest of the state it returns, or the error."""
    try:
        after = apply(s, e)
    except SeasaltError as exc:
        return f"{type(exc).__name__} {getattr(exc, 'rule', '')} {exc}", None
    # the ruleset is one of a few constants (its sets print in a per-process order)
    body = _encode({**_fields(after), "ruleset": None})
    return f"ok {after.ruleset.name} {after.ruleset.events} " + \
        hashlib.blake2b(body, digest_size=8).hexdigest(), after


def _corrupt(rng: random.Random, e: ev.Event, others: list[ev.Event]) -> ev.Event:
    """``e`` with one field changed to another value of its kind that decoding lets by (a
    seat, pile, index or card code), or another event of the same type."""
    names = [n for n in e.__struct_fields__ if n not in ("at", "meta")]
    name = rng.choice(names)
    value = getattr(e, name)
    if isinstance(value, bool):
        return e
    if isinstance(value, int):
        new: object = rng.choice((0, 1, 2, 3, 4, 5, value + 1))   # as decoding allows
    elif isinstance(value, str):
        new = rng.choice(ALL_CODES) if ":" in value else value
    elif isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
        items = list(value)
        if rng.random() < 0.5 and len(items) > 1:
            items.reverse()
        else:
            items[rng.randrange(len(items))] = rng.choice(ALL_CODES)
        new = tuple(items)
    else:
        same = [o for o in others if type(o) is type(e)]
        return rng.choice(same) if same else e
    return replace(e, **{name: new})


def game_lines(game: list[ev.Event], seed: int) -> Iterator[str]:
    """The outcomes, in order, for every event of ``game``: the event itself, the next one
    (a deleted event), the previous one again, three corruptions and up to six of the moves
    the engine lists as legal."""
    rng = random.Random(seed)
    s = State()
    for i, e in enumerate(game):
        tries = [game[i + 1]] if i + 1 < len(game) else []
        if i:
            tries.append(game[i - 1])
        tries += [_corrupt(rng, e, game) for _ in range(3)]
        moves = legal_moves(s)
        tries += rng.sample(moves, 6) if len(moves) > 6 else moves
        for t in tries:
            yield outcome(s, t)[0]
        line, after = outcome(s, e)
        yield line
        if after is None:
            return
        s = after


def digests(count: int) -> dict[str, str]:
    """Game name -> a digest of its outcome lines."""
    out = {}
    for k, (name, game) in enumerate(games(count)):
        h = hashlib.sha256()
        for line in game_lines(game, k):
            h.update(line.encode() + b"\n")
        out[name] = h.hexdigest()[:32]
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--write", action="store_true", help="rewrite the reference file")
    a = ap.parse_args(argv)
    if a.write:
        REFERENCE.write_text(json.dumps(digests(a.games), indent=1) + "\n")
        return
    for k, (name, game) in enumerate(games(a.games)):
        for line in game_lines(game, k):
            sys.stdout.write(f"{name} {line}\n")


if __name__ == "__main__":
    main()
