"""The Typer application and the shared plumbing every command uses."""

from __future__ import annotations

import functools
import inspect
import logging
from contextlib import contextmanager
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn

# Ctrl-C while DuckDB's extension module initialises aborts the interpreter ("Critical
# nanobind error", exit by SIGABRT): the signal waits until the module is loaded, then
# stops the command as anywhere else
_held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
try:
    import duckdb
finally:
    signal.pthread_sigmask(signal.SIG_SETMASK, _held)
import msgspec
import typer
from rich.console import Console
from typer.core import TyperGroup

from seasalt_log.errors import SeasaltError, interrupted

from .options import DB_ENV, DEFAULT_DB, DbOption, JobsOption, JsonOption  # noqa: F401

#: progress and summary messages go here (stderr; --quiet hides them, --verbose adds debug)
log = logging.getLogger("seasalt_cli")


def usage_error_line(exc: typer.TyperException) -> str:
    """A usage error (unknown option, bad choice, missing argument) as one line, with the
    command's --help as the hint."""
    message = " ".join(exc.format_message().split()).replace("Value error, ", "")
    message = message.removeprefix("Invalid value: ")  # a line of options, not one value
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoSuchOption" and ctx is not None:
        message = _dashed_argument(getattr(exc, "option_name", ""), ctx) or message
    hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
    return f"error: {message}{hint}"


def _dashed_argument(word: str, ctx: typer.Context) -> str | None:
    """What to say of an "unknown option" that is an argument starting with a dash (an
    option's name holds no space: ``seasalt query "-- note\nSELECT 1"``), or None."""
    if not any(c.isspace() for c in word):
        return None
    shown = " ".join(word.split())
    shown = shown if len(shown) <= 24 else shown[:23] + "…"
    params = ctx.command.params
    argument = next((p.metavar or (p.name or "").upper() for p in params
                     if p.param_type_name == "argument"), "ARGUMENT")
    reads = any("--file" in p.opts for p in params)
    return (f"{shown!r} starts with '-', so it was read as an option: write -- before it "
            f"({ctx.command_path} [OPTIONS] -- {argument})"
            + (", or read it from --file FILE or stdin (-)" if reads else ""))


def _unwrap(help_text: str | None) -> str | None:
    """A docstring's paragraphs each on one line: Rich wraps help to the terminal itself and
    keeps a line break it is given, which left every wrapped docstring line ragged."""
    if not help_text:
        return help_text
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(help_text).split("\n\n"))


#: ``-h`` as well as ``--help``, in every command (a subcommand's context inherits them)
HELP_OPTION_NAMES = ["-h", "--help"]


def _tidy_help(cmd) -> None:
    """Every command's help text unwrapped (:func:`_unwrap`), its flags without a
    placeholder (:func:`_flags_bare`) and its arguments without Python's types
    (:func:`_arguments_untyped`)."""
    cmd.help = _unwrap(cmd.help)
    ctx = typer.Context(cmd, help_option_names=HELP_OPTION_NAMES)
    _flags_bare([*cmd.params, cmd.get_help_option(ctx)])
    _arguments_untyped(cmd.params)
    for sub in getattr(cmd, "commands", {}).values():
        _tidy_help(sub)


def _flags_bare(params) -> None:
    """No placeholder after a flag in --help: Typer shows ``--json <bool>`` as if the flag
    took a value."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""


def _arguments_untyped(params) -> None:
    """An argument's help shows its placeholder (``PATH``, ``GAME``) alone: Typer added the
    Python type beside it (``PATH <list[str]>``), which no option shows."""
    for param in params:
        if param.param_type_name == "argument":
            param.display_type_rich = lambda ctx: None


@contextmanager
def _interruption_said():
    """Ctrl-C outside a command's own error boundary (parsing the command line, the root
    options) said as inside it; Typer would exit with code 130 and print nothing."""
    try:
        yield
    except KeyboardInterrupt:
        err.print("error: interrupted", markup=False)
        raise typer.Exit(130) from None


class SeasaltGroup(TyperGroup):
    """The root command: a usage error is one line on stderr with exit code 2, like every
    other error, instead of a boxed panel; running it with no arguments prints the help."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _tidy_help(self)

    def get_params(self, ctx):
        params = super().get_params(ctx)
        _flags_bare(params)         # the completion flags, added after __init__
        return params

    def make_context(self, *args, **kwargs):
        with _interruption_said():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx):
        with _interruption_said():
            return super().invoke(ctx)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.Abort:
            err.print("error: aborted", markup=False)
            sys.exit(1)
        except typer.TyperException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":    # plain `seasalt`: the help
                sys.stderr.write(exc.format_message() + "\n")
            else:
                err.print(usage_error_line(exc), markup=False)
            sys.exit(getattr(exc, "exit_code", 1))
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="seasalt",
    cls=SeasaltGroup,
    help="Record, check, replay and analyse games of Sea Salt & Paper. The rule an error "
         "names: seasalt rules ID (the rules: docs/RULES.md; the log format: docs/LOG_FORMAT.md).",
    no_args_is_help=True,
    context_settings={"help_option_names": HELP_OPTION_NAMES},
    add_completion=True,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

def db_path(db: Path | None) -> Path:
    """The store path: --db, else $SEASALT_DB, else ./seasalt.duckdb (the option resolves
    the same way; this is for callers that pass None)."""
    return db or Path(os.environ.get(DB_ENV) or DEFAULT_DB)


def fail(message: str, code: int = 1) -> None:
    """Print a one-line error on stderr and exit with ``code``."""
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def usage(message: str) -> NoReturn:
    """Refuse a command line that cannot be right whatever the store holds (options that do
    not go together, a missing argument, a value of the wrong form): one line ending with
    the command's --help, exit code 2, as the parser's own usage errors."""
    raise typer.BadParameter(message)       # said without "Invalid value:" (usage_error_line)


@contextmanager
def progress_bar(what: str, *, unit: str = "items", enabled: bool = True, total: int | None = None):
    """A transient progress bar on stderr when it is a terminal, else nothing; yields a
    callback ``(done, total=total)``, or None when there is no bar. ``unit`` "bytes" shows
    sizes, anything else counts."""
    if not enabled or not sys.stderr.isatty() or not log.isEnabledFor(logging.INFO):
        yield None
        return
    from rich.progress import (BarColumn, DownloadColumn, MofNCompleteColumn, Progress,
                               TimeRemainingColumn)
    count = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
    with Progress("[progress.description]{task.description}", BarColumn(), count,
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda done, of=total: bar.update(task, completed=done, total=of)


class StdoutError(Exception):
    """Standard output could not be written (``oserror`` says why)."""

    def __init__(self, oserror: OSError):
        super().__init__(oserror)
        self.oserror = oserror


class _Guarded:
    """A proxy of a stream (standard output, or its binary buffer) whose writes raise
    :class:`StdoutError` instead of a bare OSError that would not say which file failed."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, data):
        try:
            return self._stream.write(data)
        except OSError as exc:
            raise StdoutError(exc) from None

    def flush(self):
        try:
            return self._stream.flush()
        except OSError as exc:
            raise StdoutError(exc) from None

    @property
    def buffer(self):
        return _Guarded(self._stream.buffer)

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextmanager
def _guarded_stdout():
    real = sys.stdout
    sys.stdout = _Guarded(real)
    try:
        yield
    finally:
        sys.stdout = real


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of a
    broken stdout (closed pipe, full disk) does not print a traceback of its own."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _oserror(exc: OSError) -> str:
    what = exc.strerror or str(exc)
    return f"{exc.filename}: {what}" if exc.filename else what


def one_line_error(exc: BaseException) -> str:
    """A failure no library code turned into a :class:`SeasaltError` (nor a DuckDB error,
    which :func:`handles_errors` reports as the store's), said in one line."""
    if isinstance(exc, OSError):
        return _oserror(exc)
    if isinstance(exc, UnicodeError):
        return f"not UTF-8 text: {exc}"
    if isinstance(exc, MemoryError):
        return "out of memory"
    return (f"unexpected {type(exc).__name__}: {' '.join(str(exc).split()) or 'no message'} "
            "(a bug: set SEASALT_DEBUG=1 for the traceback, and please report it)")


def _stopped_by_ctrl_c(exc: BaseException) -> bool:
    """Whether Ctrl-C stopped the command: ``exc`` or an exception it was raised while
    handling (a failure of the cleanup after Ctrl-C, such as a statement refused because
    the interrupted one left its transaction aborted)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if interrupted(cur):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def _ignore_ctrl_c(signum, frame) -> None:
    """The SIGINT handler once a command has been interrupted (see :func:`_ctrl_c_once`)."""


def _first_ctrl_c(signum, frame):
    signal.signal(signal.SIGINT, _ignore_ctrl_c)
    raise KeyboardInterrupt


@contextmanager
def _ctrl_c_once():
    """The first Ctrl-C stops the command (KeyboardInterrupt); another, pressed while it
    cleans up (rolls back, stops its workers, removes a store it made), is ignored, so
    that the cleanup ends and the command says `interrupted` as the first Ctrl-C would.
    Python's handler is put back at the end; a SIGINT ignored (a background job) or
    handled by someone else is left alone."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    signal.signal(signal.SIGINT, _first_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def handles_errors(fn):
    """The CLI's error boundary: whatever goes wrong in a command becomes one line on
    stderr and exit code 1 (130 on Ctrl-C), never a traceback. Standard output is flushed
    inside the boundary, so a full disk or closed pipe behind it is caught here too; a
    closed pipe (`seasalt export --all | head`) ends quietly with exit code 0. Standard
    output redirected into the store or another DuckDB database is refused before the
    command runs."""
    name = fn.__name__.removesuffix("_cmd").rstrip("_")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            with _guarded_stdout(), _ctrl_c_once():
                from seasalt_log.outputs import check_stdout
                check_stdout([db_path(kwargs.get("db"))])     # without --db: the default store
                result = fn(*args, **kwargs)
                sys.stdout.flush()
            log.debug("%s: done in %.2f s", name, time.perf_counter() - started)
            return result
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except SeasaltError as exc:
            if _stopped_by_ctrl_c(exc):     # a failure worded after Ctrl-C stopped a statement
                fail("interrupted", 130)
            fail(str(exc), 1)
        except duckdb.Error as exc:     # the store failed under a command: damaged, most likely
            if _stopped_by_ctrl_c(exc):
                fail("interrupted", 130)
            from seasalt_log.store.store import store_failure
            fail(str(store_failure(db_path(kwargs.get("db")), exc)), 1)
        except StdoutError as exc:
            _silence_stdout()
            if isinstance(exc.oserror, BrokenPipeError):  # `seasalt export --all | head`
                raise typer.Exit(0)
            fail(f"cannot write to standard output: {exc.oserror.strerror or exc.oserror}", 1)
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except Exception as exc:
            if _stopped_by_ctrl_c(exc):     # Ctrl-C while DuckDB ran a statement
                fail("interrupted", 130)
            if os.environ.get("SEASALT_DEBUG"):
                raise
            log.debug("%s failed", name, exc_info=True)     # --verbose: the traceback
            fail(one_line_error(exc), 1)
    return wrapper


def main() -> None:
    """The ``seasalt`` console script: :data:`app` with standard output guarded as in
    :func:`handles_errors`, so that what Typer prints outside any command (``--help``, a
    usage error) also fails in one line on a full disk or a closed pipe."""
    try:
        with _guarded_stdout():
            app()
    except KeyboardInterrupt:       # after the command's own boundary, before the exit
        err.print("error: interrupted", markup=False)
        sys.exit(130)
    except StdoutError as exc:
        _silence_stdout()
        if isinstance(exc.oserror, BrokenPipeError):
            sys.exit(0)
        err.print(f"error: cannot write to standard output: {exc.oserror.strerror or exc.oserror}",
                  markup=False)
        sys.exit(1)
    finally:
        # the command has ended and said how: a Ctrl-C while the interpreter exits would
        # kill it by the signal instead, after its last line
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def print_json(data) -> None:
    """Write ``data`` (msgspec-encodable) as indented JSON on stdout."""
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(data), indent=2).decode() + "\n")


def version() -> str:
    """The installed package's version (its metadata): ``seasalt_log.__version__``."""
    from seasalt_log import __version__
    return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"seasalt {version()}")
        raise typer.Exit(0)


class _Stderr(logging.Handler):
    """Writes each message as a line on the standard error of the moment (a test runner
    may have replaced it since the handler was made)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


def configure_logging(quiet: bool = False, verbose: bool = False) -> None:
    """Messages of the CLI and the library on stderr: warnings and up with --quiet, debug
    too with --verbose, else info and up."""
    level = logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO
    handler = _Stderr()
    handler.setFormatter(logging.Formatter("%(message)s"))
    for name in ("seasalt_cli", "seasalt_log"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the version and exit."),
    quiet: bool = typer.Option(False, "--quiet", "-q",
                               help="Only results and errors: no progress bars, summaries or "
                                    "other messages on stderr."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Also debug messages on stderr (what a command does, "
                                      "step by step)."),
) -> None:
    """Record, check, replay and analyse games of Sea Salt & Paper."""
    if quiet and verbose:
        raise typer.BadParameter("give --quiet or --verbose, not both")
    configure_logging(quiet, verbose)
