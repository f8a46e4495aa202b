"""Benchmark of the live service (``seasalt serve``): appends per second over HTTP from
concurrent clients, and the latency from an append to a follower seeing it.

The service runs in its own process on a loopback port with a fresh store; the clients run
in this process on asyncio with keep-alive connections and pre-encoded requests, so that
they cost the machine as little as possible. Each client records its own games (random legal
play through the rules engine), appending with ``If-Match`` as a table would.

    python bench/http_bench.py                      # the standard runs
    python bench/http_bench.py --clients 32 --batch 1 --events 20000

Figures depend on the machine (and on what else runs on it): compare runs on one machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec

from seasalt_log import events as ev
from seasalt_log.cards import CODES, COUNT
from seasalt_log.engine import BETWEEN, ENDED, State, apply, legal_moves, next_derived

DECK = tuple(c for c in CODES for _ in range(COUNT[c]))
CALLS = (ev.StopCalled, ev.LastChanceCalled)
NAMES = ("Ann", "Ben", "Cid", "Dee")

SERVER = """
import sys
from seasalt_log.http.app import create_app
from seasalt_log.http.server import make_server
make_server(create_app(sys.argv[1]), "127.0.0.1", int(sys.argv[2]), log_level="warning").run()
"""


# ---------------------------------------------------------------- games

def random_game(seed: int, players: int, game_id: str) -> list[ev.Event]:
    """The input events of a whole game of random legal moves."""
    rng = random.Random(seed)
    s, out = State(), []
    s = apply(s, e := ev.GameStarted(players=NAMES[:players], game_id=game_id, target=20))
    out.append(e)
    while s.phase != ENDED:
        d = next_derived(s)
        if d is not None:
            s = apply(s, d)
            continue
        if s.phase == BETWEEN:
            cards = list(DECK)
            rng.shuffle(cards)
            f = s.flow
            first = rng.randrange(players) if f.ender is None else (f.ender + 1) % players
            e = ev.RoundStarted(round=f.round + 1, first_player=first,
                                discards=(cards[0], cards[1]), deck=tuple(cards[2:]))
        else:
            moves = legal_moves(s)
            calls = [m for m in moves if type(m) in CALLS]
            if calls and rng.random() < 0.3:
                e = rng.choice(calls)
            else:
                e = rng.choice([m for m in moves if type(m) not in CALLS])
        s = apply(s, e)
        out.append(e)
    return out


# ---------------------------------------------------------------- a lean HTTP/1.1 client

class Conn:
    """One keep-alive connection; requests are bytes built once."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> "Conn":
        r, w = await asyncio.open_connection("127.0.0.1", port)
        w.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(r, w)

    async def request(self, method: str, path: str, body: bytes = b"",
                      headers: str = "") -> tuple[int, bytes]:
        self.writer.write(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Content-Type: application/json\r\n{headers}"
                          f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n"):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


class _Seq(msgspec.Struct):
    seq: int


_seq = msgspec.json.Decoder(_Seq)


async def record_games(port: int, games: list[list[ev.Event]], batch: int,
                       counts: list[int]) -> None:
    """One client: record ``games`` one after the other, ``batch`` events per request."""
    c = await Conn.open(port)
    try:
        for game in games:
            gid = game[0].game_id
            status, body = await c.request("POST", "/games", ev.encode(game[0]))
            assert status == 201, body
            seq = _seq.decode(body).seq
            path = f"/games/{gid}/events"
            rest = game[1:]
            for i in range(0, len(rest), batch):
                chunk = rest[i:i + batch]
                payload = (ev.encode(chunk[0]) if batch == 1 else
                           b"[" + b",".join(ev.encode(e) for e in chunk) + b"]")
                status, body = await c.request("POST", path, payload, f'If-Match: "{seq}"\r\n')
                assert status == 200, body
                seq = _seq.decode(body).seq
                counts[0] += len(chunk)
                counts[1] += 1
    finally:
        c.close()


# ---------------------------------------------------------------- the service process

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """``seasalt serve`` in a subprocess with a fresh store."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory(prefix="seasalt-http-bench-")
        self.port = free_port()
        t0 = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER,
                                      str(Path(self.dir.name) / "bench.duckdb"), str(self.port)])
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    if s.recv(64).startswith(b"HTTP/1.1 200"):
                        break
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise SystemExit("the service did not start")
            time.sleep(0.005)
        self.startup = time.perf_counter() - t0

    def cpu(self, loop_only: bool = False) -> float:
        """CPU seconds the service process has used so far (all its threads; with
        ``loop_only``, its main thread's: the event loop's; Linux)."""
        pid = self.proc.pid
        stat = f"/proc/{pid}/task/{pid}/stat" if loop_only else f"/proc/{pid}/stat"
        try:
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def threads(self) -> dict[int, float]:
        """CPU seconds used so far by each thread of the service (Linux)."""
        out = {}
        for d in Path(f"/proc/{self.proc.pid}/task").iterdir():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[int(d.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return out

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self.dir.cleanup()


# ---------------------------------------------------------------- runs

def make_games(n: int, players: int, tag: str) -> list[list[ev.Event]]:
    return [random_game(1000 + i, players, f"{tag}-{i}") for i in range(n)]


def renamed(game: list[ev.Event], game_id: str) -> list[ev.Event]:
    """The same game under another id (events name seats, not the game)."""
    return [msgspec.structs.replace(game[0], game_id=game_id), *game[1:]]


def assign(pool: list[list[ev.Event]], clients: int, events: int, tag: str
           ) -> list[list[list[ev.Event]]]:
    """Games for each client: at least one each, about ``events`` events in all."""
    per_client = max(1, round(events / (clients * len(pool[0]))))
    k = 0
    out = []
    for c in range(clients):
        mine = []
        for _ in range(per_client):
            mine.append(renamed(pool[k % len(pool)], f"{tag}-{c}-{len(mine)}"))
            k += 1
        out.append(mine)
    return out


async def throughput(port: int, clients: int, batch: int, per: list[list[list[ev.Event]]]
                     ) -> dict:
    counts = [0, 0]
    t0 = time.perf_counter()
    await asyncio.gather(*(record_games(port, g, batch, counts) for g in per))
    dt = time.perf_counter() - t0
    return {"clients": clients, "batch": batch, "events": counts[0], "requests": counts[1],
            "seconds": dt, "events_per_s": counts[0] / dt, "requests_per_s": counts[1] / dt}


async def follow_latency(port: int, game: list[ev.Event], pause: float,
                         load: list[list[list[ev.Event]]] | None = None) -> list[float]:
    """Append ``game`` one event per request, ``pause`` s apart, while a follower listens;
    the latency of each event = when the follower got it - when its POST was sent."""
    gid = game[0].game_id
    w = await Conn.open(port)
    status, body = await w.request("POST", "/games", ev.encode(game[0]))
    assert status == 201
    seq = _seq.decode(body).seq
    r, fw = await asyncio.open_connection("127.0.0.1", port)
    fw.write(f"GET /games/{gid}/follow?after={seq} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await r.readuntil(b"\r\n\r\n")
    sent: dict[int, float] = {}
    got: dict[int, float] = {}
    done = asyncio.Event()

    async def listen() -> None:
        while True:
            line = await r.readline()
            if line.startswith(b"id: "):
                got[int(line[4:])] = time.perf_counter()
            elif line.startswith(b"event: end") or not line:
                done.set()
                return

    listener = asyncio.create_task(listen())
    counts = [0, 0]
    loaders = []
    if load:
        loaders = [asyncio.create_task(record_games(port, g, 1, counts)) for g in load]
    path = f"/games/{gid}/events"
    for e in game[1:]:
        await asyncio.sleep(pause)
        t = time.perf_counter()
        status, body = await w.request("POST", path, ev.encode(e), f'If-Match: "{seq}"\r\n')
        assert status == 200, body
        new = _seq.decode(body).seq
        for s in range(seq + 1, new + 1):
            sent[s] = t
        seq = new
    await asyncio.wait_for(done.wait(), 30)
    listener.cancel()
    for t in loaders:
        t.cancel()
    fw.close()
    w.close()
    return [(got[s] - sent[s]) * 1000 for s in sent if s in got]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, nargs="*", default=[1, 4, 16, 64, 256])
    ap.add_argument("--batch", type=int, nargs="*", default=[1, 20])
    ap.add_argument("--events", type=int, default=12000,
                    help="about how many events each throughput run appends (at least one "
                         "game per client)")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--pause", type=float, default=0.01,
                    help="seconds between the followed game's appends")
    args = ap.parse_args()

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s)")
    pool = make_games(64, args.players, "pool")
    mean = statistics.mean(len(g) for g in pool)
    print(f"{len(pool)} games of random legal play, {mean:.0f} input events each on average")
    svc = Service()
    print(f"service started and answering in {svc.startup * 1000:.0f} ms")
    try:
        print("\n| clients | events/request | requests/s | events/s | events/commit "
              "| service CPU ms/request | of it, event loop | events per service CPU-second |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        busy: list[str] = []
        for b in args.batch:
            for c in args.clients:
                tag = f"b{b}c{c}"
                before, cpu0, loop0 = _health(svc.port), svc.cpu(), svc.cpu(loop_only=True)
                threads0, own0 = svc.threads(), _own_cpu()
                res = asyncio.run(throughput(svc.port, c, b, assign(pool, c, args.events, tag)))
                after, cpu = _health(svc.port), svc.cpu() - cpu0
                loop = svc.cpu(loop_only=True) - loop0
                writer = (after["writer_seconds"] - before["writer_seconds"]) / res["seconds"]
                busy.append(_busy(svc.threads(), threads0, res, _own_cpu() - own0)
                            + f"; the writer's threads busy {writer:.0%} of the time (summed)")
                per_commit = res["events"] / max(1, after["batches"] - before["batches"])
                print(f"| {c} | {b} | {res['requests_per_s']:,.0f} | {res['events_per_s']:,.0f} "
                      f"| {per_commit:.1f} | {cpu / res['requests'] * 1000:.2f} "
                      f"| {loop / res['requests'] * 1000:.2f} "
                      f"| {res['events'] / cpu:,.0f} |", flush=True)
        print("\nBusiest threads of the service in each run (CPU ms per request, share of the "
              "run's wall time), and the clients' process:")
        for line in busy:
            print("  " + line)
        print("\n| append → follower | events | median ms | p95 ms | max ms |")
        print("|---|---:|---:|---:|---:|")
        for k, (label, load) in enumerate((
                ("idle service", None),
                ("8 other clients appending", assign(pool, 8, 8 * 400, "load")))):
            game = renamed(pool[0], f"followed-{k}")
            lat = sorted(asyncio.run(follow_latency(svc.port, game, args.pause, load)))
            print(f"| {label} | {len(lat)} | {statistics.median(lat):.1f} | "
                  f"{lat[int(len(lat) * 0.95)]:.1f} | {lat[-1]:.1f} |", flush=True)
    finally:
        svc.close()


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def _busy(now: dict[int, float], before: dict[int, float], res: dict, clients_cpu: float
          ) -> str:
    """The service's busiest threads over one run: where its CPU went and whether one
    thread was busy all the time (a share near 100 % bounds the rate)."""
    used = sorted(((now[t] - before.get(t, 0.0), t) for t in now), reverse=True)[:4]
    n, wall = res["requests"], res["seconds"]
    parts = [f"thread {t}: {cpu / n * 1000:.3f} ms ({cpu / wall:.0%})" for cpu, t in used]
    return (f"clients {res['clients']}, batch {res['batch']}: " + ", ".join(parts)
            + f"; clients' process {clients_cpu / n * 1000:.3f} ms ({clients_cpu / wall:.0%})")


def _health(port: int) -> dict:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return msgspec.json.decode(data.split(b"\r\n\r\n", 1)[1])


if __name__ == "__main__":
    main()
