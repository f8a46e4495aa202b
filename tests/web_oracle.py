"""What a player may see (RULES.md §7, R-VIEW) in the web app's frames, against the
project's oracle written from the rules (tests/view_oracle.py), not seasalt_log.view."""

from __future__ import annotations

import re

from seasalt_log import events as ev
from seasalt_log.cards import ALL_CODES
from seasalt_log.replay import steps

from .view_oracle import (event_cards, extra_private_cards, face_down_shells, hands_visible_to,
                          looks_at, shown_hands)


#: the viewer who holds no seat (a spectator), for the functions below that take a seat
SPECTATOR = -1


def shown_after(events) -> list[frozenset[int]]:
    """After each event (index seq - 1), the seats whose hands every player may see."""
    return list(shown_hands(events))


def hidden_cards_in(frames, shown, viewer) -> list[str]:
    """The places where a frame shows what ``viewer`` could not see (``shown``: from
    :func:`shown_after`)."""
    bad = []
    for f in frames:
        for s in f["seats"]:
            if s["hand"] and s["seat"] not in hands_visible_to(shown[f["seq"] - 1], viewer):
                bad.append(f"seq {f['seq']}: seat {s['seat']}'s hand")
            if s["seat"] != viewer and s.get("card_points") is not None and s["hand"] is None:
                bad.append(f"seq {f['seq']}: seat {s['seat']}'s card points")
        if f.get("deck"):
            bad.append(f"seq {f['seq']}: the deck order")
        for pile in f["piles"]:
            if pile.get("cards"):
                bad.append(f"seq {f['seq']}: cards under a pile top")
    return bad


def hidden_moves(events, viewer) -> list[tuple[int, str, str]]:
    """(seq, a card the viewer may not learn from that event, the cards the event shows
    everyone): another player's kept draw, crab take, fish draw, or a steal between two
    others."""
    out = []
    for seq, e in enumerate(events, 1):
        if isinstance(e, ev.DeckDrawn) and e.player != viewer and len(e.cards) == 2:
            other = e.cards[1] if e.cards[0] == e.kept else e.cards[0]
            out.append((seq, e.kept, other))
        elif isinstance(e, ev.CrabsPlayed) and e.player != viewer and e.took:
            out.append((seq, e.took, " ".join(e.cards)))
        elif isinstance(e, ev.FishPlayed) and e.player != viewer and e.drew:
            out.append((seq, e.drew, " ".join(e.cards)))
        elif isinstance(e, ev.SharkPlayed) and e.stole and viewer not in (e.player, e.victim):
            out.append((seq, e.stole, " ".join(e.cards)))
    return out


# ---------------------------------------------------------------- raw responses

_CODE = re.compile("|".join(re.escape(c) for c in sorted(ALL_CODES, key=len, reverse=True)))


def codes_in(text: str) -> set[str]:
    """Every card code written anywhere in ``text`` (a page, a JSON body, a stream)."""
    return set(_CODE.findall(text))


def knowable_cards(events, viewer: int) -> set[str]:
    """Every card code ``viewer`` (a seat, or :data:`SPECTATOR`) may have learnt by the
    end of ``events``, by the oracle of tests/view_oracle.py: what each event shows them
    (RULES.md §7, R-X-VIEW), their own hand and face-down shell, every hand shown, and the
    hand their two swimmers looked at (as it was before the event). The hands are read from
    the engine's state (``State.table``), not from any view."""
    known: set[str] = set()
    shown = shown_after(events)
    shells = list(face_down_shells(events))
    for i, st in enumerate(steps(events)):
        e = st.event
        known |= event_cards(e, viewer) | extra_private_cards(e, viewer)
        looked = looks_at(e, viewer)
        if looked is not None:
            known |= set(st.before.table.hands[looked])
        hands = st.after.table.hands
        for s in hands_visible_to(shown[i], viewer):
            if 0 <= s < len(hands):
                known |= set(hands[s])
        if viewer in shells[i]:
            known.add(shells[i][viewer])
    return known


def leaked(text: str, events, viewer: int) -> set[str]:
    """The card codes in ``text`` that ``viewer`` could not have seen in ``events``."""
    return codes_in(text) - knowable_cards(events, viewer)


# ---------------------------------------------------------------- a game played live

def feed_live(url: str, game, upto: int, game_id: str, *, token: str | None = None
              ) -> tuple[dict, list[ev.Event]]:
    """Start ``game`` as ``game_id`` on the service at ``url`` (``token``: the service's,
    when it has one) and append its events before index ``upto`` that a table sends (the
    service adds the derived ones, docs/HTTP.md). Returns the game's tokens
    (``table_token``, ``seat_tokens``) and the events stored, read with the table token."""
    import httpx
    import msgspec
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    start = msgspec.structs.replace(game[0], game_id=game_id)
    r = httpx.post(url + "/games", content=ev.encode(start), headers=headers, timeout=30)
    assert r.status_code == 201, r.text
    tokens = {k: r.json()[k] for k in ("table_token", "seat_tokens")}
    body = b"[" + b",".join(ev.encode(e) for e in game[1:upto]
                            if not isinstance(e, ev.DERIVED_TYPES)) + b"]"
    r = httpx.post(f"{url}/games/{game_id}/events", content=body,
                   headers={**headers, "If-Match": '"1"'}, timeout=60)
    assert r.status_code == 200, r.text
    r = httpx.get(f"{url}/games/{game_id}/events",
                  headers={"Authorization": "Bearer " + tokens["table_token"]}, timeout=30)
    stored = [ev.decode(msgspec.json.encode(x)) for x in r.json()]
    return tokens, stored


def mid_round(game, rnd: int = 2, turns: int = 6) -> int:
    """The index just after ``turns`` turns of round ``rnd`` (a round in play, with hidden
    cards in every hand)."""
    start = next(i for i, e in enumerate(game) if isinstance(e, ev.RoundStarted) and e.round == rnd)
    ended = [i for i, e in enumerate(game) if i > start and isinstance(e, ev.TurnEnded)]
    return ended[turns - 1] + 1


# ---------------------------------------------------------------- the expansions' table

def extra_truth(state, viewer: int | None, shells: dict[int, str]) -> dict:
    """What the expansions add to the table in the engine's state (RULES.md §9-18), as the
    page must draw it for ``viewer`` (a seat, None for the table): the table event, per seat
    the events held and in effect, the seats whose jellyfish lock lasts, the protected
    seats, and the face-down shells, their colour only to their owner and the table
    (R-X-VIEW; ``shells`` from view_oracle.face_down_shells); :data:`SPECTATOR` sees none."""
    n, f = state.n, state.flow
    return {
        "event": state.table_event or "",
        "held": [" ".join(state.held[s]) if state.held else "" for s in range(n)],
        "effects": [" ".join(sorted(state.effects(s))) for s in range(n)],
        "locks": [bool(f.locks >> s & 1) for s in range(n)],
        "protected": [bool(f.protected >> s & 1) for s in range(n)],
        "face_down": [None if s not in shells else
                      shells[s] if viewer is None or viewer == s else "" for s in range(n)],
    }
