"""The event types of the log format (LOG_FORMAT.md), one closed union of tagged Structs.

Decoding checks the shape (types, ranges, card codes); :func:`validate` checks what depends
on the game (seats in range) and what the format allows as game ids, player names and
``meta``. Both raise :class:`LogFormatError` with the JSON path.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, Union

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

from .cards import CODES, suggest
from .errors import LogFormatError
from .identifiers import (GAME_ID_PATTERN, PLAYER_NAME_MAX, game_id_problem,
                          player_name_problem, QUOTE_MAX, quote as _quote)

Card = Literal[CODES]  # type: ignore[valid-type]
Seat = Annotated[int, Meta(ge=0, le=3, description="0-based seat index into players")]
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


class Event(Struct, tag_field="type", frozen=True, forbid_unknown_fields=True, gc=False,
            omit_defaults=True, kw_only=True):
    """Base of every event; ``at`` is an optional RFC 3339 timestamp."""

    # gc=False: an event holds decoded JSON values only (never itself, nor anything that
    # refers back to it), so it cannot be part of a reference cycle and the garbage
    # collector need not track it; decoding and creating events is then cheaper.

    at: Timestamp | None = None


class GameStarted(Event, tag="game_started"):
    players: Annotated[tuple[PlayerName, ...], Meta(min_length=2, max_length=4)]
    game_id: GameId | None = None
    target: Annotated[int, Meta(ge=1, le=MAX_TARGET)] | None = None
    ruleset: Literal["base"] | None = None
    meta: MetaObject | UnsetType = UNSET


class RoundStarted(Event, tag="round_started"):
    round: Annotated[int, Meta(ge=1)]
    first_player: Seat
    discards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]
    deck: Annotated[tuple[Card, ...], Meta(min_length=56, max_length=56)] | None = None


class DeckDrawn(Event, tag="deck_drawn"):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=1, max_length=2)]
    kept: Card
    discard_pile: Pile | None = None


class DiscardTaken(Event, tag="discard_taken"):
    player: Seat
    pile: Pile
    card: Card


class CrabsPlayed(Event, tag="crabs_played"):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]
    pile: Pile | None
    took: Card | None
    index: Annotated[int, Meta(ge=0)] | None = None


class BoatsPlayed(Event, tag="boats_played"):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]


class FishPlayed(Event, tag="fish_played"):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]
    drew: Card | None


class SharkPlayed(Event, tag="shark_played"):
    player: Seat
    cards: Annotated[tuple[Card, ...], Meta(min_length=2, max_length=2)]
    victim: Seat | None
    stole: Card | None


class TurnEnded(Event, tag="turn_ended"):
    player: Seat


class StopCalled(Event, tag="stop_called"):
    player: Seat


class LastChanceCalled(Event, tag="last_chance_called"):
    player: Seat


class RoundScored(Event, tag="round_scored"):
    round: Annotated[int, Meta(ge=1)]
    ending: Literal["stop", "last_chance", "deck_out"]
    caller: Seat | None
    caller_won: bool | None
    card_points: tuple[int, ...]
    color_bonus: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


class GameEnded(Event, tag="game_ended"):
    reason: Literal["target", "mermaids"]
    winners: tuple[Seat, ...]
    totals: tuple[int, ...]


AnyEvent = Union[GameStarted, RoundStarted, DeckDrawn, DiscardTaken, CrabsPlayed, BoatsPlayed,
                 FishPlayed, SharkPlayed, TurnEnded, StopCalled, LastChanceCalled,
                 RoundScored, GameEnded]
EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__  # type: ignore[attr-defined]
TAGS: dict[type[Event], str] = {t: t.__struct_config__.tag for t in EVENT_TYPES}
INPUT_TYPES = EVENT_TYPES[:-2]
DERIVED_TYPES = (RoundScored, GameEnded)
TURN_TYPES = (DeckDrawn, DiscardTaken, CrabsPlayed, BoatsPlayed, FishPlayed, SharkPlayed,
              TurnEnded, StopCalled, LastChanceCalled)

_decoder = msgspec.json.Decoder(AnyEvent)
_encoder = msgspec.json.Encoder()
_SEAT_FIELDS = ("player", "first_player", "victim", "caller")
_PER_SEAT = ("card_points", "color_bonus", "points", "totals")
#: per event type: (its seat fields, its per-seat list fields), so validate asks only those
_CHECKED_FIELDS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {
    t: (tuple(f for f in _SEAT_FIELDS if f in t.__struct_fields__),
        tuple(f for f in _PER_SEAT if f in t.__struct_fields__)) for t in EVENT_TYPES}
_ENUM_RE = re.compile(r"Invalid (?:enum )?value '(.*)'$", re.S)


def encode(event: Event) -> bytes:
    """One event as compact JSON (no trailing newline); deterministic."""
    return _encoder.encode(event)


def encode_lines(events) -> bytes:
    """Events as JSON Lines."""
    return b"".join(_encoder.encode(e) + b"\n" for e in events)


def decode(line: bytes | str) -> Event:
    """Decode one JSON line into its typed event, or raise :class:`LogFormatError`. A
    ``game_started``'s ``meta`` is kept as its JSON text less the whitespace between tokens
    (``null``: no meta); :func:`validate` checks it."""
    try:
        e = _decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise _format_error(str(exc)) from None
    except msgspec.DecodeError as exc:
        raise LogFormatError(f"not valid JSON ({exc})") from None
    except RecursionError:
        raise LogFormatError(f"nested too deeply (meta may nest {MAX_META_DEPTH} levels)") from None
    if type(e) is GameStarted and e.meta is not UNSET:
        raw = bytes(e.meta)
        if raw == b"null":
            return msgspec.structs.replace(e, meta=UNSET)
        compact = _JSON_SPACE.sub(lambda m: m.group(1) or b"", raw)
        if compact != raw:
            return msgspec.structs.replace(e, meta=Raw(compact))
    return e


_JSON_SPACE = re.compile(rb'("(?:[^"\\]+|\\.)*")|[ \t\r\n]+', re.S)


def _check_meta(meta: Raw) -> None:
    """``meta`` must be one JSON object, valid UTF-8, with no key twice in one object, and
    nest at most :data:`MAX_META_DEPTH` levels."""
    raw = bytes(meta)
    if raw[:1] != b"{":
        raise LogFormatError("meta must be a JSON object", "$.meta")
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
        if path == "$.type":
            reason = f"unknown event type {_quote(value)}"
        elif path == "$.ruleset":
            reason = f"unsupported ruleset {_quote(value)} (only 'base')"
        elif path in ("$.ending", "$.reason"):
            reason = f"invalid value {_quote(value)}"
        else:
            close = suggest(value) if len(value) <= QUOTE_MAX else []
            reason = f"unknown card code {_quote(value)}" + (
                "; did you mean " + ", ".join(close) + "?" if close else "")
    elif reason.startswith("Object missing required field"):
        reason = "missing field " + _quote(reason.split("`", 1)[1].rsplit("`", 1)[0])
    elif reason.startswith("Object contains unknown field"):
        reason = "unknown field " + _quote(reason.split("`", 1)[1].rsplit("`", 1)[0])
    return LogFormatError(reason, path)


def validate(event: Event, n_players: int | None) -> None:
    """Checks that depend on the game: seats within ``players``, per-seat list lengths."""
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
    seat_fields, per_seat = _CHECKED_FIELDS[type(event)]
    for name in seat_fields:
        seat = getattr(event, name)
        if seat is not None and seat >= n_players:
            raise LogFormatError(f"seat {seat} out of range (this game has seats 0..{n_players - 1})",
                                 f"$.{name}")
    if isinstance(event, GameEnded):
        for i, seat in enumerate(event.winners):
            if seat >= n_players:
                raise LogFormatError(f"seat {seat} out of range (this game has seats 0..{n_players - 1})",
                                     f"$.winners[{i}]")
    for name in per_seat:
        values = getattr(event, name)
        if values is not None and len(values) != n_players:
            raise LogFormatError(f"expected {n_players} values, one per seat, got {len(values)}", f"$.{name}")


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests (lists and objects), counting no further than ``limit``."""
    if not isinstance(value, (dict, list)) or limit <= 0:
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(v, limit - 1) for v in items), default=0)


def json_schema() -> dict:
    """The JSON Schema of one log line, generated from the types."""
    schema = msgspec.json.schema(AnyEvent)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "seasalt-log event (log format version 1)"
    return schema
