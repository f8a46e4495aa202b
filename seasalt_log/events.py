"""The event types of the log format (LOG_FORMAT.md), one closed union of tagged Structs.

Decoding checks the shape (types, ranges, card codes); :func:`validate` checks what depends
on the game (every seat a seat of the game: one check, one message, whatever field holds
it) and what the format allows as game ids, player names and ``meta``. Both raise
:class:`LogFormatError` with the JSON path.
"""

from __future__ import annotations

import hashlib
import json
import re
from itertools import repeat
from operator import attrgetter, length_hint
from types import UnionType
from typing import (Annotated, Any, ClassVar, Iterable, Literal, Sequence, Union, cast,
                    get_args, get_origin, get_type_hints)

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

from .cards import ALL_CODES, suggest
from .errors import LogFormatError, did_you_mean, nearest
from .identifiers import (GAME_ID_PATTERN, PLAYER_NAME_MAX, game_id_problem,
                          player_name_problem, QUOTE_MAX, quote as _quote)

#: a card code of any ruleset; a game refuses the codes its ruleset lacks (R-X-CARDS-4)
Card = Literal[ALL_CODES]  # type: ignore[valid-type]
#: a seat: the JSON Schema bounds it to 0..3; :func:`validate`, not the decoder, checks it is
#: one of the game's (0..players-1), so that every seat field gives the same error
Seat = Annotated[int, Meta(description="0-based seat index into players",
                           extra_json_schema={"minimum": 0, "maximum": 3})]
Pile = Annotated[int, Meta(ge=0, le=1, description="discard pile 0 or 1")]
Timestamp = Annotated[str, Meta(
    pattern=r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
    description="RFC 3339 timestamp")]
# validate() applies the identifier rules (seasalt_log.identifiers) to input; decoding
# bounds only the length, so that stored games keep decoding
PlayerName = Annotated[str, Meta(min_length=1, max_length=PLAYER_NAME_MAX)]
GameId = Annotated[str, Meta(min_length=1, max_length=200,
                             extra_json_schema={"pattern": GAME_ID_PATTERN})]
#: the producer's own JSON object, kept as its text (see :func:`decode`)
MetaObject = Annotated[Raw, Meta(extra_json_schema={"type": "object"})]
#: above this, a game could not be stored (the read models keep scores as SMALLINT)
MAX_TARGET = 10_000
#: ``meta`` may nest this deep, no deeper (deeper input could exhaust the decoder's stack)
MAX_META_DEPTH = 32
#: the rulesets (R-X-RULESET-1) and event settings (R-X-RULESET-2) of ``game_started``
RULESET_NAMES = ("base", "extra-salt")
EVENTS_NAMES = ("pepper",)
#: the 12 event codes of Extra Pepper (RULES.md §14.1, R-EV-CARDS), in BGA id order
EVENT_CODES = ("hermit-crab", "sunfish", "water-rodeo", "dance-of-the-shells", "kraken",
               "tornado", "dance-of-the-mermaids", "treasure-chest", "diodon-fish",
               "angelfish", "dolphins", "coral-reef")
EventCode = Literal[EVENT_CODES]  # type: ignore[valid-type]
TwoCards = Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]


class Event(Struct, tag_field="type", frozen=True, forbid_unknown_fields=True, gc=False,
            omit_defaults=True, kw_only=True):
    """Base of every event; ``at`` is an optional RFC 3339 timestamp."""

    # gc=False: an event holds decoded JSON values only (never itself, nor anything that
    # refers back to it), so it cannot be part of a reference cycle and the garbage
    # collector need not track it; decoding and creating events is then cheaper.

    at: Timestamp | None = None
    #: the type's code (its index in EVENT_TYPES), set below for each type
    type_code: ClassVar[int]


class GameStarted(Event, tag="game_started", frozen=True):
    players: Annotated[tuple[PlayerName, ...], Meta(min_length=2, max_length=4)]
    game_id: GameId | None = None
    target: Annotated[int, Meta(ge=1, le=MAX_TARGET)] | None = None
    ruleset: Literal[RULESET_NAMES] | None = None  # type: ignore[valid-type]
    events: Literal[EVENTS_NAMES] | None = None  # type: ignore[valid-type]
    meta: MetaObject | UnsetType = UNSET


class RoundStarted(Event, tag="round_started", frozen=True):
    round: Annotated[int, Meta(ge=1)]
    first_player: Seat
    discards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]
    # 56 codes in a base game, 64 in extra-salt (the game checks which, R-X-SETUP)
    deck: Annotated[tuple[Card, ...], Meta(min_length=56, max_length=64)] | None = None
    #: the round's table event (R-EV-ROUND): required with events, unknown without
    event: EventCode | None = None


class DeckDrawn(Event, tag="deck_drawn", frozen=True):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=1, max_length=2)]
    kept: Card
    discard_pile: Pile | None = None
    #: R-EV-DOLPHINS: the card the Dolphins add (when they trigger)
    dolphins_drew: Card | None = None


class DiscardTaken(Event, tag="discard_taken", frozen=True):
    player: Seat
    pile: Pile
    card: Card


class HermitTake(Struct, frozen=True, forbid_unknown_fields=True, gc=False, omit_defaults=True):
    """One take of a Hermit Crab pair (R-EV-HERMIT-CRAB): a card from a discard pile."""

    pile: Pile
    card: Card
    index: Annotated[int, Meta(ge=0)] | None = None


class CrabsPlayed(Event, tag="crabs_played", frozen=True):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]
    pile: Pile | None
    took: Card | None
    index: Annotated[int, Meta(ge=0)] | None = None
    #: R-EV-HERMIT-CRAB: one take per pile that has cards, pile 0 first (when in effect)
    takes: tuple[HermitTake, ...] | None = None


class BoatsPlayed(Event, tag="boats_played", frozen=True):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]


class FishPlayed(Event, tag="fish_played", frozen=True):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]
    drew: Card | None
    #: R-EV-SUNFISH: the second card drawn (when in effect)
    also_drew: Card | None = None


class SharkPlayed(Event, tag="shark_played", frozen=True):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]
    victim: Seat | None
    stole: Card | None


class TurnEnded(Event, tag="turn_ended", frozen=True):
    player: Seat


class StopCalled(Event, tag="stop_called", frozen=True):
    player: Seat


class LastChanceCalled(Event, tag="last_chance_called", frozen=True):
    player: Seat


# ---- Extra Salt (ruleset "extra-salt", LOG_FORMAT.md)

class LobsterPlayed(Event, tag="lobster_played", frozen=True):
    """R-X-LOBSTER: a crab and the lobster; ``seen`` the top n cards, ``kept`` one of them,
    ``deck`` the deck after the others went back and it was shuffled (top first)."""

    player: Seat
    cards: TwoCards
    seen: Annotated[tuple[Card, ...], Meta(min_length=1, max_length=5)] | None
    kept: Card | None
    deck: Annotated[tuple[Card, ...], Meta(max_length=64)] | None = None


class JellyfishPlayed(Event, tag="jellyfish_played", frozen=True):
    """R-X-JELLYFISH: a swimmer and a jellyfish; every other player is locked."""

    player: Seat
    cards: TwoCards


class ForcedDrawn(Event, tag="forced_drawn", frozen=True):
    """R-X-JELLYFISH-TURN: the take of a forced turn (null from an empty deck)."""

    player: Seat
    card: Card | None


class StarfishPlayed(Event, tag="starfish_played", frozen=True):
    """R-X-TRIO: a pair and a starfish laid down as one unit, without the pair's effect."""

    player: Seat
    cards: TwoCards
    starfish: Card


# ---- Extra Pepper (events "pepper", LOG_FORMAT.md)

class AngelfishTaken(Event, tag="angelfish_taken", frozen=True):
    """R-EV-ANGELFISH: the top card of a pile, taken after a take step."""

    player: Seat
    pile: Pile
    card: Card


class ShellFaceDown(Event, tag="shell_face_down", frozen=True):
    """R-EV-CORAL-REEF: a shell placed face down; its owner is protected for the round."""

    player: Seat
    card: Card


class SwimmersPlayed(Event, tag="swimmers_played", frozen=True):
    """R-EV-WATER-RODEO-SWIMMERS: look at ``victim``'s hand, swap ``gave`` for ``got`` or pass."""

    player: Seat
    cards: TwoCards
    victim: Seat | None
    gave: Card | None
    got: Card | None


class SharksPlayed(Event, tag="sharks_played", frozen=True):
    """R-EV-WATER-RODEO-SHARKS: take one of ``victim``'s laid-down pairs."""

    player: Seat
    cards: TwoCards
    victim: Seat | None
    pair: TwoCards | None


class EventKept(Event, tag="event_kept", frozen=True):
    """R-EV-AWARD step 4: the seat holding two events keeps ``event``."""

    player: Seat
    event: EventCode


class EventDiscard(Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """A held event discarded in R-EV-AWARD step 1."""

    player: Seat
    event: EventCode


class RoundScored(Event, tag="round_scored", frozen=True):
    round: Annotated[int, Meta(ge=1)]
    ending: Literal["stop", "last_chance", "deck_out"]
    caller: Seat | None
    caller_won: bool | None
    card_points: tuple[int, ...]
    color_bonus: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


class GameEnded(Event, tag="game_ended", frozen=True):
    reason: Literal["target", "mermaids"]
    winners: tuple[Seat, ...]
    totals: tuple[int, ...]


class EventAwarded(Event, tag="event_awarded", frozen=True):
    """Derived (R-EV-AWARD): held events discarded, and who receives the round's event."""

    round: Annotated[int, Meta(ge=1)]
    event: EventCode
    to: Seat | None
    discarded: tuple[EventDiscard, ...]


AnyEvent = Union[GameStarted, RoundStarted, DeckDrawn, DiscardTaken, CrabsPlayed, BoatsPlayed,
                 FishPlayed, SharkPlayed, TurnEnded, StopCalled, LastChanceCalled,
                 RoundScored, GameEnded,
                 LobsterPlayed, JellyfishPlayed, ForcedDrawn, StarfishPlayed,
                 AngelfishTaken, ShellFaceDown, SwimmersPlayed, SharksPlayed, EventKept,
                 EventAwarded]
EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__  # type: ignore[attr-defined]
TAGS: dict[type[Event], str] = {t: str(t.__struct_config__.tag) for t in EVENT_TYPES}
#: the types of the base game (LOG_FORMAT.md)
BASE_TYPES = EVENT_TYPES[:13]
#: the types only an ``extra-salt`` game has, and those only a game with events has
EXTRA_SALT_TYPES = (LobsterPlayed, JellyfishPlayed, ForcedDrawn, StarfishPlayed)
PEPPER_TYPES = (AngelfishTaken, ShellFaceDown, SwimmersPlayed, SharksPlayed, EventKept,
                EventAwarded)
DERIVED_TYPES = (RoundScored, GameEnded, EventAwarded)
INPUT_TYPES = tuple(t for t in EVENT_TYPES if t not in DERIVED_TYPES)
TURN_TYPES = (DeckDrawn, DiscardTaken, CrabsPlayed, BoatsPlayed, FishPlayed, SharkPlayed,
              TurnEnded, StopCalled, LastChanceCalled, LobsterPlayed, JellyfishPlayed,
              ForcedDrawn, StarfishPlayed, AngelfishTaken, ShellFaceDown, SwimmersPlayed,
              SharksPlayed)

_decoder = msgspec.json.Decoder(AnyEvent)
_encoder = msgspec.json.Encoder()
_any_decoder = msgspec.json.Decoder()
_PER_SEAT = ("card_points", "color_bonus", "points", "totals")
#: a field holding one seat (or null), in a seat spec (see :func:`seat_spec`)
SEAT = "seat"
SeatSpec = Union[str, tuple[str, Any], dict[str, Any]]


def seat_spec(hint: Any) -> SeatSpec | None:
    """Where a value of the type ``hint`` holds seats, read from the type: :data:`SEAT`
    (a :data:`Seat`, or null), ``("each", spec)`` (a list of values each held so), or a
    dict field name -> spec (a Struct with such fields); None: it holds no seat."""
    if hint == Seat:
        return SEAT
    origin, args = get_origin(hint), get_args(hint)
    if origin is Union or origin is UnionType:
        specs = [spec for a in args if (spec := seat_spec(a)) is not None]
        return specs[0] if len(specs) == 1 else None
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        inner = seat_spec(args[0])
        return None if inner is None else ("each", inner)
    if isinstance(hint, type) and issubclass(hint, Struct):
        hints = get_type_hints(hint, include_extras=True)
        fields = {name: spec for name in hint.__struct_fields__
                  if (spec := seat_spec(hints[name])) is not None}
        return fields or None
    return None


#: per event type: its seat fields (name, :func:`seat_spec`) and its per-seat list fields,
#: so validate asks only those
_CHECKED_FIELDS: dict[type, tuple[tuple[tuple[str, SeatSpec], ...], tuple[str, ...]]] = {
    t: (tuple(cast("dict[str, SeatSpec]", seat_spec(t) or {}).items()),
        tuple(f for f in _PER_SEAT if f in t.__struct_fields__)) for t in EVENT_TYPES}
#: the event types whose only check is their ``player`` seat
_PLAYER_ONLY = frozenset(t for t, checked in _CHECKED_FIELDS.items()
                         if checked == ((("player", SEAT),), ()))
_ENUM_RE = re.compile(r"Invalid (?:enum )?value '(.*)'$", re.S)
#: each event type's code (its index in :data:`EVENT_TYPES`), a byte of :func:`event_codes`
TYPE_CODES: dict[type[Event], int] = {t: i for i, t in enumerate(EVENT_TYPES)}
for _type, code in TYPE_CODES.items():
    _type.type_code = code
del _type, code
#: an event's type code, read in C (a class attribute: less than a look-up of its type)
_TYPE_CODE = attrgetter("type_code")
#: the player code of an event without a player (no game has a seat 4)
NO_SEAT = 4
_GAME_STARTED = TYPE_CODES[GameStarted]
#: the codes of the types with a player; per type code, 1 if :func:`validate` checks more
#: than its player (a ``game_started`` aside); per player count, the seats of such a game
#: and :data:`NO_SEAT` (as :func:`bytes.translate` tables)
_WITH_PLAYER = bytes(TYPE_CODES[t] for t in EVENT_TYPES if "player" in t.__struct_fields__)
_CHECKED_TYPES = bytes(int(t not in _PLAYER_ONLY and t is not GameStarted)
                       for t in EVENT_TYPES).ljust(256, b"\0")
_SEATS_OF = tuple(bytes([*range(n), NO_SEAT]) for n in range(NO_SEAT + 1))


def encode(event: Event) -> bytes:
    """One event as compact JSON (no trailing newline); deterministic."""
    return _encoder.encode(event)


def encode_lines(events: Iterable[Event]) -> bytes:
    """Events as JSON Lines."""
    return _encoder.encode_lines(events)


def encode_each(events: Sequence[Event]) -> list[bytes]:
    """:func:`encode` of each event, in one call: their JSON Lines, split (a newline can
    only be in a ``meta`` given as raw JSON with one between its tokens)."""
    out = _encoder.encode_lines(events).split(b"\n")
    out.pop()
    if len(out) != len(events):
        return [_encoder.encode(e) for e in events]
    return out


def decode(line: bytes | str) -> Event:
    """Decode one JSON line into its typed event, or raise :class:`LogFormatError`. A
    ``game_started``'s ``meta`` is kept as its JSON text less the whitespace between tokens
    (``null``: no meta); :func:`validate` checks it."""
    try:
        e = _decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise _format_error(str(exc)) from None
    except msgspec.DecodeError as exc:
        raise LogFormatError(f"not valid JSON ({json_error(exc)})") from None
    except RecursionError:
        raise LogFormatError(f"nested too deeply (meta may nest {MAX_META_DEPTH} levels)") from None
    return _meta_kept(e) if type(e) is GameStarted else e


def json_error(exc: msgspec.DecodeError, of: str = "the line") -> str:
    """msgspec's message of a text that is not JSON (a line, or ``of``: e.g. "the body"),
    the byte it names said to be that text's (counted from 0, from the start of what it
    decodes). That byte is where the decoder stopped: the bad one, or just past it (a
    misspelt ``null``, ``true`` or ``false``, an escape), hence "near"; of trailing
    characters, the first one (msgspec names the next)."""
    msg = str(exc)
    if msg == "Input data was truncated":
        return f"{of} ends inside its JSON: input data was truncated"
    m = _BYTE_AT.search(msg)
    if m is None:
        return msg
    at = int(m.group(1)) - msg.startswith("JSON is malformed: trailing characters")
    return f"{msg[:m.start()]} near byte {at} of {of}"


#: where msgspec's message of a JSON syntax error names the byte it stopped at
_BYTE_AT = re.compile(r" \(byte (\d+)\)$")


def decode_canonical(data: bytes) -> tuple[list[Event], list[bytes]] | None:
    """The events of the JSON Lines ``data`` and each one's line, if every line of ``data``
    ends in a newline and is exactly its event's :func:`encode` (as a log that seasalt wrote
    is): :func:`decode` of each line alone then gives the same events. None otherwise (a
    blank line, other spacing or key order, an error): decode the lines one by one."""
    found = _canonical(data)
    if found is None:
        return None
    lines = data.split(b"\n")
    lines.pop()
    return found[0], lines


def canonical_games(data: bytes) -> tuple[list[Event], list[int] | None, list[int],
                                          tuple[bytes, bytes] | None] | None:
    """The events of :func:`decode_canonical` of ``data`` (event ``i`` is line ``i``; None
    if a line is not canonical), the :func:`game_starts` of its events (the
    ``game_started`` lines found once for both), the offset in ``data`` of each
    ``game_started`` line, then ``len(data)``, and the events' :func:`event_codes` (None
    if a seat is not a byte)."""
    found = _canonical(data)
    if found is None:
        return None
    events, (starts, seats_ok), offsets, codes = found
    return events, _checked_starts(events, starts, seats_ok), offsets, codes


def _canonical(data: bytes) -> tuple[list[Event], tuple[list[int], bool], list[int],
                                      tuple[bytes, bytes] | None] | None:
    """The events of :func:`decode_canonical`, the :func:`_scanned` of them (the indexes
    of the ``game_started`` events, whether every other event's seats are its game's), the
    offsets of the ``game_started`` lines then ``len(data)``, and the events'
    :func:`event_codes` (None if not made)."""
    try:
        events = cast("list[Event]", _decoder.decode_lines(data))
    except (msgspec.DecodeError, RecursionError):
        return None
    starts, seats_ok, codes = _scanned(events)
    for i in starts:
        events[i] = _meta_kept(events[i])   # type: ignore[arg-type]
    # the same bytes: each line is one event's JSON (no JSON holds a raw newline: the
    # decoder refuses one in a string, and _meta_kept took those between meta's tokens
    # out), compared a game at a time: where each game's lines begin is then known
    offsets: list[int] = []     # where the lines before the first game begin, then each game's
    at = 0
    for a, b in zip([0, *starts], [*starts, len(events)]):
        offsets.append(at)
        text = _encoder.encode_lines(events[a:b])
        if not data.startswith(text, at):
            return None
        at += len(text)
    if at != len(data):
        return None
    return events, (starts, seats_ok), [*offsets[1:], at], codes


def _meta_kept(e: GameStarted) -> GameStarted:
    """``e`` with its ``meta`` as :func:`decode` keeps it (its text less the whitespace
    between tokens; ``null``: no meta)."""
    if e.meta is not UNSET:
        raw = bytes(e.meta)
        if raw == b"null":
            return msgspec.structs.replace(e, meta=UNSET)
        if raw.translate(None, _SPACES) == raw:     # no whitespace at all (a test in C)
            return e
        compact = _JSON_SPACE.sub(lambda m: m.group(1) or b"", raw)
        if compact != raw:
            return msgspec.structs.replace(e, meta=Raw(compact))
    return e


_SPACES = b" \t\r\n"
_JSON_SPACE = re.compile(rb'("(?:[^"\\]+|\\.)*")|[ \t\r\n]+', re.S)


def _check_meta(meta: Raw) -> None:
    """``meta`` must be one JSON object, valid UTF-8, with no key twice in one object, and
    nest at most :data:`MAX_META_DEPTH` levels."""
    raw = bytes(meta)
    if raw[:1] != b"{":
        raise LogFormatError("meta must be a JSON object", "$.meta")
    if _plain_meta(raw):
        return
    try:
        value = json.loads(raw.decode(), object_pairs_hook=_unique_keys, parse_int=_zero,
                           parse_float=_zero)   # the structure matters, not the values
    except UnicodeDecodeError:
        raise LogFormatError("meta is not valid UTF-8", "$.meta") from None
    except RecursionError:
        value = None
    except _DuplicateKey as dup:
        raise LogFormatError(f"meta has the key {_quote(dup.args[0])} twice in one object",
                             "$.meta") from None
    if value is None or _depth(value, MAX_META_DEPTH + 1) > MAX_META_DEPTH:
        raise LogFormatError(f"meta is nested too deeply (at most {MAX_META_DEPTH} levels)",
                             "$.meta")


def _plain_meta(raw: bytes) -> bool:
    """Whether the JSON text ``raw`` passes :func:`_check_meta` the short way, in C: at most
    :data:`MAX_META_DEPTH` brackets in all, and the same bytes decoded and encoded again
    (a key given twice is kept once, invalid UTF-8 is refused, any spelling not the
    encoder's is changed: those, and any text that is not JSON, take the long way, which
    names what is wrong)."""
    if raw.count(b"{") + raw.count(b"[") > MAX_META_DEPTH:
        return False
    try:
        return _encoder.encode(_any_decoder.decode(raw)) == raw
    except (msgspec.DecodeError, RecursionError):
        return False


class _DuplicateKey(Exception):
    pass


def _zero(_: str) -> int:
    return 0


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return out


def _format_error(msg: str) -> LogFormatError:
    reason, _, path = msg.rpartition(" - at `")
    if not _:
        reason, path = msg, ""
    path = path.rstrip("`") or "$"
    m = _ENUM_RE.match(reason)
    if m:
        value = m.group(1)
        # the known names nearest a value short enough to quote whole (no search of a
        # long one: it would not be a typo)
        short = len(value) <= QUOTE_MAX
        if path == "$.type":
            reason = f"unknown event type {_quote(value)}" + _nearest(value, TAGS.values(), short)
        elif path == "$.ruleset":
            reason = f"unsupported ruleset {_quote(value)} (base or extra-salt)"
        elif path == "$.events":
            reason = f"unsupported events {_quote(value)} (only 'pepper', or null for none)"
        elif path == "$.event" or path.endswith(".event"):
            reason = f"unknown event code {_quote(value)}" + _nearest(value, EVENT_CODES, short)
        elif path in ("$.ending", "$.reason"):
            reason = f"invalid value {_quote(value)}"
        else:
            reason = f"unknown card code {_quote(value)}" + did_you_mean(
                suggest(value, codes=ALL_CODES) if short else [])
    elif reason.startswith("Object missing required field"):
        reason = "missing field " + _quote(reason.split("`", 1)[1].rsplit("`", 1)[0])
    elif reason.startswith("Object contains unknown field"):
        reason = "unknown field " + _quote(reason.split("`", 1)[1].rsplit("`", 1)[0])
    return LogFormatError(reason, path)


def _nearest(value: str, names: Iterable[str], search: bool) -> str:
    """:func:`errors.nearest` (with the cutoff :func:`cards.suggest` uses for card codes),
    if ``search``."""
    return nearest(value, names) if search else ""


def validate(event: Event, n_players: int | None) -> None:
    """Checks that depend on the game: seats within ``players``, per-seat list lengths."""
    if type(event) in _PLAYER_ONLY and n_players is not None:    # most events: one seat
        seat = event.player     # type: ignore[attr-defined]
        if seat is None or 0 <= seat < n_players:
            return
    if isinstance(event, GameStarted):
        if len(set(event.players)) != len(event.players):
            raise LogFormatError("players must have distinct names", "$.players")
        for i, name in enumerate(event.players):
            if (problem := player_name_problem(name)) is not None:
                raise LogFormatError(problem, f"$.players[{i}]")
        if event.game_id is not None and (problem := game_id_problem(event.game_id)) is not None:
            raise LogFormatError(problem, "$.game_id")
        if event.meta is not UNSET:
            _check_meta(event.meta)
        return
    if n_players is None:
        raise LogFormatError(f"{TAGS[type(event)]} before any game_started", "$.type")
    seats, per_seat = _CHECKED_FIELDS[type(event)]
    for name, spec in seats:
        value = getattr(event, name)
        if spec is SEAT:        # _bad_seat's first test, in line: a call per field costs more
            if value is None or 0 <= value < n_players:
                continue
            bad: tuple[str, int] | None = ("", value)
        else:
            bad = _bad_seat(value, spec, n_players)
        if bad is not None:
            raise seat_out_of_range(bad[1], n_players, f"$.{name}{bad[0]}")
    for name in per_seat:
        values = getattr(event, name)
        if values is not None and len(values) != n_players:
            raise LogFormatError(f"expected {n_players} values, one per seat, got {len(values)}", f"$.{name}")


def _bad_seat(value: Any, spec: SeatSpec, n_players: int) -> tuple[str, int] | None:
    """The first seat held by ``value`` (as ``spec`` says, :func:`seat_spec`) that is not
    one of ``n_players``: (its JSON path from ``value``, the seat); None if none."""
    if spec is SEAT:
        return None if value is None or 0 <= value < n_players else ("", value)
    if type(spec) is tuple:
        for i, item in enumerate(value or ()):
            if (bad := _bad_seat(item, spec[1], n_players)) is not None:
                return f"[{i}]{bad[0]}", bad[1]
        return None
    for name, inner in cast("dict[str, SeatSpec]", spec).items():
        if (bad := _bad_seat(getattr(value, name), inner, n_players)) is not None:
            return f".{name}{bad[0]}", bad[1]
    return None


def seat_out_of_range(seat: int, n_players: int, path: str, **where: str | int | None
                      ) -> LogFormatError:
    """The format error (RULES.md §8) of a ``seat`` outside a game of ``n_players`` at the
    JSON ``path``, whichever field holds it: :func:`validate`'s, and the engine's for an
    event that skipped it (``where``: its position, as :meth:`~.errors.Where.locate` takes
    it). A seat of more than 20 digits is shown cut short."""
    shown = str(seat)
    if len(shown) > 20:
        shown = f"{shown[:12]}... ({len(shown.lstrip('-'))} digits)"
    return LogFormatError(f"seat {shown} out of range (this game has seats 0..{n_players - 1})",
                          path, **where)


def game_starts(events: Sequence[Event]) -> list[int] | None:
    """The index of each ``game_started`` of a decoded log, every event having passed
    :func:`validate` against the players of the game it follows; None at the first format
    error (or an event before any ``game_started``)."""
    starts, seats_ok, _ = _scanned(list(events))
    return _checked_starts(events, starts, seats_ok)


def type_codes(events: Iterable[Event]) -> bytes:
    """Each event's type as a byte (its :data:`TYPE_CODES`), made in C."""
    return bytes(map(_TYPE_CODE, events))


def event_codes(events: Sequence[Event]) -> tuple[bytes, bytes] | None:
    """Each event's type as a byte (its :data:`TYPE_CODES`) and its ``player`` as a byte
    (:data:`NO_SEAT` for a type without one), made in C; None if a player is not a byte
    (negative, or above 255: out of every game's range)."""
    types = type_codes(events)
    try:
        seats = bytes(map(getattr, events, repeat("player"), repeat(NO_SEAT)))
    except (ValueError, TypeError):
        return None
    return types, seats


def _scanned(events: list[Event]) -> tuple[list[int], bool, tuple[bytes, bytes] | None]:
    """:func:`_scan` of ``events``, from their :func:`event_codes` when every player is a
    byte (:func:`_scan_codes`), with those codes (else None)."""
    codes = event_codes(events)
    if codes is None:
        return (*_scan(events), None)
    return (*_scan_codes(events, *codes), codes)


def _scan_codes(events: list[Event], types: bytes, seats: bytes) -> tuple[list[int], bool]:
    """:func:`_scan` of ``events`` given their :func:`event_codes`: the games found by
    their type's byte and each game's players checked on its slice of ``seats`` (searches
    in C); only the events of :data:`_CHECKED_TYPES` are validated one by one."""
    starts: list[int] = []
    at = types.find(_GAME_STARTED)
    while at >= 0:
        starts.append(at)
        at = types.find(_GAME_STARTED, at + 1)
    # a NO_SEAT byte only where the type has no player: a player 4 is in no game's range
    ok = seats.count(NO_SEAT) == len(types.translate(None, _WITH_PLAYER))
    checked = types.translate(_CHECKED_TYPES)
    try:
        for a, b in zip(starts, [*starts[1:], len(events)]):
            n_players = len(events[a].players)      # type: ignore[attr-defined]
            if n_players > NO_SEAT:         # not a decoded game: its seats one by one
                return _scan(events)
            if not ok or seats[a + 1:b].translate(None, _SEATS_OF[n_players]):
                ok = False
                break
            i = checked.find(1, a + 1, b)
            while i >= 0:
                validate(events[i], n_players)
                i = checked.find(1, i + 1, b)
    except LogFormatError:
        ok = False
    return starts, ok


def _checked_starts(events: Sequence[Event], starts: list[int], seats_ok: bool
                    ) -> list[int] | None:
    """:func:`game_starts` of ``events``, given their :func:`_scan`: the ``game_started``
    events are validated here."""
    if not starts or starts[0]:
        return None if events else []
    if not seats_ok:
        return None
    try:
        for i in starts:
            validate(events[i], len(events[i].players))     # type: ignore[attr-defined]
    except LogFormatError:
        return None
    return starts


def _scan(events: list[Event]) -> tuple[list[int], bool]:
    """The indexes of the ``game_started`` events of ``events``, and whether every other
    event after the first of them passes :func:`validate` against the players of the game
    it follows (one pass, which finds the games as it checks them)."""
    starts: list[int] = []
    player_only = _PLAYER_ONLY
    n_players = 0
    left = iter(events)     # an event's index from how many are left: no int made per event
    try:
        for e in left:
            if type(e) in player_only:
                # validate's first test, here (a call per event costs more); a decoded
                # event's player is an int, never null
                if 0 <= e.player < n_players:        # type: ignore[attr-defined]
                    continue
            elif type(e) is GameStarted:
                starts.append(len(events) - length_hint(left) - 1)
                n_players = len(e.players)
                continue
            if starts:
                validate(e, n_players)
    except LogFormatError:      # the games after it are found without checking them
        at = len(events) - length_hint(left)
        return [*starts, *(at + i for i in _starts(events[at:]))], False
    return starts, True


def _starts(events: Sequence[Event]) -> list[int]:
    """The indexes of the ``game_started`` events of ``events`` (found in C: list.index)."""
    types = list(map(type, events))
    found: list[int] = []
    i = -1
    try:
        while True:
            i = types.index(GameStarted, i + 1)
            found.append(i)
    except ValueError:
        return found


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests (lists and objects), counting no further than ``limit``."""
    if not isinstance(value, (dict, list)) or limit <= 0:
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(v, limit - 1) for v in items), default=0)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one log line, generated from the types."""
    schema = msgspec.json.schema(AnyEvent)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "seasalt-log event (log format version 1)"
    return schema


def derive_game_id(events: Iterable[Event]) -> str:
    """A game id from the content: a hash of the encoded input events (derived ones excluded),
    so the same log always gets the same id."""
    from msgspec.structs import replace
    h = hashlib.sha256()
    for e in events:
        if type(e) not in DERIVED_TYPES:
            h.update(encode(e) if e.at is None else encode(replace(e, at=None)))
            h.update(b"\n")
            if isinstance(e, RoundStarted):
                break           # the set-up and first shuffle identify the game
    return "g-" + h.hexdigest()[:16]
