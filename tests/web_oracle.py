"""What a player may see (RULES.md §7, R-VIEW) in the web app's frames, against the
project's oracle written from the rules (tests/view_oracle.py), not seasalt_log.view."""

from __future__ import annotations

from seasalt_log import events as ev

from .view_oracle import hands_visible_to, shown_hands


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
