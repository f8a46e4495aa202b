"""What a player may see (RULES.md §7, R-VIEW), written from the rules for the web app's
tests, independently of seasalt_log.view."""

from __future__ import annotations

from seasalt_log import events as ev
from seasalt_log.engine.state import ROUND


def visible_to_others(state, seat: int) -> bool:
    """A hand is seen by the others once revealed (its player called, or revealed it for
    the final turns of a LAST CHANCE, R-LAST-3) or once the round is scored, except after
    a deck-out (nobody reveals)."""
    f = state.flow
    if f.revealed & (1 << seat) or f.caller == seat:
        return True
    scored = state.phase != ROUND                  # round_scored (or a mermaid win) applied
    return scored and f.ending != "deck_out" and state.table.hands != ()


def hidden_cards_in(frames, states, viewer) -> list[str]:
    """The places where a frame shows what ``viewer`` could not see."""
    bad = []
    for f in frames:
        state = states[f["seq"] - 1]
        for s in f["seats"]:
            if s["seat"] != viewer and s["hand"] and not visible_to_others(state, s["seat"]):
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
