/* The board and the side panel of one position, drawn from a frame (concordia_env.views.html.frames).
 *
 * Shared by the HTML replay and the web app. Nothing here knows a rule: every number shown
 * (money, free storehouse slots, prices, VP...) is read from the frame the engine produced.
 * Positions, sizes and colours come from concordia_env.views.html.board_svg.board_data (the PNG
 * renderer's geometry and style), so the two pictures agree.
 */
"use strict";

const ConcordiaBoard = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";

  /* ------------------------------------------------------------------ frames */
  class Frames {
    /** Reads named fields of frames laid out by FrameLayout.to_json(). */
    constructor(layout) {
      this.layout = layout;
    }
    get(frame, name, player) {
      let offset, length;
      if (player === undefined) {
        [offset, length] = this.layout.globals[name];
      } else {
        const [fieldOffset, fieldLength] = this.layout.player[name];
        offset = this.layout.player_base + player * this.layout.player_size + fieldOffset;
        length = fieldLength;
      }
      return length === 1 ? frame[offset] : Array.from(frame.subarray(offset, offset + length));
    }
    score(frame, player, key) {
      return this.get(frame, "score", player)[this.layout.score_keys.indexOf(key)];
    }
    /** All frames of a replay from {first, deltas}: the first in full, then the changed pairs. */
    static decode(encoded) {
      const frames = [Int32Array.from(encoded.first)];
      for (const delta of encoded.deltas) {
        const cur = frames[frames.length - 1].slice();
        for (let i = 0; i < delta.length; i += 2) cur[delta[i]] = delta[i + 1];
        frames.push(cur);
      }
      return frames;
    }
  }

  /* ------------------------------------------------------------------ svg helpers */
  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }
  function title(node, text) {
    el("title", {}, node).textContent = text;
    return node;
  }
  function spread(centre, normal, count, gap) {
    const out = [];
    for (let i = 0; i < count; i++) {
      const offset = (i - (count - 1) / 2) * gap;
      out.push([centre[0] + offset * normal[0], centre[1] + offset * normal[1]]);
    }
    return out;
  }
  function ring(centre, radius, count) {
    const out = [];
    for (let i = 0; i < count; i++) {
      const angle = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(count, 1);
      out.push([centre[0] + radius * Math.cos(angle), centre[1] + radius * Math.sin(angle)]);
    }
    return out;
  }

  /* ------------------------------------------------------------------ the board */
  class Board {
    /** ``svg``: an empty <svg>; ``board``: board_data(); ``frames``: a Frames; ``seats``: labels. */
    constructor(svg, board, frames, seats) {
      this.svg = svg;
      this.b = board;
      this.f = frames;
      this.seats = seats;
      svg.setAttribute("viewBox", board.view_box);
      svg.innerHTML = board.static_svg;
      const s = board.sizes;
      for (const line of svg.querySelectorAll(".path")) line.setAttribute("stroke-width", s.path_width);
      for (const node of svg.querySelectorAll(".capital")) node.setAttribute("stroke-width", s.edge_width * 2.5);
      for (const node of svg.querySelectorAll(".square")) node.setAttribute("stroke-width", s.edge_width * 1.5);
      for (const node of svg.querySelectorAll("text.name")) {
        node.setAttribute("font-size", s.name_font);
        node.setAttribute("stroke-width", s.halo_width);
      }
      for (const node of svg.querySelectorAll("text.province")) {
        node.setAttribute("font-size", s.marker_font * 0.9);
        node.setAttribute("stroke-width", s.halo_width);
      }
      this.pieces = el("g", { class: "pieces" }, svg);
    }

    /**
     * Draw the pieces of ``frame``. With ``highlight`` (one decision after the previous drawing), the
     * pieces that were not there before get the class "fresh".
     */
    draw(frame, highlight = true) {
      const g = this.pieces;
      g.replaceChildren();
      this.drawCities(frame, g);
      this.drawMarkers(frame, g);
      this.drawHouses(frame, g);
      this.drawColonists(frame, g);
      const keys = new Map(); // piece key -> how many drawn (two colonists of one kind may share a spot)
      for (const node of g.querySelectorAll("[data-key]")) {
        const key = node.dataset.key;
        const seen = keys.get(key) || 0;
        keys.set(key, seen + 1);
        if (highlight && this.previous && (this.previous.get(key) || 0) <= seen) node.classList.add("fresh");
      }
      this.previous = keys;
    }

    drawCities(frame, g) {
      const s = this.b.sizes;
      this.f.get(frame, "city_goods").forEach((good, place) => {
        if (good < 0) return;
        const [x, y] = this.b.places[place];
        const dot = el("circle", {
          class: "city", cx: x, cy: y, r: s.city_size / 2, fill: this.b.colors.goods[good],
          stroke: this.b.colors.text, "stroke-width": s.edge_width * 1.6,
          "data-place": place, "data-good": good,
        }, g);
        title(dot, `${this.b.place_names[place]}: ${this.b.goods[good]}`);
      });
    }

    drawMarkers(frame, g) {
      const s = this.b.sizes;
      const c = this.b.colors;
      const goods = this.f.get(frame, "marker_good");
      const coins = this.f.get(frame, "marker_coin");
      const nile = this.f.get(frame, "nile");
      goods.forEach((good, v) => {
        const [x, y] = this.b.markers[v];
        const half = s.marker_size / 2;
        const group = el("g", {
          class: "marker", "data-province": v, "data-good": good, "data-coin": coins[v], "data-key": `m${v}:${good}:${coins[v]}`,
        }, g);
        const square = { x: x - half, y: y - half, width: 2 * half, height: 2 * half, "stroke-width": s.edge_width };
        let label, color;
        if (good < 0) {
          el("rect", { ...square, fill: c.background, stroke: c.muted, "stroke-dasharray": `${s.edge_width * 3}` }, group);
          [label, color] = ["?", c.muted];
          title(group, `${this.b.province_names[v]}: no bonus marker`);
        } else if (coins[v]) {
          el("rect", { ...square, fill: c.goods[good], "fill-opacity": s.coin_side_fade, stroke: c.text }, group);
          el("circle", { cx: x, cy: y, r: half * Math.sqrt(s.coin_area), fill: c.coin, stroke: c.text, "stroke-width": s.edge_width }, group);
          [label, color] = [String(this.b.bonus_marker_coins[good]), c.text];
          title(group, `${this.b.province_names[v]}: ${this.b.goods[good]} marker on its coin side`);
        } else {
          el("rect", { ...square, fill: c.goods[good], stroke: c.text }, group);
          [label, color] = [this.b.goods[good][0].toUpperCase(), "#ffffff"];
          title(group, `${this.b.province_names[v]}: ${this.b.goods[good]} bonus marker`);
        }
        el("text", { class: "label", x, y, fill: color, "font-size": s.marker_font }, group).textContent = label;
        if (nile === v) {
          const nx = x + s.marker_size * 1.15;
          const marker = el("g", { class: "nile-marker", "data-province": v, "data-key": `n${v}` }, g);
          el("circle", { cx: nx, cy: y, r: s.marker_size * 0.4, fill: c.nile_marker, stroke: c.nile, "stroke-width": s.edge_width * 2.5 }, marker);
          el("text", { class: "label", x: nx, y, fill: c.text, "font-size": s.marker_font * 0.85 }, marker).textContent = "N";
          title(marker, `Nile food marker (${this.b.province_names[v]})`);
        }
      });
    }

    drawHouses(frame, g) {
      const s = this.b.sizes;
      const step = s.house_size * s.house_spacing;
      const players = this.f.layout.num_players;
      this.f.get(frame, "houses").forEach((bits, place) => {
        if (!bits) return;
        const [px, py] = this.b.places[place];
        const x0 = px + s.city_size / 2 + step * s.house_row_start;
        let k = 0;
        for (let p = 0; p < players; p++) {
          if (!(bits & (1 << p))) continue;
          const half = s.house_size / 2;
          const house = el("rect", {
            class: "house", x: x0 + k * step - half, y: py - half, width: s.house_size, height: s.house_size,
            fill: this.b.colors.players[p], stroke: this.b.colors.text, "stroke-width": s.edge_width,
            "data-player": p, "data-place": place, "data-key": `h${p}:${place}`,
          }, g);
          title(house, `${this.b.place_names[place]}: house of P${p} (${this.seats[p]})`);
          k++;
        }
      });
    }

    drawColonists(frame, g) {
      const s = this.b.sizes;
      const base = this.b.path_loc_base;
      const onPath = new Map();
      const inCity = new Map();
      for (let p = 0; p < this.f.layout.num_players; p++) {
        for (const code of this.f.get(frame, "colonists", p)) {
          if (code < 0) continue;
          const location = code >> 1;
          const kind = code & 1;
          const groups = location >= base ? onPath : inCity;
          const key = location >= base ? location - base : location;
          if (!groups.has(key)) groups.set(key, []);
          groups.get(key).push([p, kind, location]);
        }
      }
      const placed = [];
      for (const [path, who] of onPath) {
        spread(this.b.midpoints[path], this.b.normals[path], who.length, s.colonist_spread)
          .forEach((xy, i) => placed.push([xy, ...who[i]]));
      }
      for (const [place, who] of inCity) {
        who.sort((a, b) => a[1] - b[1] || a[0] - b[0]); // land first, then sea
        const centre = this.b.places[place];
        const spots = who.length > s.city_row_max
          ? ring(centre, s.city_ring * (1 + who.length / 10), who.length)
          : spread([centre[0], centre[1] - s.colonist_row_gap], [1, 0], who.length, s.colonist_spread);
        spots.forEach((xy, i) => placed.push([xy, ...who[i]]));
      }
      for (const [[x, y], p, kind, location] of placed) {
        const where = location >= base ? this.b.path_names[location - base] : this.b.place_names[location];
        const piece = el("path", {
          class: `colonist ${kind ? "sea" : "land"}`,
          d: kind ? this.b.outlines.sea : this.b.outlines.land,
          transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${s.colonist_size})`,
          fill: this.b.colors.players[p], stroke: this.b.colors.text,
          "stroke-width": s.edge_width / s.colonist_size,
          "data-player": p, "data-location": location, "data-key": `c${p}:${kind}:${location}`,
        }, g);
        title(piece, `${kind ? "sea" : "land"} colonist of P${p} at ${where}`);
      }
    }
  }

  /* ------------------------------------------------------------------ the panel */
  function esc(text) {
    return String(text).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
  }
  function chip(color) {
    return `<span class="chip" style="background:${color}"></span>`;
  }

  /**
   * The side panel: whose decision it is, each player, the display.
   * ``ctx``: {frames: Frames, board, names, seats, colors}; ``context``: the pending decision's details (text).
   */
  function panelHtml(ctx, frame, context) {
    const f = ctx.frames;
    const n = f.layout.num_players;
    const goods = ctx.names.goods;
    const current = f.get(frame, "current_player");
    const turnPlayer = f.get(frame, "turn_player");
    const pm = f.get(frame, "praefectus_magnus");
    const holder = f.get(frame, "concordia_holder");
    const parts = [];
    parts.push(`<div class="head"><div><b>Turn <span data-testid="turn">${f.get(frame, "turn")}</span></b>`
      + ` <span class="muted">· decision ${f.get(frame, "decision")}</span></div>`);
    if (f.get(frame, "game_over")) {
      parts.push(`<div class="who">Game over</div>`);
    } else {
      const away = current !== turnPlayer ? ` <span class="muted">(in P${turnPlayer}'s turn)</span>` : "";
      parts.push(`<div><span class="who" data-testid="to-decide" data-player="${current}">▶ P${current}`
        + ` (${esc(ctx.seats[current])})</span> to decide${away}: ${esc(ctx.names.phases[f.get(frame, "phase")])}</div>`);
      for (const line of (context || "").split("\n").filter(Boolean)) parts.push(`<div class="context">${esc(line)}</div>`);
    }
    parts.push(`<div class="muted">Praefectus Magnus P${pm} · Concordia card ${holder >= 0 ? "P" + holder : "–"}`
      + ` · stack ${f.get(frame, "stack_size")}</div></div>`);
    for (let p = 0; p < n; p++) parts.push(playerHtml(ctx, frame, p, p === current, pm, holder));
    parts.push(displayHtml(ctx, frame));
    return parts.join("");

    function playerHtml(ctx, frame, p, isCurrent, pm, holder) {
      const money = f.get(frame, "money", p);
      const own = f.get(frame, "goods", p);
      const hand = f.get(frame, "hand", p);
      const colonists = f.get(frame, "colonists", p).filter((c) => c >= 0);
      const land = colonists.filter((c) => (c & 1) === 0).length;
      const sea = colonists.length - land;
      const [storedLand, storedSea] = f.get(frame, "stored_colonists", p);
      const houses = [];
      f.get(frame, "houses").forEach((bits, place) => { if (bits & (1 << p)) houses.push(ctx.board.place_names[place]); });
      const incoming = f.get(frame, "incoming", p);
      const discard = f.get(frame, "discard_top", p);
      const cards = [];
      hand.forEach((count, card) => { if (count) cards.push(`${esc(ctx.names.cards[card])}${count > 1 ? " ×" + count : ""}`); });
      const handSize = hand.reduce((a, b) => a + b, 0);
      const badges = (p === pm ? `<span class="badge">Praefectus Magnus</span>` : "")
        + (p === holder ? `<span class="badge">Concordia</span>` : "");
      const goodsHtml = own.map((count, g) => `<span class="good" style="color:${ctx.board.colors.goods_text[g]}"`
        + ` title="${goods[g]}">${chip(ctx.board.colors.goods[g])}<span data-testid="goods-${p}-${g}">${count}</span></span>`).join("");
      const waiting = incoming.some((v) => v > 0)
        ? `<div class="detail"><b style="color:var(--highlight)">waiting for storage: ${incoming.map((v, g) => (v ? `${v} ${goods[g]}` : "")).filter(Boolean).join(", ")}</b></div>`
        : "";
      return `<div class="player${isCurrent ? " current" : ""}" data-testid="player-${p}">`
        + `<div class="line1">${chip(ctx.colors[p])} P${p} ${esc(ctx.seats[p])}${badges}`
        + `<span class="vp">VP <span data-testid="vp-${p}">${f.score(frame, p, "total")}</span></span></div>`
        + `<div class="detail">money <b data-testid="money-${p}">${money}</b> · hand ${handSize} · discard ${discard >= 0 ? esc(ctx.names.cards[discard]) : "–"}</div>`
        + `<div class="detail">${goodsHtml} <span class="muted">(<span data-testid="free-${p}">${f.get(frame, "free_slots", p)}</span> free)</span></div>`
        + `<div class="detail">houses <b data-testid="houses-${p}">${houses.length}</b>`
        + ` <span class="muted" data-testid="house-places-${p}">${esc(houses.join(", "))}</span></div>`
        + `<div class="detail">colonists ${land} land + ${sea} sea on the board, ${storedLand + storedSea} stored</div>`
        + waiting
        + `<div class="detail hand">${cards.join(" · ")}</div></div>`;
    }

    function displayHtml(ctx, frame) {
      const display = f.get(frame, "display");
      const prices = f.get(frame, "display_price");
      const g = goods.length;
      const rows = display.map((card, slot) => {
        if (card < 0) return `<tr><td class="muted">${slot + 1}</td><td class="muted" colspan="2">(empty)</td></tr>`;
        const price = prices.slice(slot * (g + 1), (slot + 1) * (g + 1));
        let cost = "";
        price.slice(0, g).forEach((count, good) => { for (let i = 0; i < count; i++) cost += chip(ctx.board.colors.goods[good]); });
        for (let i = 0; i < price[g]; i++) cost += `<b class="any" title="a good of the buyer's choice">?</b>`;
        const names = price.slice(0, g).map((count, good) => (count ? `${count} ${goods[good]}` : "")).filter(Boolean);
        if (price[g]) names.push(`${price[g]} any`);
        return `<tr data-testid="display-${slot}"><td class="muted">${slot + 1}</td>`
          + `<td>${esc(ctx.names.cards[card])} <span class="god">${esc(ctx.names.card_gods[card])}</span></td>`
          + `<td title="${names.join(", ")}">${cost}</td></tr>`;
      });
      return `<div class="display"><b>Display</b> <span class="muted">price: card + slot, ? = any good</span>`
        + `<table>${rows.join("")}</table></div>`;
    }
  }

  /** The legend under the board: the symbols the map uses (concordia_env.views.render.style.legend_kinds). */
  function legendHtml(board) {
    const c = board.colors;
    const outline = (kind) => `<path d="${board.outlines[kind]}" transform="scale(16)" fill="${c.muted}" stroke="${c.text}" stroke-width="0.06"/>`;
    const line = (color, dashes) => `<line x1="-9" x2="9" stroke="${color}" stroke-width="3" stroke-dasharray="${dashes}"/>`;
    const symbols = {
      capital: `<rect x="-7" y="-7" width="14" height="14" fill="#fff" stroke="${c.text}"/>`,
      square: `<polygon points="0,-8 8,0 0,8 -8,0" fill="${c.coin}" stroke="${c.text}"/>`,
      land: line(c.land_path, "2,3"),
      sea: line(c.sea_path, "6,3"),
      nile: line(c.nile, "6,3"),
      red_sea: line(c.red_sea, "6,3"),
      land_colonist: outline("land"),
      sea_colonist: outline("sea"),
      house: `<rect x="-5" y="-5" width="10" height="10" fill="${c.muted}" stroke="${c.text}"/>`,
      goods_side: `<rect x="-8" y="-8" width="16" height="16" fill="${c.goods[0]}" stroke="${c.text}"/>`,
      coin_side: `<circle r="6" fill="${c.coin}" stroke="${c.text}"/>`,
      nile_marker: `<circle r="6" fill="${c.nile_marker}" stroke="${c.nile}" stroke-width="2"/>`,
      free_marker: `<rect x="-7" y="-7" width="14" height="14" fill="${c.background}" stroke="${c.muted}" stroke-dasharray="3"/>`,
    };
    board.goods.forEach((good, g) => { symbols[good] = `<circle r="7" fill="${c.goods[g]}" stroke="${c.text}"/>`; });
    return board.legend.map(([kind, label]) => `<span><svg viewBox="-10 -10 20 20">${symbols[kind]}</svg> ${esc(label)}</span>`).join("");
  }

  return { Frames, Board, panelHtml, legendHtml, esc };
})();
