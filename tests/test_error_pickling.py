"""The library's errors survive pickling (a worker process's or a Dask task's error comes
back pickled): the same class, message and fields. Most take other arguments than the
message their ``args`` holds, so the default (call the class with ``args``) failed or, for
:class:`UnknownGameError`, wrapped the message in itself."""

from __future__ import annotations

import pickle

import pytest

from seasalt_log.errors import (CardCodeError, GameExistsError, IllegalMoveError,
                                LogFormatError, StoreBusyError, StreamConflictError,
                                UnknownGameError, UsageError)

ERRORS = [
    UnknownGameError("sim-1-9", ["sim-1-0", "sim-1-1"]),
    GameExistsError("demo-1", 7),
    StreamConflictError("demo-1", 3, 5),
    IllegalMoveError("R-TAKE-2", "the deck is empty", game_id="demo-1", round=2),
    LogFormatError("unknown card code 'crab:blak'", "$.card", line=3),
    CardCodeError("crab:blak", ["crab:black"]),
    StoreBusyError("the store is busy"),
    UsageError("give a round"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_an_error_survives_pickling(error):
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error)
    assert str(back) == str(error)
    assert vars(back) == vars(error)
    assert back.args == error.args
