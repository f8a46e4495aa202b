"""Benchmark of the web app (issue 17): a game page with a 700-event game, the viewer's
redraw per step, and the size of the front end.

A store gets one simulated 4-player game of at least 700 events; the service runs over it
in this process (``ServerThread``, a loopback port); the browser is the distribution's
Chromium driven by Playwright (``pip install -e '.[test]'``).

    python bench/web_bench.py
    python bench/web_bench.py --server-only GAME.jsonl   # the server's work only, 5 times

- *server work*: the frames, round reports and JSON of the page, CPU time (a first
  request; later ones for the same game and viewer are served from a small cache), and
  the frames extended by one event (a live game's page after an append);
- *request*: GET /play/{id} answered (HTML around the cached frames), median of 20;
- *usable*: from the request's start to the table drawn (the viewer's
  ``seasalt-drawn`` mark), with the HTML received, parsed and the frames rebuilt on the
  way, median of 10 loads;
- *redraw*: the viewer drawing each frame in turn (``seasaltViewer.show``), per step, with
  the main thread's CPU time and how much of it went to style and layout;
- *front end*: the HTML, CSS and script of each page without its game data.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread
from seasalt_log.service import import_logs
from seasalt_log.sim import simulate
from seasalt_log.store import Store
from seasalt_log import events as ev
from seasalt_log.web import pages

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def long_game(min_events: int = 700) -> list[ev.Event]:
    for game in simulate(200, 4, 7, bots=["patient"]):
        if len(game) >= min_events:
            return game
    raise SystemExit(f"no simulated game of {min_events} events")


def server_work(game: list[ev.Event], times: int = 5) -> list[float]:
    """The service's work for a game page, ``times`` times: frames, round reports, the
    frames as changes, JSON. Returns the CPU milliseconds of each."""
    from seasalt_log.web.timeline import deltas, frames, last_frame_of_rounds, round_reports
    gid = game[0].game_id
    cpu = []
    for _ in range(times):
        t0 = time.process_time()
        fr = frames(game, game_id=gid)
        round_reports(game, game_id=gid, last_frames=last_frame_of_rounds(fr))
        pages._json.encode(deltas(fr))
        cpu.append((time.process_time() - t0) * 1000)
    return cpu


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--server-only":
        # python bench/web_bench.py --server-only GAME.jsonl: that work alone, for timing
        # the whole process against another version of the code
        server_work([ev.decode(line) for line in Path(sys.argv[2]).read_bytes().splitlines()
                     if line.strip()])
        return
    from playwright.sync_api import sync_playwright
    game = long_game()
    gid = game[0].game_id
    cpu = server_work(game)
    print(f"server work for the page (frames, reports, JSON), CPU time: best {min(cpu):.0f} ms, "
          f"median {statistics.median(cpu):.0f} ms")
    from seasalt_log.web.timeline import frame_set
    grow = []
    for n in range(len(game) // 2, len(game) // 2 + 20):   # a live page, one event at a time
        fs = frame_set(game[:n], game_id=gid)
        t0 = time.process_time()
        frame_set(game[:n + 1], game_id=gid, prev=fs)
        grow.append((time.process_time() - t0) * 1000)
    print(f"a live page's frames extended by one event, CPU time: median "
          f"{statistics.median(grow):.2f} ms")
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "g.jsonl"
        log.write_bytes(b"".join(ev.encode(e) + b"\n" for e in game))
        with Store.open(Path(d) / "s.duckdb") as store:
            import_logs(store, [str(log)])
        with ServerThread(create_app(Path(d) / "s.duckdb")) as url:
            page_url = f"{url}/play/{gid}"
            times, size = [], 0
            with httpx.Client() as client:
                client.get(page_url)                  # the first request computes the frames
                for _ in range(20):
                    t0 = time.perf_counter()
                    r = client.get(page_url)
                    times.append((time.perf_counter() - t0) * 1000)
                    size = len(r.content)
            print(f"game {gid}: {len(game)} events; page {size / 1024:.0f} KB")
            print(f"request: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")

                def metrics() -> dict:        # the page's counters (seconds)
                    return {x["name"]: x["value"] for x in cdp.send("Performance.getMetrics")["metrics"]}

                def thread_ms() -> float:     # CPU time of the page's main thread
                    return metrics()["ThreadTime"] * 1000
                usable, cpu_load, split = [], [], []
                for _ in range(10):
                    page.goto("about:blank")
                    t0 = thread_ms()
                    page.goto(page_url)
                    page.wait_for_selector("#table .seat")
                    # from the request's start: the HTML received, parsed (the page's script
                    # starts), the frames rebuilt, the first frame drawn
                    split.append(page.evaluate("""() => {
                        const n = performance.getEntriesByType("navigation")[0];
                        const m = name => performance.getEntriesByName(name)[0].startTime;
                        return [n.responseEnd - n.requestStart, n.domInteractive - n.requestStart,
                                m("seasalt-frames") - n.requestStart,
                                m("seasalt-drawn") - n.requestStart]; }"""))
                    usable.append(split[-1][3])
                    cpu_load.append(thread_ms() - t0)
                med = [statistics.median(x[k] for x in split) for k in range(4)]
                print(f"usable: median {statistics.median(usable):.0f} ms after the request's start "
                      f"(HTML received {med[0]:.0f}, parsed {med[1]:.0f}, frames rebuilt "
                      f"{med[2]:.0f}, first frame drawn {med[3]:.0f}); main-thread CPU time to "
                      f"load and draw: median {statistics.median(cpu_load):.0f} ms")
                per = page.evaluate("""() => {
                    const v = window.seasaltViewer, n = v.frames.length, out = [];
                    for (let k = 0; k < n; k++) { const t = performance.now(); v.show(k);
                      document.body.offsetHeight; out.push(performance.now() - t); }
                    out.sort((a, b) => a - b);
                    return [out[Math.floor(n / 2)], out[Math.floor(n * 0.99)], out[n - 1]]; }""")
                a = metrics()
                page.evaluate("""() => { const v = window.seasaltViewer;
                    for (let k = 0; k < v.frames.length; k++) { v.show(k); document.body.offsetHeight; } }""")
                z = metrics()
                n = len(game)
                print(f"redraw per step (with layout): median {per[0]:.2f} ms, p99 {per[1]:.2f} ms, "
                      f"max {per[2]:.2f} ms; main-thread CPU time per step "
                      f"{(z['ThreadTime'] - a['ThreadTime']) * 1000 / n:.2f} ms, of which style "
                      f"{(z['RecalcStyleDuration'] - a['RecalcStyleDuration']) * 1000 / n:.2f} ms "
                      f"and layout {(z['LayoutDuration'] - a['LayoutDuration']) * 1000 / n:.2f} ms")
                browser.close()
    # the front end: every page's HTML, CSS and script, without the game's data
    data = {"game_id": "x", "frames": [], "reports": {}, "live": None}
    from seasalt_log.queries import GameRow
    row = GameRow(game_id="x", players=["A", "B"], n_players=2, target=40, status="ended",
                  rounds_played=0, events=0, end_reason=None, winners=None, totals=[0, 0])
    sizes = {"game page template": len(pages.game_page(row, "", data).encode()),
             "app.css": len(pages._static("app.css").encode()),
             "viewer.js": len(pages._static("viewer.js").encode()),
             "card symbols": len(pages.sprite().encode())}
    for k, v in sizes.items():
        print(f"front end: {k} {v / 1024:.1f} KB")


if __name__ == "__main__":
    main()
