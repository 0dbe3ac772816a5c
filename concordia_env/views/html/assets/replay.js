/* The replay viewer: decision by decision over the frames embedded in the page.
 *
 * Controls: first / previous / play-pause / next / last, the slider, "turn … go", a move in
 * the decision list, a click on the VP chart; keys: ←/→ one decision, ↑/↓ one turn,
 * Home/End, space to play or pause. ``step`` k shows the position after k decisions; the
 * "next" line is decision k's move in words (describe_action), the "last" line the move
 * that led here.
 */
"use strict";

(() => {
  const { Frames, Board, panelHtml, legendHtml, esc } = ConcordiaBoard;
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const frames = Frames.decode(data.frames);
  const f = new Frames(data.layout);
  const n = data.players;
  const steps = data.moves.length;
  const ctx = { frames: f, board: data.board, names: data.names, seats: data.seats, colors: data.colors };
  const $ = (id) => document.getElementById(id);

  const board = new Board($("board"), data.board, f, data.seats);
  $("legend").innerHTML = legendHtml(data.board);
  const turnOf = frames.map((frame) => f.get(frame, "turn"));
  const vp = [];
  for (let p = 0; p < n; p++) vp.push(frames.map((frame) => f.score(frame, p, "total")));

  let step = 0;
  let timer = null;

  /* ------------------------------------------------------------------ moves in words */
  function moveText(k) {
    const [, text] = data.moves[k];
    const player = f.get(frames[k], "current_player");
    return { player, text: `P${player} (${data.seats[player]}): ${data.strings[text]}` };
  }

  function buildLog() {
    const items = [];
    let turn = -1;
    for (let k = 0; k < steps; k++) {
      if (turnOf[k] !== turn) {
        turn = turnOf[k];
        const tp = f.get(frames[k], "turn_player");
        items.push(`<li class="turn">turn ${turn}: P${tp} (${esc(data.seats[tp])})</li>`);
      }
      const { player, text } = moveText(k);
      items.push(`<li data-step="${k}" title="go to decision ${k}">`
        + `<span class="chip" style="background:${data.colors[player]}"></span>${k + 1}. ${esc(text)}</li>`);
    }
    $("log").innerHTML = items.join("");
    $("log").addEventListener("click", (event) => {
      const li = event.target.closest("li[data-step]");
      if (li) go(Number(li.dataset.step));
    });
  }

  /* ------------------------------------------------------------------ VP chart */
  const CHART = { width: 1000, height: 240, left: 38, right: 12, top: 12, bottom: 24 };
  function chartX(k) {
    return CHART.left + (k / Math.max(steps, 1)) * (CHART.width - CHART.left - CHART.right);
  }
  function buildChart() {
    const svg = $("chart");
    svg.setAttribute("viewBox", `0 0 ${CHART.width} ${CHART.height}`);
    svg.setAttribute("preserveAspectRatio", "none");
    const top = Math.max(10, ...vp.flat());
    const y = (v) => CHART.height - CHART.bottom - (v / top) * (CHART.height - CHART.top - CHART.bottom);
    const parts = [];
    const tick = top > 150 ? 50 : top > 60 ? 20 : 10;
    for (let v = 0; v <= top; v += tick) {
      parts.push(`<line x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e2d8c0"/>`);
      parts.push(`<text x="${CHART.left - 4}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
    }
    const turnTick = Math.max(1, Math.round(turnOf[steps] / 10 / 5) * 5);
    for (let k = 0, last = -1; k <= steps; k++) {
      if (turnOf[k] % turnTick === 0 && turnOf[k] !== last) {
        last = turnOf[k];
        parts.push(`<text x="${chartX(k)}" y="${CHART.height - 6}" text-anchor="middle">turn ${turnOf[k]}</text>`);
      }
    }
    for (let p = 0; p < n; p++) {
      const points = vp[p].map((v, k) => `${chartX(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
      parts.push(`<polyline class="vp-line" data-player="${p}" points="${points}" fill="none" stroke="${data.colors[p]}"`
        + ` stroke-width="2" vector-effect="non-scaling-stroke"/>`);
    }
    parts.push(`<line id="chart-cursor" y1="${CHART.top}" y2="${CHART.height - CHART.bottom}" stroke="#ff8c00"`
      + ` stroke-width="1.5" vector-effect="non-scaling-stroke"/>`);
    svg.innerHTML = parts.join("");
    svg.addEventListener("click", (event) => {
      const box = svg.getBoundingClientRect();
      const x = ((event.clientX - box.left) / box.width) * CHART.width;
      const k = Math.round(((x - CHART.left) / (CHART.width - CHART.left - CHART.right)) * steps);
      go(Math.min(steps, Math.max(0, k)));
    });
  }

  /* ------------------------------------------------------------------ final breakdown */
  function buildBreakdown() {
    const keys = data.layout.score_keys;
    const final = frames[steps];
    const head = `<tr><th></th>${data.seats.map((s, p) => `<th><span class="swatch" style="background:${data.colors[p]}"></span>`
      + ` P${p} ${esc(s)}</th>`).join("")}</tr>`;
    const rows = keys.map((key) => `<tr class="${key === "total" ? "total" : ""}"><td>${esc(key.replace("_", " "))}</td>`
      + data.seats.map((_, p) => `<td class="num" data-testid="breakdown-${key}-${p}">${f.score(final, p, key)}</td>`).join("")
      + "</tr>");
    $("breakdown").innerHTML = head + rows.join("");
    if (!data.result.finished) $("breakdown-title").textContent = "Score by god where the game stopped";
  }

  /* ------------------------------------------------------------------ showing step k */
  function render(highlight) {
    const frame = frames[step];
    board.draw(frame, highlight);
    $("panel").innerHTML = panelHtml(ctx, frame, data.strings[f.get(frame, "context")]);
    $("step").textContent = step;
    $("slider").value = step;
    $("turn-input").value = turnOf[step];
    $("last-move").textContent = step > 0 ? moveText(step - 1).text : "– (start of the game)";
    $("next-move").textContent = step < steps ? moveText(step).text : (data.result.finished ? "– (game over)" : "– (recording ends)");
    $("prev").disabled = $("first").disabled = step === 0;
    $("next").disabled = $("last").disabled = step === steps;
    $("chart-cursor").setAttribute("x1", chartX(step));
    $("chart-cursor").setAttribute("x2", chartX(step));
    const log = $("log");
    const old = log.querySelector("li.current");
    if (old) old.classList.remove("current");
    const item = log.querySelector(`li[data-step="${step}"]`) || log.querySelector(`li[data-step="${step - 1}"]`);
    if (item) {
      item.classList.add("current");
      const top = item.offsetTop - log.offsetTop;
      if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - 20) log.scrollTop = top - log.clientHeight / 2;
    }
    document.body.dataset.step = step;
  }

  function go(k) {
    const next = Math.min(steps, Math.max(0, k));
    const oneForward = next === step + 1;
    step = next;
    render(oneForward);
  }

  /** The first position of turn ``t`` (or the nearest turn the game reached). */
  function goTurn(t) {
    let k = turnOf.findIndex((turn) => turn >= t);
    if (k < 0) k = steps;
    go(k);
  }

  function play() {
    if (timer !== null) return pause();
    if (step === steps) go(0);
    $("play").textContent = "❚❚ pause";
    $("play").classList.add("playing");
    const tick = () => {
      if (step >= steps) return pause();
      go(step + 1);
      timer = setTimeout(tick, Number($("speed").value));
    };
    timer = setTimeout(tick, Number($("speed").value));
  }
  function pause() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    $("play").textContent = "▶ play";
    $("play").classList.remove("playing");
  }

  /* ------------------------------------------------------------------ wiring */
  $("slider").max = steps;
  $("steps").textContent = steps;
  $("turn-input").max = turnOf[steps];
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(step - 1));
  $("next").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => go(steps));
  $("play").addEventListener("click", play);
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  $("turn-go").addEventListener("click", () => goTurn(Number($("turn-input").value)));
  $("turn-input").addEventListener("keydown", (event) => {
    if (event.key === "Enter") goTurn(Number($("turn-input").value));
    event.stopPropagation();
  });
  document.addEventListener("keydown", (event) => {
    const tag = event.target.tagName;
    if ((tag === "INPUT" && event.target.type !== "range") || tag === "SELECT") return;
    if (event.key === " " && tag === "BUTTON") return; // the button's own click
    const keys = {
      ArrowRight: () => go(step + 1),
      ArrowLeft: () => go(step - 1),
      ArrowUp: () => goTurn(turnOf[step] + 1),
      ArrowDown: () => goTurn(turnOf[step] - (step > 0 && turnOf[step - 1] === turnOf[step] ? 0 : 1)),
      Home: () => go(0),
      End: () => go(steps),
      " ": play,
    };
    if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });

  buildLog();
  buildChart();
  buildBreakdown();
  const fromHash = /^#(\d+)$/.exec(location.hash);
  go(fromHash ? Number(fromHash[1]) : 0);
  window.concordiaReplay = { go, goTurn, get step() { return step; }, steps, playing: () => timer !== null };
})();
