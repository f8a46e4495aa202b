"""Who sees what (RULES.md §7, R-VIEW): redacted events and views for each kind of reader.

The oracle here is written from RULES.md §7 and R-LAST-3, not from seasalt_log.view:

* ``allowed_cards`` lists, per event, which card fields a reader may see;
* ``may_show`` says when a seat's hand may be shown to others (a STOP or LAST CHANCE
  caller, a player whose final turn is over, every hand once a round is scored, except
  after a deck-out);
* ``ViewFold`` rebuilds a reader's view from that reader's redacted stream alone (what a
  client following the game can know), to be compared with the view the service gives.
"""

from __future__ import annotations

import json
import threading

import httpx
import msgspec
import pytest

from seasalt_log import events as ev
from seasalt_log.engine import State
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread
from seasalt_log.view import SPECTATOR, TABLE, redact, seat_viewer, table_view
from tests.randomplay import play_random_game
from tests.scenario import states_after as states_of

GAMES = [(seed, players) for players in (2, 3, 4) for seed in range(40)] + [(101, 3)]
CARD_FIELDS = {"discards", "deck", "cards", "kept", "card", "took", "drew", "stole", "index"}




def readers(n):
    return [seat_viewer(s) for s in range(n)] + [SPECTATOR]


def seat_of(viewer):
    return viewer.seat if viewer.role == "seat" else None


# ---------------------------------------------------------------- the oracle (RULES.md §7)

def allowed_cards(event: ev.Event, seat: int | None) -> dict:
    """The card fields of ``event`` a reader (``seat``, None for a spectator) may see, as
    the event would show them; a field left out here must be null in what they receive."""
    d = json.loads(ev.encode(event))
    kind = type(event)
    public = {k: d[k] for k in CARD_FIELDS if k in d}
    if kind is ev.RoundStarted:
        public.pop("deck", None)                       # the deck order is secret
    elif kind is ev.DeckDrawn and seat != event.player:
        # only the discarded card becomes public
        rest = list(event.cards)
        rest.remove(event.kept)
        public["cards"] = rest
        public.pop("kept")
    elif kind is ev.CrabsPlayed and seat != event.player:
        public.pop("took")
        public.pop("index", None)
    elif kind is ev.FishPlayed and seat != event.player:
        public.pop("drew")
    elif kind is ev.SharkPlayed and seat not in (event.player, event.victim):
        public.pop("stole")
    return public


def may_show(events, i: int) -> set[int]:
    """The seats whose hand may be shown to everyone once ``events[i]`` has happened."""
    e = events[i]
    if type(e) is ev.RoundScored:
        return set() if e.ending == "deck_out" else set(range(len(e.totals)))
    if type(e) is ev.GameEnded:
        # four mermaids end the game at once (R-MERMAID-WIN): the game is over, hands shown
        return set(range(len(e.totals))) if e.reason == "mermaids" else set()
    if type(e) in (ev.StopCalled, ev.LastChanceCalled):
        return {e.player}
    shown = set()
    # R-LAST-3: after LAST CHANCE, a seat's hand shows once its final turn is over
    start = max(j for j in range(i + 1) if type(events[j]) is ev.RoundStarted)
    called = [x.player for x in events[start:i] if type(x) is ev.LastChanceCalled]
    if called and getattr(e, "player", None) is not None:
        p = e.player
        later = events[i + 1:]
        end = next((j for j, x in enumerate(later) if type(x) is ev.RoundScored), len(later))
        if not any(getattr(x, "player", None) == p for x in later[:end]):
            shown.add(p)
    return shown


def check_redacted(events, i: int, got: dict, seat: int | None) -> None:
    """``got`` (a reader's copy of ``events[i]``) shows no card that reader may not see,
    and hides cards as null, never by leaving a field out."""
    e = events[i]
    truth = json.loads(ev.encode(e))
    allowed = allowed_cards(e, seat)
    assert set(got) - {"shown"} == set(truth), (got, truth)      # nothing dropped
    for k in CARD_FIELDS & set(truth):
        want, seen = truth[k], got[k]
        if k in allowed and (k != "cards" or type(e) is not ev.DeckDrawn):
            assert seen == want, (k, got, truth)
        elif isinstance(want, list):
            assert len(seen) == len(want), (got, truth)
            visible = [c for c in seen if c is not None]
            assert sorted(visible) == sorted(allowed.get(k, [])), (k, got, truth, seat)
        else:
            assert seen is None, f"{k} shown to seat {seat}: {got}"
    for shown in got.get("shown", ()):
        assert shown["seat"] != seat
        assert shown["seat"] in may_show(events, i), (i, got)


# ---------------------------------------------------------------- a reader's own fold

UNKNOWN = "?"


class ViewFold:
    """What a reader can know from its redacted stream alone."""

    def __init__(self, seat: int | None):
        self.seat = seat

    def apply(self, d: dict) -> None:
        t = d["type"]
        getattr(self, "_" + t, lambda d: None)(d)
        for shown in d.get("shown", ()):
            self.hands[shown["seat"]] = list(shown["hand"])

    def _hand(self, s: int) -> list | None:
        return self.hands[s]

    def _gain(self, s: int, card) -> None:
        self.sizes[s] += 1
        if self.hands[s] is not None:
            self.hands[s].append(card)

    def _lose(self, s: int, card) -> None:
        self.sizes[s] -= 1
        if self.hands[s] is not None:
            self.hands[s].remove(card)

    def _game_started(self, d):
        self.n = len(d["players"])
        self.totals = [0] * self.n
        self.hands = [None] * self.n
        self.sizes = [0] * self.n
        self.laid = [[] for _ in range(self.n)]
        self.piles, self.deck = [[], []], 0

    def _round_started(self, d):
        self.hands = [[] if s == self.seat else None for s in range(self.n)]
        self.sizes = [0] * self.n
        self.laid = [[] for _ in range(self.n)]
        self.piles = [[d["discards"][0]], [d["discards"][1]]]
        self.deck = 56

    def _deck_drawn(self, d):
        self.deck -= len(d["cards"])
        self._gain(d["player"], d["kept"])
        if len(d["cards"]) == 2:
            rest = list(d["cards"])
            rest.remove(d["kept"])
            self.piles[d["discard_pile"]].append(rest[0])

    def _discard_taken(self, d):
        self.piles[d["pile"]].pop()
        self._gain(d["player"], d["card"])

    def _pair(self, d):
        for c in d["cards"]:
            self._lose(d["player"], c)
        self.laid[d["player"]].append(tuple(d["cards"]))

    def _crabs_played(self, d):
        self._pair(d)
        if d["pile"] is not None:
            pile = self.piles[d["pile"]]
            if d["took"] is not None and UNKNOWN not in pile:
                # index counts from the top; without it, the topmost such card (R-DUO-CRAB)
                pos = (len(pile) - 1 - d["index"] if d.get("index") is not None
                       else max(i for i, c in enumerate(pile) if c == d["took"]))
                pile.pop(pos)
            else:                    # which card left the pile is not known
                self.piles[d["pile"]] = [UNKNOWN] * (len(pile) - 1)
            self._gain(d["player"], d["took"])

    _boats_played = _pair

    def _fish_played(self, d):
        self._pair(d)
        if self.deck:                # a fish pair draws unless the deck is empty
            self.deck -= 1
            self._gain(d["player"], d["drew"])

    def _shark_played(self, d):
        self._pair(d)
        if d["victim"] is not None:
            self._lose_unknown(d["victim"], d["stole"])
            self._gain(d["player"], d["stole"])

    def _lose_unknown(self, s, card):
        self.sizes[s] -= 1
        if self.hands[s] is not None:
            self.hands[s].remove(card)

    def _round_scored(self, d):
        self.totals = list(d["totals"])

    def check(self, view) -> None:
        """The fold agrees with the service's view of the same reader."""
        assert list(view.totals) == self.totals
        assert view.deck_size == self.deck
        for s, sv in enumerate(view.seats):
            assert sv.hand_size == self.sizes[s], (s, sv)
            assert [tuple(p) for p in sv.laid] == self.laid[s]
            if sv.hand is None:
                assert s != self.seat
            else:
                assert self.hands[s] is not None, f"seat {s}'s hand shown but never sent"
                assert sorted(self.hands[s]) == list(sv.hand)
        for pv, p in zip(view.piles, self.piles):
            assert pv.size == len(p)
            assert pv.cards is None                         # below the top is not shown
            if p and p[-1] != UNKNOWN:
                assert pv.top == p[-1]


def check_view_hides(view, seat: int | None, events, i: int) -> None:
    """A view (``table_view`` or /state) shows no hand the oracle forbids."""
    assert view.deck is None
    start = max((j for j in range(i + 1) if type(events[j]) is ev.RoundStarted), default=None)
    if start is None:
        return
    shown = set()
    for j in range(start, i + 1):
        shown |= may_show(events, j)
    for s, sv in enumerate(view.seats):
        if sv.hand is not None:
            assert s == seat or s in shown, (i, s, seat)


# ---------------------------------------------------------------- library level

@pytest.mark.parametrize("seed,players", GAMES)
def test_redacted_streams_hide_cards_and_fold_to_the_view(seed, players):
    events = play_random_game(seed, players, target=12)
    states = states_of(events)
    for viewer in readers(players):
        fold = ViewFold(seat_of(viewer))
        for i, e in enumerate(events):
            got = json.loads(msgspec.json.encode(
                redact(e, viewer, states[i - 1] if i else State(), states[i])))
            check_redacted(events, i, got, seat_of(viewer))
            fold.apply(got)
            if i:
                view = table_view(states[i], viewer)
                check_view_hides(view, seat_of(viewer), events, i)
                fold.check(view)


def test_the_table_gets_every_event_unchanged():
    events = play_random_game(3, 3, target=12)
    states = states_of(events)
    for i, e in enumerate(events):
        assert redact(e, TABLE, states[i - 1] if i else State(), states[i]) is e


def test_a_hidden_draw_is_null_not_dropped():
    """R-VIEW: the two cards of a deck draw are seen only by the drawer; the discarded one
    becomes public."""
    events = play_random_game(0, 2, target=12)
    draw = next(e for e in events if type(e) is ev.DeckDrawn and len(e.cards) == 2)
    i = events.index(draw)
    states = states_of(events)
    other = 1 - draw.player
    got = redact(draw, seat_viewer(other), states[i - 1], states[i])
    discarded = [c for c in draw.cards]
    discarded.remove(draw.kept)
    assert got["kept"] is None
    assert sorted(got["cards"], key=str) == sorted([None, discarded[0]], key=str)


# ---------------------------------------------------------------- live, over HTTP

LIVE_GAMES = [(seed, players) for players in (2, 3, 4) for seed in range(100, 102)]


def _follow(url, gid, headers, out, ready):
    with httpx.Client(base_url=url, timeout=60) as c:
        with c.stream("GET", f"/games/{gid}/follow", headers=headers) as r:
            assert r.status_code == 200, r.read()
            ready.set()
            msg = {}
            for line in r.iter_lines():
                if line == "":
                    if msg.get("event") == "end":
                        return
                    if "data" in msg:
                        out.append(json.loads(msg["data"]))
                    msg = {}
                elif not line.startswith(":"):
                    k, _, v = line.partition(":")
                    msg[k] = v[1:] if v.startswith(" ") else v


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    db = tmp_path_factory.mktemp("readers") / "live.duckdb"
    with ServerThread(create_app(db, keepalive=0.5)) as url:
        yield url


def test_live_followers_see_only_their_cards(service):
    """Each game is followed live by one client per seat (its seat token) and one
    spectator (no credential); each stream hides what RULES.md §7 hides and folds to the
    view ``/state`` gives that reader while the game is played."""
    json_headers = {"Content-Type": "application/json"}
    with httpx.Client(base_url=service, timeout=60, headers=json_headers) as table:
        for seed, players in LIVE_GAMES:
            events = play_random_game(seed, players, target=12)
            states = states_of(events)
            r = table.post("/games", content=ev.encode(events[0]))
            assert r.status_code == 201, r.text
            gid, tokens = r.json()["game_id"], r.json()["seat_tokens"]
            assert len(tokens) == players and len(set(tokens)) == players
            heads = [{"Authorization": f"Bearer {t}"} for t in tokens] + [{}]
            streams = [[] for _ in heads]
            threads = []
            for h, out in zip(heads, streams):
                ready = threading.Event()
                th = threading.Thread(target=_follow, args=(service, gid, h, out, ready))
                th.start()
                assert ready.wait(30)
                threads.append(th)
            seq = 1
            for e in events[1:]:
                if type(e) in ev.DERIVED_TYPES:
                    continue
                r = table.post(f"/games/{gid}/events", content=ev.encode(e),
                               headers={"If-Match": f'"{seq}"'})
                assert r.status_code == 200, r.text
                seq = r.json()["seq"]
                if seq % 7 == 0 and seq < len(events) - 3:
                    # /state as each reader, mid-game
                    for viewer, h in zip(readers(players), heads):
                        got = table.get(f"/games/{gid}/state", headers=h)
                        assert got.status_code == 200, got.text
                        view = msgspec.json.decode(got.content)
                        st = table_view(states[seq - 1], viewer)
                        assert view == msgspec.json.decode(msgspec.json.encode(st))
            for th in threads:
                th.join(60)
            assert seq == len(events)
            for viewer, stream in zip(readers(players), streams):
                assert len(stream) == len(events)
                fold = ViewFold(seat_of(viewer))
                for i, got in enumerate(stream):
                    check_redacted(events, i, got, seat_of(viewer))
                    fold.apply(got)
                    if i:
                        fold.check(table_view(states[i], viewer))
            # once ended, the log is public: a spectator reads it whole
            r = table.get(f"/games/{gid}/events", params={"format": "jsonl"})
            assert r.content == ev.encode_lines(events)


def test_a_deck_out_rounds_card_points_stay_hidden_in_the_game_summary(service):
    """R-DECKOUT: nobody reveals after a deck-out, so a deck-out round's card points and
    colour bonus (each a hand's worth) are the table's, and each seat's own; ``GET
    /games/{id}`` (rounds, points, totals) hides the others as the round's redacted
    ``round_scored`` does, while the game is in progress."""
    events = play_random_game(1, 3, target=12)
    out = next(i for i, e in enumerate(events)
               if type(e) is ev.RoundScored and e.ending == "deck_out")
    scored = events[out]
    with httpx.Client(base_url=service, timeout=60,
                      headers={"Content-Type": "application/json"}) as c:
        start = msgspec.structs.replace(events[0], game_id="deck-out-summary")
        r = c.post("/games", content=ev.encode(start))
        assert r.status_code == 201, r.text
        tokens = r.json()
        r = c.post("/games/deck-out-summary/events", headers={"If-Match": '"1"'},
                   content=b"[" + b",".join(ev.encode(e) for e in events[1:out + 1]) + b"]")
        assert r.status_code == 200, r.text
        who = {None: tokens["table_token"], "spectator": None,
               **dict(enumerate(tokens["seat_tokens"]))}
        for seat, token in who.items():
            r = c.get("/games/deck-out-summary",
                      headers={"Authorization": f"Bearer {token}"} if token else {})
            assert r.status_code == 200, r.text
            assert r.json()["game"]["status"] == "in_progress"
            (row,) = [x for x in r.json()["rounds"] if x["round"] == scored.round]
            assert row["ending"] == "deck_out"
            for key in ("card_points", "color_bonus"):
                truth = getattr(scored, key)
                want = list(truth) if seat is None else [
                    v if s == seat else None for s, v in enumerate(truth)]
                assert row[key] == want, (seat, key, row)
            assert row["points"] == list(scored.points)     # public: 0 each
