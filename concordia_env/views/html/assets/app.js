/* The web app's page (concordia_env.tools.web): your decisions by clicking, the agents' moves one at a time.
 *
 * The page keeps no rules: the server sends the position (a frame, drawn with board.js),
 * the legal choices grouped as in the terminal game, and the decisions in words. Every
 * request names the step it was made at, so a stale click is refused by the server
 * instead of being applied to a position the player never saw.
 */
"use strict";

(() => {
  const { Frames, Board, panelHtml, legendHtml, esc } = ConcordiaBoard;
  const config = JSON.parse(document.getElementById("app-config").textContent);
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  if (params.has("delay")) {
    const option = document.createElement("option");
    option.value = option.textContent = params.get("delay");
    $("delay").appendChild(option);
    $("delay").value = option.value;
  }

  let game = null; // {id, frames, board, ctx, logged, view}
  let timer = null;

  /* ------------------------------------------------------------------ requests */
  async function api(method, path, body) {
    const init = { method, headers: { "Content-Type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(path, init);
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
    return data;
  }
  function fail(error) {
    $("error").textContent = String(error.message || error);
  }

  async function newGame(options) {
    stopAgents();
    try {
      const view = await api("POST", "/api/games", options || {});
      setup(view);
      show(view);
    } catch (error) {
      fail(error);
    }
  }
  async function load(id) {
    try {
      const view = await api("GET", `/api/games/${id}?meta=1`);
      setup(view);
      show(view);
    } catch (error) {
      fail(error);
      if (!game) newGame();
    }
  }
  async function move(path, body) {
    const id = game.id;
    try {
      const view = await api("POST", `/api/games/${id}/${path}`, body);
      if (game.id === id) show(view);
    } catch (error) {
      fail(error);
      if (game.id === id) resync(id);
    }
  }
  /** After a refusal (a second tab moved, say): show the game as the server has it. */
  async function resync(id) {
    try {
      const view = await api("GET", `/api/games/${id}`);
      if (game.id !== id) return;
      game.logged = 0;
      $("log").innerHTML = "";
      show(view, true);
    } catch (error) {
      fail(error);
    }
  }

  /* ------------------------------------------------------------------ showing a view */
  function setup(view) {
    const meta = view.meta;
    const frames = new Frames(meta.layout);
    game = {
      id: view.id,
      frames,
      board: new Board($("board"), meta.board, frames, view.seats),
      ctx: { frames, board: meta.board, names: meta.names, seats: view.seats, colors: meta.colors },
      logged: 0,
      view: null,
    };
    $("legend").innerHTML = legendHtml(meta.board);
    $("log").innerHTML = "";
    $("result").innerHTML = "";
    $("last-move").textContent = "–";
    history.replaceState(null, "", `${location.pathname}${location.search}#${view.id}`);
    const seats = view.seats.map((s, p) => `P${p} ${s}`).join(", ");
    $("game-label").textContent = `${meta.board.title}, ${view.players} players: ${seats} · seed ${view.seed}`;
  }

  function show(view, keepError) {
    game.view = view;
    if (!keepError) $("error").textContent = "";
    for (const entry of view.history) logEntry(entry);
    const frame = Int32Array.from(view.frame);
    game.board.draw(frame);
    $("panel").innerHTML = panelHtml(game.ctx, frame, view.context);
    document.body.dataset.step = view.step;
    document.body.dataset.waiting = view.waiting_for;
    showChoices(view);
    if (view.over) {
      $("status").textContent = "Game over";
      showResult(view);
    } else if (view.waiting_for === "agent") {
      $("status").textContent = `P${view.to_move} (${view.seats[view.to_move]}) is deciding…`;
      timer = setTimeout(() => { timer = null; move("advance", { step: view.step }); }, Number($("delay").value));
    } else {
      const phase = game.ctx.names.phases[game.frames.get(frame, "phase")];
      $("status").textContent = `Your decision (P${view.to_move}): ${phase}`;
    }
  }

  function logEntry(entry) {
    if (entry.step < game.logged) return;
    const log = $("log");
    const previous = log.lastElementChild;
    if (!previous || Number(previous.dataset.turn) !== entry.turn) {
      const head = document.createElement("li");
      head.className = "turn";
      head.dataset.turn = entry.turn;
      head.textContent = `turn ${entry.turn}`;
      log.appendChild(head);
    }
    const item = document.createElement("li");
    item.dataset.step = entry.step;
    item.dataset.turn = entry.turn;
    item.innerHTML = `<span class="chip" style="background:${game.ctx.colors[entry.player]}"></span>`
      + `${entry.step + 1}. P${entry.player} (${esc(game.view.seats[entry.player])}): ${esc(entry.text)}`;
    log.appendChild(item);
    for (const old of log.querySelectorAll("li.current")) old.classList.remove("current");
    item.classList.add("current");
    log.scrollTop = log.scrollHeight;
    game.logged = entry.step + 1;
    $("last-move").textContent = `P${entry.player} (${game.view.seats[entry.player]}): ${entry.text}`;
  }

  function showChoices(view) {
    const box = $("choices");
    box.hidden = view.choices.length === 0;
    box.innerHTML = view.choices.map((group) => {
      const buttons = group.actions.map((action, i) => `<button class="choice${group.cards ? " card" : ""}"`
        + ` data-action="${action}">${esc(group.texts[i])}</button>`).join("");
      if (group.folded) {
        return `<details class="group"><summary>${esc(group.title)} (${group.actions.length} choices)</summary>${buttons}</details>`;
      }
      const heading = group.actions.length > 1 || group.cards ? `<div class="group-title">${esc(group.title)}</div>` : "";
      return `<div class="group">${heading}${buttons}</div>`;
    }).join("") + view.unplayable.map((note) => `<p class="unplayable">cannot be played now: ${esc(note)}</p>`).join("");
  }

  function showResult(view) {
    const r = view.result;
    const rows = r.ranking.map((p, place) => `<tr class="${p === r.winner ? "winner" : ""}"><td>${place + 1}.</td>`
      + `<td><span class="swatch" style="background:${game.ctx.colors[p]}"></span> P${p} ${esc(view.seats[p])}</td>`
      + `<td class="num" data-testid="final-score-${p}">${r.scores[p]}</td></tr>`).join("");
    const keys = Object.keys(r.breakdown[0]);
    const breakdown = keys.map((key) => `<tr class="${key === "total" ? "total" : ""}"><td>${esc(key.replace("_", " "))}</td>`
      + r.breakdown.map((b) => `<td class="num">${b[key]}</td>`).join("") + "</tr>").join("");
    const verdict = r.winner === view.human ? "You win!" : `P${r.winner} (${esc(view.seats[r.winner])}) wins.`;
    $("result").innerHTML = `<h2 data-testid="winner" data-player="${r.winner}">${verdict}</h2>`
      + `<table class="standings">${rows}</table>`
      + `<table class="breakdown"><tr><th></th>${view.seats.map((s, p) => `<th>P${p}</th>`).join("")}</tr>${breakdown}</table>`
      + `<p><a id="download" href="/api/games/${view.id}/replay" download>Download the HTML replay</a></p>`;
  }

  function stopAgents() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  }

  /* ------------------------------------------------------------------ wiring */
  $("choices").addEventListener("click", (event) => {
    const button = event.target.closest("button.choice");
    if (!button || !game || !game.view) return;
    for (const b of $("choices").querySelectorAll("button")) b.disabled = true;
    move("act", { step: game.view.step, action: Number(button.dataset.action) });
  });
  $("opt-map").innerHTML = config.maps.map((m) => `<option value="${m}">${m}</option>`).join("");
  $("opt-map").value = config.defaults.map;
  $("opt-players").value = config.defaults.players;
  $("opt-vs").value = config.defaults.vs.join(" ");
  $("opt-seat").value = config.defaults.seat;
  $("opt-vs").title += ` (agents: ${config.agents.join(", ")})`;
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame({
      map: $("opt-map").value,
      players: Number($("opt-players").value),
      vs: $("opt-vs").value.split(/\s+/).filter(Boolean),
      seat: Number($("opt-seat").value),
    });
  });

  const id = location.hash.slice(1);
  if (id) load(id); else newGame();
  window.concordiaApp = { get view() { return game && game.view; } };
})();
