// seasalt replay viewer: draws the table of one frame (a TableView computed by the server
// as the page's viewer may see it) and steps through the frames. No dependencies.
"use strict";
(function () {
  var DARK = {"dark-blue": 1, "black": 1, "purple": 1, "green": 1};
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }
  // one card, drawn from its code kind:colour (symbol from the page's sprite, colour fill);
  // each code is built once and cloned after that
  var drawn = {};
  function card(code, extra) {
    if (code == null) {
      return el("span", {"class": "card back", role: "img", "aria-label": "face-down card"});
    }
    if (!drawn[code]) {
      var kc = code.split(":"), kind = kc[0], colour = kc[1];
      var name = kind === "castofcrabs" ? "cast of crabs" : kind;
      var e = el("span", {"class": "card" + (DARK[colour] ? " dark" : ""),
        role: "img", "aria-label": name + ", " + colour, "data-code": code,
        style: "--c:var(--" + colour + ")"});
      e.innerHTML = '<svg aria-hidden="true" viewBox="0 0 32 32"><use href="#k-' + kind +
        '"></use></svg><span class="k">' + name + "</span>";
      drawn[code] = e;
    }
    var c = drawn[code].cloneNode(true);
    if (extra) c.classList.add(extra);
    return c;
  }
  window.seasaltCard = card;
  // decorate server-rendered placeholders <span data-card="kind:colour">
  function decorate(root) {
    Array.prototype.forEach.call(root.querySelectorAll("[data-card]"), function (s) {
      s.replaceWith(card(s.getAttribute("data-card")));
    });
  }

  function seatBox(seat, f) {
    var acting = f.player === seat.seat;
    var head = seat.name + " — total " + seat.total +
      (seat.card_points != null ? ", card points " + seat.card_points : "") +
      (acting ? " — to act (" + f.step + ")" : "") +
      (f.caller === seat.seat && f.call ? " — called " + f.call.replace("_", " ").toUpperCase() : "");
    var hand = el("div", {"class": "hand", "data-seat": seat.seat, "aria-label": seat.name + "'s hand"});
    if (seat.hand) seat.hand.forEach(function (c) { hand.appendChild(card(c)); });
    else for (var i = 0; i < seat.hand_size; i++) hand.appendChild(card(null));
    var laid = el("div", {"class": "laid", "aria-label": seat.name + "'s laid-down pairs and trios"});
    seat.laid.forEach(function (p) {   // a pair, or a trio (the pair, then the starfish)
      laid.appendChild(el("span", {"class": p.length > 2 ? "pair trio" : "pair"}, p.map(function (c) { return card(c); })));
    });
    return el("section", {"class": "seat" + (acting ? " acting" : ""), "data-seat": seat.seat}, [
      el("h3", {text: head}),
      f.extra ? extraSeat(f.extra, seat.seat) : null,
      el("div", {"class": "muted", text: "hand: " + seat.hand_size + " card(s)" + (seat.hand ? "" : " (hidden)")}),
      hand, lookedAt(f, seat), seat.laid.length ? el("div", {"class": "muted", text: "laid down:"}) : null, laid]);
  }

  // the hand the swimmers' player looked at, in that player's frame of the event only
  // (R-X-VIEW): shown beside the chosen seat, face up; a look, not a reveal
  function lookedAt(f, seat) {
    var l = f.looked_at;
    if (!l || l.seat !== seat.seat) return null;
    return el("div", {"class": "looked", "data-looked-at": l.hand.join(" "),
      "aria-label": "the hand you looked at (" + seat.name + "'s)"}, [
      el("div", {text: "looked at by you (only you saw it), before any swap:"})
    ].concat(l.hand.map(function (c) { return card(c, "looked-card"); })));
  }

  // the expansions (R-X-VIEW): events held and in effect, locks, protection, a face-down shell
  function eventName(code) {
    return code.split("-").map(function (w) {
      return w === "of" || w === "the" ? w : w.charAt(0).toUpperCase() + w.slice(1); }).join(" ");
  }
  function names(codes) { return codes.length ? codes.map(eventName).join(", ") : "none"; }
  function extraSeat(x, s) {
    var tags = [];
    if (x.held[s].length) tags.push(el("span", {"class": "tag", "data-held": x.held[s].join(" "),
      text: "events held: " + names(x.held[s])}));
    if (x.effects[s].length) tags.push(el("span", {"class": "tag", "data-effects": x.effects[s].join(" "),
      text: "in effect: " + names(x.effects[s])}));
    if (x.locks.indexOf(s) >= 0) tags.push(el("span", {"class": "tag lock", "data-lock": "",
      text: "jellyfish lock on the others"}));
    if (x.locked.indexOf(s) >= 0) tags.push(el("span", {"class": "tag locked", "data-locked": "",
      text: "locked: next turn forced"}));
    if (x.protected.indexOf(s) >= 0) tags.push(el("span", {"class": "tag", "data-protected": "",
      text: "protected"}));
    if (x.face_down[s]) {
      var c = x.face_down_cards[s];
      var shell = c == null ? el("span", {"class": "card back", role: "img", "aria-label": "face-down shell"})
        : card(c, "facedown");
      tags.push(el("span", {"class": "facedown-box", "data-face-down": c || ""},
        [el("span", {text: "face-down shell" + (c == null ? "" : " (only you see it)") + ": "}), shell]));
    }
    if (x.keep_due === s) tags.push(el("span", {"class": "tag", text: "to choose the event kept"}));
    return el("div", {"class": "extra"}, tags);
  }

  function pileBox(p) {
    var box = el("div", {"class": "pile", "data-pile": p.pile}, [
      el("div", {text: "Discard pile " + p.pile + ": " + p.size + " card(s)"})]);
    if (p.top) box.appendChild(card(p.top, "top"));
    return box;
  }

  function reportBox(r, names) {
    var rows = r.players.map(function (p) {
      var b = p.breakdown || {};
      function v(x) { return x == null ? "—" : String(x); }
      return el("tr", {}, [el("th", {scope: "row", text: p.name}),
        el("td", {"class": "n", text: v(b.pairs)}), el("td", {"class": "n", text: v(b.collectors)}),
        el("td", {"class": "n", text: v(b.multipliers)}), el("td", {"class": "n", text: v(b.mermaids)}),
        el("td", {"class": "n", text: v(b.card_points)}), el("td", {"class": "n", text: v(b.color_bonus)}),
        el("td", {"class": "n", text: v(p.points)}), el("td", {"class": "n", text: v(p.total)}),
        el("td", {"class": "n", text: v(p.what_if_points)})]);
    });
    var hdr = ["player", "pairs", "collectors", "multipliers", "mermaids", "card points",
      "colour bonus", "points", "total", "what-if points"];
    var t = el("table", {"class": "data"}, [el("caption", {text: "Round " + r.round + " breakdown"}),
      el("thead", {}, [el("tr", {}, hdr.map(function (h) { return el("th", {scope: "col", text: h}); }))]),
      el("tbody", {}, rows)]);
    var words = "Ending: " + r.ending + (r.caller_name ? ", called by " + r.caller_name : "") +
      ", result " + r.result + ".";
    if (r.what_if) words += " What-if " + r.what_if.call.replace("_", " ").toUpperCase() +
      ": points " + r.what_if.points.join(", ") + " (" + r.what_if.result + ").";
    r.players.forEach(function (p) {
      if (p.effect_notes && p.effect_notes.length) words += " " + p.name + ": " + p.effect_notes.join("; ") + ".";
    });
    if (r.note) words += " " + r.note;
    return el("div", {"class": "report"}, [el("p", {text: words}), el("div", {"class": "scroll"}, [t])]);
  }

  // draw frame f into the table element; `report` is the round's report when f ends a round
  function drawTable(root, f, report) {
    var status = f.phase === "ended" ? "Game over" + (f.winners.length ? ": won by " +
      f.winners.map(function (w) { return f.seats[w].name; }).join(" and ") : "") :
      f.phase === "round" ? "Round " + f.round + ", turn " + f.turn : "Between rounds";
    var mid = el("div", {"class": "middle"}, [
      el("div", {"class": "deck", "data-deck": f.deck_size, text: "Deck: " + f.deck_size + " card(s)"}),
      pileBox(f.piles[0]), pileBox(f.piles[1]),
      el("div", {text: "Totals: " + f.seats.map(function (s) { return s.name + " " + s.total; }).join(", ") +
        " (target " + f.target + ")"})]);
    if (f.extra) {
      var x = f.extra;
      mid.appendChild(el("div", {"class": "events", "data-table-event": x.table_event || "",
        text: "Table event: " + (x.table_event ? eventName(x.table_event) : "none") +
          "; event deck " + x.event_deck_size + ", discarded: " + names(x.event_discards)}));
    }
    var kids = [el("p", {"class": "said", text: f.text}),
      el("div", {"class": "muted", text: status}), mid,
      el("div", {"class": "seats"}, f.seats.map(function (s) { return seatBox(s, f); }))];
    if (report) kids.push(reportBox(report));
    root.replaceChildren.apply(root, kids);
  }
  window.seasaltDrawTable = drawTable;

  // frames travel as changes (timeline.deltas): rebuild each from the one before it
  function expand(prev, d) {
    if (!prev) return d;
    var f = Object.assign({}, prev, d);
    f.seats = d.seats.map(function (s, k) { return s || prev.seats[k]; });
    return f;
  }

  function start() {
    decorate(document);
    var dataEl = document.getElementById("game-data");
    if (!dataEl) return;
    var data = JSON.parse(dataEl.textContent);
    var frames = [], reports = data.reports || {};
    data.frames.forEach(function (d) { frames.push(expand(frames[frames.length - 1], d)); });
    if (window.performance && performance.mark) performance.mark("seasalt-frames");
    var $ = function (id) { return document.getElementById(id); };
    var table = $("table"), slider = $("slider"), pos = $("pos");
    var i = 0;
    function roundEnd(k) {   // the report to show at frame k: the last frame of its round
      var f = frames[k], n = frames[k + 1];
      if (!f.round || (n && n.round === f.round)) return null;
      return reports[f.round] || null;
    }
    function show(k, fromHash) {
      i = Math.max(0, Math.min(frames.length - 1, k));
      var f = frames[i];
      drawTable(table, f, roundEnd(i));
      slider.max = frames.length - 1;
      slider.value = i;
      slider.setAttribute("aria-valuetext", "event " + f.seq + " of " + frames.length);
      pos.textContent = "Event " + f.seq + " of " + frames.length + " — round " + f.round + ", turn " + f.turn;
      $("said").textContent = f.text;          // read out by screen readers (a live region)
      $("first").disabled = $("prev").disabled = i === 0;
      $("next").disabled = $("last").disabled = i === frames.length - 1;
      if (!fromHash) history.replaceState(null, "", "#seq=" + f.seq);
    }
    // a whole number written with the digits 0-9, else null (a mistyped link is no position)
    function whole(v) { return /^[0-9]+$/.test(v || "") ? Number(v) : null; }
    function fromHash() {
      var h = new URLSearchParams(location.hash.slice(1));
      var seq = whole(h.get("seq")), r = whole(h.get("round"));
      if (seq != null) return seq - 1;
      if (r != null) {
        var t = h.get("turn") ? whole(h.get("turn")) : 0, at = -1;
        frames.forEach(function (f, k) { if (f.round === r && f.turn === t) at = k; });
        if (at >= 0) return at;
      }
      return null;
    }
    $("first").onclick = function () { show(0); };
    $("prev").onclick = function () { show(i - 1); };
    $("next").onclick = function () { show(i + 1); };
    $("last").onclick = function () { show(frames.length - 1); };
    slider.oninput = function () { show(Number(slider.value)); };
    $("jump").onsubmit = function (e) {
      e.preventDefault();
      var r = Number($("jround").value), t = $("jturn").value === "" ? 0 : Number($("jturn").value), at = -1;
      frames.forEach(function (f, k) { if (f.round === r && f.turn === t) at = k; });
      $("jmsg").textContent = at < 0 ? "No round " + r + ", turn " + t + " in this game." : "";
      if (at >= 0) show(at);
    };
    document.addEventListener("keydown", function (e) {
      var tag = (e.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "select" || tag === "textarea" || e.altKey || e.ctrlKey || e.metaKey) return;
      var k = {ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: frames.length - 1}[e.key];
      if (k !== undefined) { e.preventDefault(); show(k); }
    });
    window.addEventListener("hashchange", function () { var k = fromHash(); if (k != null) show(k, true); });
    var k0 = fromHash();
    show(k0 != null ? k0 : (data.live ? frames.length - 1 : 0), k0 != null);
    if (window.performance && performance.mark) performance.mark("seasalt-drawn");
    window.seasaltViewer = {show: show, frames: frames, at: function () { return i; }};
    if (data.live && window.EventSource) {
      var live = $("live");
      var src = new EventSource(data.live + (data.live.indexOf("?") < 0 ? "?" : "&") + "after=" + frames[frames.length - 1].seq);
      src.onmessage = function (m) {
        var d = JSON.parse(m.data), atEnd = i === frames.length - 1;
        d.frames.forEach(function (f) {
          if (f.seq === frames.length + 1) frames.push(expand(frames[frames.length - 1], f)); });
        for (var r in d.reports || {}) reports[r] = d.reports[r];
        if (d.sheet != null) { $("sheet").innerHTML = d.sheet; }
        live.textContent = "Live: " + frames.length + " events so far";
        show(atEnd ? frames.length - 1 : i);
      };
      src.addEventListener("end", function () {
        live.replaceChildren("The game has ended. ", el("a", {href: location.pathname + location.search,
          text: "Reload it (hands may be shown now that it is over)"}));
        src.close();
      });
      src.onerror = function () {
        if (src.readyState !== EventSource.CLOSED) { live.textContent = "Live: reconnecting…"; return; }
        // refused (an answer that is no stream: a token that ended with the service's run,
        // say): the browser does not try again
        live.replaceChildren("Live updates stopped: the service refused them. ", el("a", {
          href: location.pathname + location.search, text: "Reload the page to see why"}));
      };
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
