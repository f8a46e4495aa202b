"""Events (LOG_FORMAT.md): the round trip of every type, every kind of LOG-FORMAT error with
its JSON path (RULES.md §8), and the committed JSON Schema."""

from __future__ import annotations

import json

import msgspec
import pytest

from seasalt_log import events as ev
from seasalt_log import schema
from seasalt_log.errors import LogFormatError

CB, CY = "crab:black", "crab:yellow"

# one full example of every event type (every optional field set) ...
FULL = [
    ev.GameStarted(players=("Ann", "Ben", "Cid"), game_id="g-1", target=35, ruleset="base",
                   meta=msgspec.Raw(b'{"seed":7,"bots":["a","b"],"nested":{"x":null}}'),
                   at="2024-05-01T10:00:00Z"),
    ev.RoundStarted(round=2, first_player=1, discards=("shell:grey", "mermaid:white"),
                    deck=tuple(["crab:dark-blue"] * 56), at="2024-05-01T10:00:01.5+02:00"),
    ev.DeckDrawn(player=0, cards=("fish:black", "boat:yellow"), kept="fish:black",
                 discard_pile=1),
    ev.DiscardTaken(player=2, pile=1, card="boat:yellow"),
    ev.CrabsPlayed(player=1, cards=(CB, CY), pile=0, took="octopus:purple", index=3),
    ev.BoatsPlayed(player=1, cards=("boat:black", "boat:dark-blue")),
    ev.FishPlayed(player=0, cards=("fish:black", "fish:green"), drew="sailor:pink"),
    ev.SharkPlayed(player=3, cards=("swimmer:yellow", "shark:purple"), victim=0,
                   stole="penguin:pink"),
    ev.TurnEnded(player=3),
    ev.StopCalled(player=0),
    ev.LastChanceCalled(player=1),
    ev.RoundScored(round=1, ending="last_chance", caller=1, caller_won=False,
                   card_points=(9, 8, 3), color_bonus=(3, 4, 2), points=(9, 4, 3),
                   totals=(12, 4, 3)),
    ev.GameEnded(reason="target", winners=(0, 2), totals=(40, 12, 40)),
]
# one full example of each Extra Salt / Extra Pepper type and field (LOG_FORMAT.md)
FULL_EXTRA = [
    ev.GameStarted(players=("Ann", "Ben"), ruleset="extra-salt", events="pepper"),
    ev.RoundStarted(round=1, first_player=0, discards=("shell:grey", "lobster:black"),
                    deck=tuple(["crab:dark-blue"] * 64), event="kraken"),
    ev.DeckDrawn(player=0, cards=("fish:black", "octopus:green"), kept="fish:black",
                 discard_pile=1, dolphins_drew="seahorse:white"),
    ev.CrabsPlayed(player=1, cards=(CB, CY), pile=None, took=None,
                   takes=(ev.HermitTake(pile=0, card="shell:grey", index=1),
                          ev.HermitTake(pile=1, card="starfish:yellow"))),
    ev.FishPlayed(player=0, cards=("fish:black", "fish:green"), drew="sailor:pink",
                  also_drew="castofcrabs:green"),
    ev.LobsterPlayed(player=0, cards=(CB, "lobster:black"), seen=("fish:black", "boat:black"),
                     kept="boat:black", deck=("fish:black",)),
    ev.JellyfishPlayed(player=1, cards=("swimmer:black", "jellyfish:pink")),
    ev.ForcedDrawn(player=0, card=None),
    ev.StarfishPlayed(player=0, cards=("boat:black", "boat:yellow"), starfish="starfish:dark-blue"),
    ev.AngelfishTaken(player=0, pile=1, card="crab:grey"),
    ev.ShellFaceDown(player=1, card="shell:green"),
    ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=1,
                      gave="crab:grey", got="mermaid:white"),
    ev.SharksPlayed(player=0, cards=("shark:black", "shark:green"), victim=1, pair=(CB, CY)),
    ev.EventKept(player=1, event="dolphins"),
    ev.EventAwarded(round=3, event="sunfish", to=1,
                    discarded=(ev.EventDiscard(player=0, event="kraken"),)),
]
# ... and the same types with every optional field left out / null where allowed
MINIMAL = [
    ev.GameStarted(players=("Ann", "Ben")),
    ev.RoundStarted(round=1, first_player=0, discards=("shell:grey", "shell:black")),
    ev.DeckDrawn(player=1, cards=("fish:black",), kept="fish:black"),
    ev.CrabsPlayed(player=1, cards=(CB, CY), pile=None, took=None),
    ev.FishPlayed(player=0, cards=("fish:black", "fish:green"), drew=None),
    ev.SharkPlayed(player=0, cards=("shark:purple", "swimmer:yellow"), victim=None, stole=None),
    ev.RoundScored(round=3, ending="deck_out", caller=None, caller_won=None,
                   card_points=(9, 8), color_bonus=(3, 4), points=(0, 0), totals=(12, 4)),
    ev.GameEnded(reason="mermaids", winners=(1,), totals=(3, 4)),
]


def test_every_event_type_has_a_full_example():
    assert {type(e) for e in FULL} == set(ev.BASE_TYPES)
    assert len(ev.BASE_TYPES) == 13
    assert {type(e) for e in FULL + FULL_EXTRA} == set(ev.EVENT_TYPES)
    assert len(ev.EVENT_TYPES) == 13 + 4 + 6        # LOG_FORMAT.md: 4 Extra Salt, 6 events


@pytest.mark.parametrize("event", FULL + MINIMAL + FULL_EXTRA, ids=lambda e: ev.TAGS[type(e)])
def test_round_trip(event):
    line = ev.encode(event)
    assert b"\n" not in line
    assert ev.decode(line) == event
    assert ev.decode(line.decode()) == event
    obj = json.loads(line)
    assert obj["type"] == ev.TAGS[type(event)]


def test_tags_are_the_log_format_names():
    assert sorted(ev.TAGS.values()) == sorted([
        "game_started", "round_started", "deck_drawn", "discard_taken", "crabs_played",
        "boats_played", "fish_played", "shark_played", "turn_ended", "stop_called",
        "last_chance_called", "round_scored", "game_ended",
        "lobster_played", "jellyfish_played", "forced_drawn", "starfish_played",
        "angelfish_taken", "shell_face_down", "swimmers_played", "sharks_played",
        "event_kept", "event_awarded"])


def test_optional_fields_are_left_out_and_required_nulls_written():
    obj = json.loads(ev.encode(MINIMAL[3]))     # crabs_played with both piles empty
    assert obj == {"type": "crabs_played", "player": 1, "cards": [CB, CY], "pile": None,
                   "took": None}
    assert json.loads(ev.encode(ev.TurnEnded(player=0))) == {"type": "turn_ended", "player": 0}


def test_null_means_absent_for_optional_fields():
    e = ev.decode('{"type":"round_started","round":1,"first_player":0,'
                  '"discards":["shell:grey","shell:black"],"deck":null,"at":null}')
    assert e == MINIMAL[1]


def test_log_format_example_decodes():
    lines = [
        '{"type":"game_started","game_id":"demo-1","players":["Ann","Ben"]}',
        '{"type":"round_started","round":1,"first_player":0,"discards":["crab:dark-blue","shell:grey"]}',
        '{"type":"deck_drawn","player":0,"cards":["fish:black","boat:yellow"],"kept":"fish:black","discard_pile":1}',
        '{"type":"turn_ended","player":0}',
        '{"type":"discard_taken","player":1,"pile":1,"card":"boat:yellow"}',
        '{"type":"turn_ended","player":1}',
    ]
    got = [ev.decode(x) for x in lines]
    assert got[2] == ev.DeckDrawn(player=0, cards=("fish:black", "boat:yellow"),
                                  kept="fish:black", discard_pile=1)
    assert ev.encode_lines(got) == b"".join(ev.encode(e) + b"\n" for e in got)
    for e in got:
        ev.validate(e, 2)


def test_encode_lines():
    data = ev.encode_lines(FULL[:3])
    assert data.count(b"\n") == 3 and data.endswith(b"\n")
    assert [ev.decode(x) for x in data.splitlines()] == FULL[:3]


def test_encode_each_is_encode_of_every_event():
    events = FULL + MINIMAL + FULL_EXTRA
    each = ev.encode_each(events)
    assert len(each) == len(events) and ev.encode_each([]) == []
    for e, data in zip(events, each):
        assert data == json.dumps(json.loads(ev.encode(e)), separators=(",", ":")).encode()
    # a meta made as raw JSON with a newline between its tokens: still one text per event
    odd = [ev.GameStarted(players=("Ann", "Ben"), meta=msgspec.Raw(b'{"a":\n1}')), FULL[1]]
    assert ev.encode_each(odd) == [b'{"type":"game_started","players":["Ann","Ben"],'
                                   b'"meta":{"a":\n1}}', ev.encode(FULL[1])]


# ------------------------------------------------------------------ LOG-FORMAT errors

def format_error(line: str) -> LogFormatError:
    with pytest.raises(LogFormatError) as info:
        ev.decode(line)
    err = info.value
    assert err.rule == "LOG-FORMAT"
    assert str(err).startswith("LOG-FORMAT: ")
    return err


@pytest.mark.parametrize("line", ["{not json", "", '{"type": "turn_ended", "player": 0', "tru"])
def test_not_json(line):
    err = format_error(line)
    assert "JSON" in err.reason
    assert err.path in (None, "$")       # there is no object to point into


def test_a_line_cut_short_says_it_ends_inside_its_json():
    err = format_error('{"type": "turn_ended", "player": 0')
    assert err.reason == ("not valid JSON (the line ends inside its JSON: input data was "
                          "truncated)")


@pytest.mark.parametrize("line, what", [
    # the byte counted from the line's first, 0: where a reader counting the line finds it
    ("\x00", "invalid character near byte 0"),
    ('{"type":"turn_ended","player":0} x', "trailing characters near byte 33"),   # the x
    ('{"type":"turn_ended","player":0}x', "trailing characters near byte 32"),
    ('  {"type":"turn_ended" "player":0}', "expected ',' or '}' near byte 23"),   # "player"
    # a misspelt literal: the byte past the 4 read as null (nul} from byte 30)
    ('{"type":"turn_ended","player":nul}', "invalid character near byte 34"),
])
def test_not_json_says_the_byte_of_the_line(line, what):
    err = format_error(line)
    assert err.reason == f"not valid JSON (JSON is malformed: {what} of the line)"
    assert str(err) == f"LOG-FORMAT: {err.reason}"


@pytest.mark.parametrize("line, path", [
    ("[]", "$"), ("42", "$"), ('"turn_ended"', "$"),
])
def test_not_an_object(line, path):
    assert format_error(line).path == path


def test_unknown_type():
    err = format_error('{"type":"card_burned","player":0}')
    assert err.path == "$.type"
    assert "unknown event type" in err.reason and "'card_burned'" in err.reason
    assert "$.type" in str(err)


@pytest.mark.parametrize("line, path, reason", [
    # the names nearest the typo, as a reader would correct it
    ('{"type":"turn_over","player":0}', "$.type",
     "unknown event type 'turn_over'; did you mean turn_ended?"),
    ('{"type":"deck_draw","player":0}', "$.type",
     "unknown event type 'deck_draw'; did you mean deck_drawn, forced_drawn?"),
    ('{"type":"round_started","round":1,"first_player":0,"discards":["crab:black","shell:grey"],'
     '"event":"krakn"}', "$.event", "unknown event code 'krakn'; did you mean kraken?"),
    ('{"type":"event_kept","player":0,"event":"dolphin"}', "$.event",
     "unknown event code 'dolphin'; did you mean dolphins?"),
    ('{"type":"event_awarded","round":1,"event":"kraken","to":0,"discarded":[{"player":0,'
     '"event":"tornadoo"}]}', "$.discarded[0].event",
     "unknown event code 'tornadoo'; did you mean tornado?"),
    # an Extra Salt card is a card code too (the game says whether its ruleset has it)
    ('{"type":"discard_taken","player":0,"pile":0,"card":"lobster:blak"}', "$.card",
     "unknown card code 'lobster:blak'; did you mean lobster:black, swimmer:black, boat:black?"),
    # nothing near: no suggestion; a value too long to quote whole: none searched for
    ('{"type":"xyzzy","player":0}', "$.type", "unknown event type 'xyzzy'"),
    ('{"type":"%s","player":0}' % ("turn_ended" * 5), "$.type",
     "unknown event type 'turn_endedturn_endedturn_endedturn_ended'... (50 characters)"),
    ('{"type":"event_kept","player":0,"event":"%s"}' % ("kraken" * 10), "$.event",
     "unknown event code 'krakenkrakenkrakenkrakenkrakenkrakenkrak'... (60 characters)"),
])
def test_an_unknown_name_suggests_the_nearest_known_ones(line, path, reason):
    err = format_error(line)
    assert (err.path, err.reason) == (path, reason)


def test_missing_type():
    err = format_error('{"player":0}')
    assert err.path == "$" and "'type'" in err.reason and "missing" in err.reason


def test_unknown_field():
    err = format_error('{"type":"turn_ended","player":0,"hand":[]}')
    assert err.path == "$"
    assert err.reason == "unknown field 'hand'"


def test_unknown_field_in_nested_position_is_not_an_option():
    # meta is the producer's own object and may hold anything
    e = ev.decode('{"type":"game_started","players":["a","b"],"meta":{"anything":[1,{"x":2}]}}')
    assert bytes(e.meta) == b'{"anything":[1,{"x":2}]}'


@pytest.mark.parametrize("line, field", [
    ('{"type":"turn_ended"}', "player"),
    ('{"type":"crabs_played","player":0,"cards":["crab:black","crab:yellow"],"took":null}', "pile"),
    ('{"type":"fish_played","player":0,"cards":["fish:black","fish:green"]}', "drew"),
    ('{"type":"shark_played","player":0,"cards":["shark:black","swimmer:black"],"victim":1}', "stole"),
    ('{"type":"round_started","round":1,"first_player":0}', "discards"),
    ('{"type":"game_started"}', "players"),
])
def test_missing_field(line, field):
    err = format_error(line)
    assert err.path == "$"
    assert err.reason == f"missing field '{field}'"


@pytest.mark.parametrize("line, path", [
    ('{"type":"turn_ended","player":"0"}', "$.player"),
    ('{"type":"turn_ended","player":0.5}', "$.player"),
    ('{"type":"turn_ended","player":null}', "$.player"),
    ('{"type":"deck_drawn","player":0,"cards":"crab:black","kept":"crab:black"}', "$.cards"),
    ('{"type":"deck_drawn","player":0,"cards":["crab:black",3],"kept":"crab:black"}', "$.cards[1]"),
    ('{"type":"game_started","players":["a",7]}', "$.players[1]"),
    ('{"type":"game_started","players":["a","b"],"target":"40"}', "$.target"),
    ('{"type":"round_scored","round":1,"ending":"stop","caller":0,"caller_won":"no",'
     '"card_points":[1,2],"color_bonus":[1,2],"points":[1,2],"totals":[1,2]}', "$.caller_won"),
    ('{"type":"turn_ended","player":0,"at":"yesterday"}', "$.at"),
    ('{"type":"turn_ended","player":0,"at":5}', "$.at"),
])
def test_wrong_type(line, path):
    assert format_error(line).path == path


@pytest.mark.parametrize("line, path", [
    ('{"type":"game_started","players":["a"]}', "$.players"),
    ('{"type":"game_started","players":["a","b","c","d","e"]}', "$.players"),
    ('{"type":"game_started","players":["a",""]}', "$.players[1]"),
    ('{"type":"game_started","players":["a","b"],"target":0}', "$.target"),
    ('{"type":"round_started","round":0,"first_player":0,"discards":["shell:grey","shell:black"]}', "$.round"),
    ('{"type":"round_started","round":1,"first_player":0,"discards":["shell:grey"]}', "$.discards"),
    ('{"type":"round_started","round":1,"first_player":0,"discards":["shell:grey","shell:black"],'
     '"deck":["crab:black"]}', "$.deck"),
    ('{"type":"deck_drawn","player":0,"cards":["crab:black","crab:black","crab:black"],'
     '"kept":"crab:black"}', "$.cards"),
    ('{"type":"deck_drawn","player":0,"cards":[],"kept":"crab:black"}', "$.cards"),
    ('{"type":"crabs_played","player":0,"cards":["crab:black","crab:yellow"],"pile":0,'
     '"took":"crab:grey","index":-1}', "$.index"),
    ('{"type":"round_scored","round":1,"ending":"won","caller":0,"caller_won":null,'
     '"card_points":[1,2],"color_bonus":[1,2],"points":[1,2],"totals":[1,2]}', "$.ending"),
    ('{"type":"game_ended","reason":"boredom","winners":[0],"totals":[1,2]}', "$.reason"),
])
def test_value_out_of_range(line, path):
    assert format_error(line).path == path


@pytest.mark.parametrize("line, path", [
    ('{"type":"discard_taken","player":0,"pile":2,"card":"crab:black"}', "$.pile"),
    ('{"type":"deck_drawn","player":0,"cards":["crab:black","crab:grey"],"kept":"crab:black",'
     '"discard_pile":-1}', "$.discard_pile"),
    ('{"type":"crabs_played","player":0,"cards":["crab:black","crab:yellow"],"pile":3,"took":null}',
     "$.pile"),
])
def test_a_pile_beyond_any_game_is_a_decode_error(line, path):
    assert format_error(line).path == path


@pytest.mark.parametrize("line, seat, path", [
    ('{"type":"turn_ended","player":4}', 4, "$.player"),
    ('{"type":"turn_ended","player":-1}', -1, "$.player"),
    ('{"type":"shark_played","player":0,"cards":["shark:black","swimmer:black"],"victim":9,'
     '"stole":"crab:black"}', 9, "$.victim"),
    ('{"type":"game_ended","reason":"target","winners":[5],"totals":[1,2,3,4]}', 5,
     "$.winners[0]"),
])
def test_a_seat_beyond_any_game_is_refused_as_one_outside_the_game(line, seat, path):
    """A seat outside 0..3 is refused by validate, as one outside the game's seats (the
    same message as a seat 0..3 past the game's last), not by the decoder."""
    err = validate_error(ev.decode(line), 4)
    assert (err.reason, err.path) == (f"seat {seat} out of range (this game has seats 0..3)", path)


def validate_error(event: ev.Event, n_players: int | None) -> LogFormatError:
    with pytest.raises(LogFormatError) as info:
        ev.validate(event, n_players)
    assert info.value.rule == "LOG-FORMAT"
    return info.value


@pytest.mark.parametrize("event, path", [
    (ev.TurnEnded(player=2), "$.player"),
    (ev.DiscardTaken(player=3, pile=0, card=CB), "$.player"),
    (ev.RoundStarted(round=1, first_player=2, discards=(CB, CY)), "$.first_player"),
    (ev.SharkPlayed(player=0, cards=("shark:black", "swimmer:black"), victim=2, stole=CB),
     "$.victim"),
    (ev.RoundScored(round=1, ending="stop", caller=3, caller_won=None, card_points=(1, 2),
                    color_bonus=(1, 2), points=(1, 2), totals=(1, 2)), "$.caller"),
    (ev.GameEnded(reason="target", winners=(0, 2), totals=(1, 2)), "$.winners[1]"),
])
def test_seat_out_of_range_for_this_game(event, path):
    """A seat beyond this game's players is a format error found by events.validate."""
    err = validate_error(event, 2)
    assert err.path == path
    assert "out of range" in err.reason
    if not hasattr(event, "totals"):
        ev.validate(event, 4)  # the same event is well-formed in a four-player game


@pytest.mark.parametrize("name", ["card_points", "color_bonus", "points", "totals"])
def test_per_seat_lists_have_one_value_per_seat(name):
    fields = dict(card_points=(1, 2), color_bonus=(1, 2), points=(1, 2), totals=(1, 2))
    fields[name] = (1, 2, 3)
    e = ev.RoundScored(round=1, ending="stop", caller=0, caller_won=None, **fields)
    assert validate_error(e, 2).path == f"$.{name}"
    ev.validate(e.__class__(**{**{f: getattr(e, f) for f in e.__struct_fields__}, name: (1, 2)}), 2)


def test_game_ended_totals_one_per_seat():
    assert validate_error(ev.GameEnded(reason="target", winners=(0,), totals=(1,)), 2).path == "$.totals"


def test_event_before_game_started_is_a_format_error():
    assert validate_error(ev.TurnEnded(player=0), None).path == "$.type"


def test_duplicate_player_names():
    assert validate_error(ev.GameStarted(players=("Ann", "Ann")), None).path == "$.players"
    ev.validate(ev.GameStarted(players=("Ann", "Ben")), None)


@pytest.mark.parametrize("line, path, close", [
    ('{"type":"discard_taken","player":0,"pile":0,"card":"crab:purple"}', "$.card", "crab:"),
    ('{"type":"deck_drawn","player":0,"cards":["crab:black","krab:grey"],"kept":"crab:black",'
     '"discard_pile":0}', "$.cards[1]", "crab:grey"),
    ('{"type":"deck_drawn","player":0,"cards":["crab:black","crab:grey"],"kept":"mermaid",'
     '"discard_pile":0}', "$.kept", None),
    ('{"type":"round_started","round":1,"first_player":0,"discards":["shell:grey","Shell:Black"]}',
     "$.discards[1]", "shell:black"),
    ('{"type":"fish_played","player":0,"cards":["fish:black","fish:green"],"drew":"fish:red"}',
     "$.drew", "fish:"),
])
def test_unknown_card_code(line, path, close):
    err = format_error(line)
    assert err.path == path
    assert "unknown card code" in err.reason
    if close:
        assert "did you mean" in err.reason and close in err.reason


def test_unsupported_ruleset():
    # R-X-RULESET-3: Extra Pepper is the ``events`` setting, never a ruleset name
    err = format_error('{"type":"game_started","players":["a","b"],"ruleset":"extra-pepper"}')
    assert err.path == "$.ruleset"
    assert "'extra-pepper'" in err.reason and "ruleset" in err.reason
    err = format_error('{"type":"game_started","players":["a","b"],"events":"see-all"}')
    assert err.path == "$.events" and "'see-all'" in err.reason      # R-EV-VARIANTS
    assert ev.decode('{"type":"game_started","players":["a","b"],"ruleset":"extra-salt"}'
                     ).ruleset == "extra-salt"
    assert ev.decode('{"type":"game_started","players":["a","b"],"ruleset":"base"}').ruleset == "base"


def test_message_names_line_and_path_when_located():
    err = format_error('{"type":"turn_ended","player":"x"}')
    err.locate(file="games.jsonl", line=42)
    assert str(err).startswith("games.jsonl:42: LOG-FORMAT: ")
    assert str(err).endswith("at $.player")


# ------------------------------------------------------------------ the JSON Schema

def test_committed_schema_is_up_to_date():
    path = schema.SCHEMA_PATH
    fresh = schema.render()
    assert path.exists(), f"{schema.RELATIVE_PATH} is missing; run `{schema.REGENERATE}`"
    assert path.read_bytes().decode("utf-8") == fresh, (
        f"{schema.RELATIVE_PATH} is stale; run `{schema.REGENERATE}` and commit the result")


def test_schema_file_format():
    text = schema.render()
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_schema_describes_every_event_type():
    s = json.loads(schema.render())
    assert s["$schema"].startswith("https://json-schema.org/")
    defs = s["$defs"]
    tags = set()
    for name, d in defs.items():
        if "properties" in d and "type" in d["properties"]:
            tags.update(d["properties"]["type"]["enum"])
            assert d["additionalProperties"] is False, name      # unknown fields are errors
    assert tags == set(ev.TAGS.values())
    drawn = defs["DeckDrawn"]
    assert set(drawn["required"]) == {"type", "player", "cards", "kept"}
    assert drawn["properties"]["player"]["maximum"] == 3
    assert len(drawn["properties"]["kept"]["enum"]) == 46 + 8       # base and Extra Salt codes


def test_schema_main_writes_and_checks(tmp_path, capsys):
    out = tmp_path / "events.schema.json"
    assert schema.main(["--check", str(out)]) == 1               # missing is stale
    assert schema.main([str(out)]) == 0
    assert out.read_bytes().decode() == schema.render()
    assert schema.main(["--check", str(out)]) == 0
    out.write_text("{}\n")
    assert schema.main(["--check", str(out)]) == 1
    assert schema.REGENERATE in capsys.readouterr().err
