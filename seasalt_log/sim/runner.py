"""The simulator: seeded games played by bots through the rules engine.

Every event goes through :func:`seasalt_log.engine.apply`; the derived events come from
:func:`seasalt_log.engine.next_derived`. The simulator owns all chance (the shuffles, the
first player of round 1, the card a shark pair steals, the deck's order after a lobster);
bots only see :func:`seasalt_log.view.table_view` of their own seat (its expansions' part
left out: no bot reads it; none at all for a bot that reads none) and the
:func:`seasalt_log.engine.legal_decisions` of their player (then, having seen the cards, the
:func:`seasalt_log.engine.next_decisions`).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Iterator, Sequence

import msgspec

from .. import events as ev
from ..cards import CODES, COUNT, EXTRA_CODES
from ..engine import (apply, chance_outcomes, decision_event, legal_decisions, next_decisions,
                      next_derived)
from ..engine.decisions import (CHANCE_KINDS, FIRST_PHASE, LOBSTER_KEEP, SHARK, Decision,
                               lobster_deck)
from ..engine.rulings import RULESETS, Ruleset
from ..engine.state import BETWEEN, ENDED, State
from ..errors import SeasaltError
from ..view import Viewer, seat_viewer, table_view
from .bots import Bot, make_bots

#: the 58 cards in catalog order; every round shuffles a copy
DECK: tuple[str, ...] = tuple(code for code, n in COUNT.items() for _ in range(n))

_CATALOG = {c: i for i, c in enumerate(CODES + EXTRA_CODES)}

#: the ``--ruleset`` and ``--events`` choices (R-X-RULESET)
RULESET_NAMES: tuple[str, ...] = tuple(RULESETS)
EVENT_SETTINGS: tuple[str, ...] = ("pepper",)


def round_deck(rules: Ruleset) -> tuple[str, ...]:
    """A ruleset's cards in catalog order (the base game's :data:`DECK`), shuffled per round."""
    return tuple(sorted(rules.cards, key=_CATALOG.__getitem__))


#: the bots used when none are named, seated in rotation: the strong planner, the patient
#: bot whose long rounds reach the rare situations (the deck's last card, deck-outs, final
#: turns on an empty deck, four mermaids), and the greedy and random bots for variety
DEFAULT_BOTS: tuple[str, ...] = ("planner", "patient", "patient", "patient", "patient", "greedy",
                                 "planner", "random")

#: a game longer than this is a bug in a bot or the engine (no real game comes close)
MAX_ROUNDS = 500


class SimulationError(SeasaltError, ValueError):
    """A simulation cannot run as asked (bad player count, unknown bot name, ...)."""

    def __str__(self) -> str:
        return self.args[0]


def game_rng(seed: int, index: int, stream: str) -> random.Random:
    """The RNG of one stream (``chance`` or ``bot<seat>``) of game ``index`` of run ``seed``.

    Each game and each stream has its own generator, so game ``index`` can be replayed
    alone, and a bot's choices never shift the shuffles.
    """
    return random.Random(f"seasalt-sim:{seed}:{index}:{stream}")


if TYPE_CHECKING:       # to a type checker, a BotRandom is the generator it stands for
    _Generator = random.Random
else:
    _Generator = object


class BotRandom(_Generator):
    """A bot's generator, ``game_rng(seed, index, stream)``, seeded only when the bot first
    draws from it: most bots never draw (the planner only to pick the event it keeps), and
    seeding a generator costs about as much as a player's turn. The same draws as the
    generator itself; its methods are kept on this object once read."""

    def __init__(self, seed: int, index: int, stream: str):
        self._key = (seed, index, stream)
        self._rng: random.Random | None = None

    def __getattr__(self, name: str):          # a name not (yet) kept on this object
        if name.startswith("_"):                # the generator's public methods only
            raise AttributeError(name)
        rng = self._rng
        if rng is None:
            rng = self._rng = game_rng(*self._key)
        value = getattr(rng, name)
        if callable(value):
            setattr(self, name, value)
        return value


def shuffle(cards: list[str], rng: random.Random) -> None:
    """``rng.shuffle(cards)``: the same order from the same generator state, the same draws
    (Python's Fisher-Yates, each index drawn by ``getrandbits`` as ``Random._randbelow``
    draws it, retried while out of range), without a method call per card; a round's deck
    is shuffled so."""
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def lineup(bots: Sequence[str], players: int, index: int) -> list[str]:
    """The bot names at seats ``0..players-1`` in game ``index``: ``bots`` rotated by
    ``index`` and repeated as needed, so every bot plays every seat in turn."""
    k = len(bots)
    return [bots[(index + s) % k] for s in range(players)]


def check_args(players: int, bots: Sequence[str] | None, games: int = 0,
               least: int = 0, ruleset: str | None = None,
               events: str | None = None) -> tuple[str, ...]:
    """Validate a player count, bot names, a number of games (at least ``least``) and the
    game settings; returns the bot names to use. Raises :class:`SimulationError`."""
    from .bots import BOTS
    if ruleset is not None and ruleset not in RULESETS:
        raise SimulationError(f"unknown ruleset {ruleset!r}; choose from "
                              f"{', '.join(RULESET_NAMES)} (R-X-RULESET-1)")
    if events is not None and events not in EVENT_SETTINGS:
        raise SimulationError(f"unknown events {events!r}; choose from none, "
                              f"{', '.join(EVENT_SETTINGS)} (R-X-RULESET-2)")
    if games < least:
        raise SimulationError(f"games must be at least {least}, not {games}")
    if players not in (2, 3, 4):
        raise SimulationError(f"players must be 2, 3 or 4 (R-SETUP-1), not {players}")
    names = tuple(bots) if bots else DEFAULT_BOTS
    unknown = [b for b in names if b not in BOTS]
    if unknown:
        raise SimulationError(f"unknown bot {unknown[0]!r}; choose from {', '.join(BOTS)}")
    return names


def sim_game_id(seed: int, index: int, ruleset: str | None = None,
                events: str | None = None) -> str:
    """A simulated game's id: ``sim-SEED-INDEX`` for the base game, the settings named
    before the seed otherwise (``sim-extra-salt-SEED-INDEX``, ``sim-pepper-...``,
    ``sim-extra-salt-pepper-...``), so that runs of one seed under other settings can share
    a store."""
    settings = [x for x in (ruleset if ruleset != "base" else None, events) if x]
    return "-".join(["sim", *settings, str(seed), str(index)])


def play_game(seed: int, index: int, seat_bots: Sequence[str],
              bots: Sequence[Bot] | None = None, ruleset: str | None = None,
              events: str | None = None) -> list[ev.Event]:
    """One complete game: ``seat_bots[s]`` names the bot at seat ``s``; ``ruleset`` and
    ``events`` are the game's settings (None: the base game, no events).

    Returns every event in order, from ``game_started`` to ``game_ended``. With events the
    simulator draws each round's event from the event deck (chance), and the player owed
    an event chooses which to keep (R-EV-AWARD).
    """
    n = len(seat_bots)
    players = bots if bots is not None else make_bots(seat_bots)
    chance = game_rng(seed, index, "chance")
    bot_rngs = [BotRandom(seed, index, f"bot{s}") for s in range(n)]
    viewers = [seat_viewer(s) for s in range(n)]
    out: list[ev.Event] = []
    s = State()

    def push(e: ev.Event) -> None:
        nonlocal s
        s = apply(s, e)
        out.append(e)

    push(ev.GameStarted(players=tuple(f"{b}-{i + 1}" for i, b in enumerate(seat_bots)),
                        game_id=sim_game_id(seed, index, ruleset, events),
                        meta=msgspec.Raw(msgspec.json.encode(
                            {"seed": seed, "game": index, "bots": list(seat_bots)})),
                        ruleset=ruleset, events=events))
    deck = DECK if ruleset is None else round_deck(s.ruleset)
    first = chance.randrange(n)                                    # R-SETUP-4, round 1
    while True:
        f = s.flow
        if f.due:
            derived = next_derived(s)
            assert derived is not None, "a derived event is due"
            push(derived)
            if s.flow.phase == ENDED:
                return out
            continue
        if s.flow.phase == BETWEEN:
            if s.keep_due is not None:                             # R-EV-AWARD step 4
                seat = s.keep_due
                options = legal_decisions(s)
                bot = players[seat]
                d = options[0] if len(options) == 1 else _pick(
                    bot, _view(s, viewers[seat], bot), options, bot_rngs[seat])
                push(decision_event(s, d))
                continue
            if f.round >= MAX_ROUNDS:
                raise SimulationError(f"game {s.game_id} did not end within {MAX_ROUNDS} rounds")
            if f.ender is not None:
                first = (f.ender + 1) % n                          # R-SETUP-4
            cards = list(deck)
            shuffle(cards, chance)                                 # R-SETUP-3
            event = chance.choice(s.event_deck) if s.event_deck else None  # R-EV-ROUND
            push(ev.RoundStarted(round=f.round + 1, first_player=first,
                                 discards=(cards[0], cards[1]), deck=tuple(cards[2:]),
                                 event=event))
            continue
        seat = f.player
        bot = players[seat]
        options = legal_decisions(s)
        view = None
        if len(options) == 1:           # forced: no view, no bot
            d = options[0]
        else:
            view = table_view(s, viewers[seat], extra=False) if bot.reads_view else None
            d = _pick(bot, view, options, bot_rngs[seat])
        kind = d.kind
        outcome = _chance(s, d, chance) if kind in _CHANCE_OR_SHUFFLE else ()
        if kind in FIRST_PHASE:
            then = next_decisions(s, d, outcome)
            if then:                    # a second decision, the cards in question now seen
                if len(then) == 1:
                    d = then[0]
                else:
                    if view is None and bot.reads_view:
                        view = table_view(s, viewers[seat], extra=False)
                    d = _pick(bot, view, then, bot_rngs[seat])
                outcome = _chance(s, d, chance) if d.kind in _CHANCE_OR_SHUFFLE else ()
        e = decision_event(s, d, outcome)
        s = apply(s, e)
        out.append(e)


#: the kinds of decision :func:`_chance` may answer with more than ``()``
_CHANCE_OR_SHUFFLE = CHANCE_KINDS | {LOBSTER_KEEP}


def _view(s: State, viewer: Viewer, bot: Bot):
    """What ``bot`` at ``viewer``'s seat sees (its expansions' part left out: no bot reads
    it), or None for a bot that decides without looking (:attr:`Bot.reads_view`)."""
    return table_view(s, viewer, extra=False) if bot.reads_view else None


def _pick(bot: Bot, view, options: list[Decision], rng: random.Random) -> Decision:
    """The bot's choice among ``options``."""
    choice = bot.choose(view, options, rng)
    for d in options:
        if d is choice:
            return d
    for d in options:  # an equal decision built by the bot
        if d == choice:
            return d
    raise SimulationError(f"bot {bot.name!r} chose {choice!r}, which is not one of its options")


def _chance(s: State, d: Decision, chance: random.Random) -> tuple[str, ...]:
    """Chance's answer to ``d``, drawn by the simulator: a shark pair steals a random card
    of the victim's hand (R-DUO-SHARK); the lobster's returned cards are shuffled with the
    deck (R-X-LOBSTER: the new order, unseen by any bot); anything else by the outcomes'
    weights (with the recorded deck order of a simulated round, the deck leaves one
    outcome)."""
    if d.kind not in CHANCE_KINDS:
        deck = lobster_deck(s, d) if d.kind == LOBSTER_KEEP else None
        if deck is None:                        # nothing left to chance
            return ()
        order = list(deck)
        shuffle(order, chance)
        return tuple(order)
    outcomes = chance_outcomes(s, d)
    if len(outcomes) == 1:                      # nothing to draw: the RNG is not used
        return outcomes[0][0]
    if d.kind == SHARK:
        assert d.victim is not None, "a shark names its victim"
        return (chance.choice(s.table.hands[d.victim]),)
    return chance.choices([o for o, _ in outcomes], [w for _, w in outcomes])[0]


def simulate(games: int, players: int, seed: int, bots: Sequence[str] | None = None,
             ruleset: str | None = None, events: str | None = None
             ) -> Iterator[list[ev.Event]]:
    """Yield ``games`` complete simulated games of ``players`` players, each a list of
    events (LOG_FORMAT.md, derived events included).

    ``bots`` names the strategies (see :data:`seasalt_log.sim.bots.BOTS`); game ``i`` seats
    them rotated by ``i`` (:func:`lineup`); default :data:`DEFAULT_BOTS`. The same
    arguments always give the same games, byte for byte; game ``i`` has the id
    ``sim-<seed>-<i>`` and ``meta`` ``{"seed", "game", "bots"}``. ``ruleset``
    (``extra-salt``) and ``events`` (``pepper``) choose the expansions (R-X-RULESET).
    """
    names = check_args(players, bots, games, ruleset=ruleset, events=events)
    cache: dict[str, Bot] = {}
    for i in range(games):
        seat_bots = lineup(names, players, i)
        instances = []
        for b in seat_bots:
            if b not in cache:
                cache[b] = make_bots([b])[0]
            instances.append(cache[b])
        yield play_game(seed, i, seat_bots, instances, ruleset, events)
