// Drawn boards of the web table: one SVG per game, drawn from the observation the
// server answers for the human's seat (a sealed state's `view`, or the JSON state
// with the human's observer_seat in a game with nothing hidden).  Nothing here reads
// more than that observation, so a board shows what the seat may see.
//
// Every drawn component that a move can be about carries `data-ref`: the words a
// move's text uses for it (a Samara spot `r3c1`, an Oh My Goods! slot `#2` or card
// id, a Stephens furnace `FN-UL` or profession `miller`).  The page matches moves to
// components by those words: clicking a component offers the moves that name it, and
// a hint lights the components its move names.  Countable pieces carry `data-kind`
// (and `data-seat` when they belong to a seat) so a test can count what is drawn.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Observation = { [key: string]: Json };

/** What a board needs besides the observation. */
export interface BoardContext {
  human: number;
  /** The status scores (the final score if the game ended now, in Stephens). */
  scores: number[];
  /** The seat to move, -1 when none. */
  toMove: number;
}

const NS = "http://www.w3.org/2000/svg";
const SEAT_COLOURS = ["#c0392b", "#2a6fb0", "#2f8a4f", "#a0780f", "#7b4fa0"];
const seatColour = (seat: number): string => SEAT_COLOURS[seat % SEAT_COLOURS.length];
const seatName = (seat: number): string => `P${seat + 1}`;

type Attrs = Record<string, string | number>;

function el(tag: string, attrs: Attrs = {}, ...children: (SVGElement | string)[]): SVGElement {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

function label(x: number, y: number, text: string, attrs: Attrs = {}): SVGElement {
  return el("text", { x, y, "font-size": 11, ...attrs }, text);
}

/** A component: a group the page can match to moves (`refs`) and count (`kind`). */
function part(refs: string[], kind: string | null, seat: number | null, ...children: SVGElement[]): SVGElement {
  const attrs: Attrs = {};
  if (refs.length) {
    attrs["data-ref"] = refs.join(" ");
    attrs.class = "part";
  }
  if (kind) attrs["data-kind"] = kind;
  if (seat !== null) attrs["data-seat"] = seat;
  return el("g", attrs, ...children);
}

function box(x: number, y: number, w: number, h: number, fill: string, stroke = "#8a8f96"): SVGElement {
  return el("rect", { x, y, width: w, height: h, rx: 4, fill, stroke, class: "face" });
}

/** A card id as a short title: `brick-manufacture-7` → `Brick Manufacture 7`. */
const title = (id: string): string =>
  id.split("-").map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w)).join(" ");

/** Text cut to fit about `chars` characters. */
const fit = (text: string, chars: number): string => (text.length > chars ? text.slice(0, chars - 1) + "…" : text);

const num = (value: Json | undefined): number => (typeof value === "number" ? value : 0);
const str = (value: Json | undefined): string => (typeof value === "string" ? value : "");
const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);
const obj = (value: Json | undefined): Observation =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};

function svgRoot(width: number, height: number, game: string, ...children: SVGElement[]): SVGSVGElement {
  const root = el("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img",
                           "aria-label": `${game} board`, "data-game": game,
                           "font-family": "system-ui, sans-serif" }, ...children);
  return root as SVGSVGElement;
}

function pawn(x: number, y: number, seat: number, kind: string, glyph = ""): SVGElement {
  return part([], kind, seat,
    el("circle", { cx: x, cy: y, r: 7, fill: seatColour(seat), stroke: "#222", "stroke-width": 0.8, class: "face" }),
    label(x, y + 3.5, glyph, { "text-anchor": "middle", "font-size": 9, fill: "#fff" }));
}

function scoreLine(ctx: BoardContext, seat: number): string {
  const score = ctx.scores[seat];
  return score === undefined ? "" : `score ${score}`;
}

// -- Samara ------------------------------------------------------------------------------
const SAMARA_TOOLS = ["saw", "compass", "square", "glass-a", "glass-b"];
const TOOL_GLYPH: Record<string, string> = { saw: "S", compass: "C", square: "Q", "glass-a": "A", "glass-b": "B" };
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function samara(o: Observation, ctx: BoardContext): SVGSVGElement {
  const parts: SVGElement[] = [];
  const cell = 84;
  const rows = 4;
  const top = 22;
  parts.push(label(4, 14, `Samara, month ${num(o.month)}: the board (rows by strength, columns by cost in months)`,
                   { "font-weight": 600 }));
  for (let c = 1; c <= 9; c += 1) parts.push(label(10 + (c - 1) * cell + cell / 2, top + rows * 62 + 12,
                                                    `col ${c}`, { "text-anchor": "middle", fill: "#5b6570" }));
  for (const spot of list(o.spots)) {
    const s = obj(spot);
    const name = str(s.spot);
    const m = /^r(\d+)c(\d+)$/.exec(name);
    if (!m) continue;
    const row = Number(m[1]);
    const col = Number(m[2]);
    const x = 10 + (col - 1) * cell;
    const y = top + (rows - row) * 62;
    const tile = s.tile === null ? "" : str(s.tile);
    const children: SVGElement[] = [box(x, y, cell - 6, 56, tile ? "#f1e3c6" : "#e8e8e3")];
    children.push(label(x + 4, y + 12, name, { "font-size": 9, fill: "#5b6570" }));
    if (tile) children.push(part([], "tile", null, label(x + 4, y + 27, fit(title(tile), 13), { "font-size": 11 })));
    let tx = x + 8;
    const tools = obj(s.tools);
    for (const tool of SAMARA_TOOLS) {
      for (let k = 0; k < num(tools[tool]); k += 1) {
        children.push(part([], "tool", null,
          el("rect", { x: tx - 6, y: y + 36, width: 13, height: 13, rx: 2, fill: "#6b5a3a" }),
          label(tx, y + 46, TOOL_GLYPH[tool] ?? "?", { "text-anchor": "middle", "font-size": 9, fill: "#fff" })));
        tx += 16;
      }
    }
    parts.push(part([name], "spot", null, ...children));
  }
  // The time track: each month's workers, nearest first.
  const trackTop = top + rows * 62 + 24;
  parts.push(label(4, trackTop + 12, "Time track (workers by the month they return):", { "font-weight": 600 }));
  const track = list(o.track);
  const now = num(o.month);
  track.forEach((entry, k) => {
    const e = obj(entry);
    const x = 10 + k * 120;
    const month = num(e.month);
    // Month 0 is January, as the engine names months (its text board too); a track skips
    // empty months, so the distance is the months', not the position in the list.
    const name = MONTHS[((month % 12) + 12) % 12] ?? String(month);
    const children: SVGElement[] = [box(x, trackTop + 18, 114, 44, month === now ? "#fbe9d9" : "#f4f1ea"),
      label(x + 4, trackTop + 30, `${name}${month === now ? " (now)" : ` (+${month - now})`}`,
            { "font-size": 10, fill: "#5b6570" })];
    let px = x + 10;
    for (const worker of list(e.workers)) {
      const w = obj(worker);
      for (let n = 0; n < num(w.men) + num(w.women); n += 1) {
        children.push(pawn(px, trackTop + 48, num(w.owner), "worker", n < num(w.men) ? "M" : "W"));
        px += 16;
      }
    }
    parts.push(part([], null, null, ...children));
  });
  // The foremen: each player's tools, pawns on the board and buildings.
  const formTop = trackTop + 70;
  list(o.foremen).forEach((foreman, seat) => {
    const f = obj(foreman);
    const y = formTop + seat * 34;
    const children: SVGElement[] = [box(6, y, 756, 30, seat === ctx.human ? "#fff6e8" : "#fafafa", seatColour(seat)),
      label(12, y + 19, `${seatName(seat)}${seat === ctx.human ? " (you)" : ""}${ctx.toMove === seat ? " ▶" : ""}`,
            { "font-weight": 600, fill: seatColour(seat) }),
      label(80, y + 19, scoreLine(ctx, seat), { "font-size": 11 })];
    let x = 160;
    const tools = obj(f.tools);
    for (const tool of SAMARA_TOOLS) {
      for (let k = 0; k < num(tools[tool]); k += 1) {
        children.push(part(seat === ctx.human ? [tool] : [], "tool", seat,
          el("rect", { x, y: y + 8, width: 14, height: 14, rx: 2, fill: "#6b5a3a" }),
          label(x + 7, y + 19, TOOL_GLYPH[tool] ?? "?", { "text-anchor": "middle", "font-size": 9, fill: "#fff" })));
        x += 17;
      }
    }
    x = Math.max(x + 10, 300);
    const pawns = obj(f.pawns);
    for (let k = 0; k < num(pawns.men) + num(pawns.women); k += 1) {
      const pawnPart = pawn(x, y + 15, seat, "pawn", k < num(pawns.men) ? "M" : "W");
      if (seat === ctx.human) {
        pawnPart.setAttribute("data-ref", k < num(pawns.men) ? "man" : "woman");
        pawnPart.setAttribute("class", "part");
      }
      children.push(pawnPart);
      x += 17;
    }
    x = Math.max(x + 10, 380);
    const buildings = list(f.buildings).map(str);
    children.push(label(x, y + 19, fit(`built: ${buildings.map(title).join(", ") || "-"}`, 60), { "font-size": 11 }));
    parts.push(part([], "foreman", seat, ...children));
  });
  const height = formTop + list(o.foremen).length * 34 + 6;
  return svgRoot(768, height, "samara", ...parts);
}

// -- Oh My Goods! ------------------------------------------------------------------------
const CARD_W = 66;
const CARD_H = 40;
const HAND_ROW = 10;

/** A name in at most two lines of about `chars` characters each. */
function twoLines(name: string, chars: number): [string, string] {
  const words = name.split(" ");
  let first = words.shift() ?? "";
  while (words.length && (first + " " + words[0]).length <= chars) first += " " + words.shift();
  return [fit(first, chars), fit(words.join(" "), chars)];
}

function omgCard(x: number, y: number, id: string, refs: string[], kind: string, seat: number | null): SVGElement {
  const words = title(id).split(" ");
  const number = words.pop() ?? "";
  const [first, second] = twoLines(words.join(" "), 11);
  return part(refs, kind, seat, box(x, y, CARD_W, CARD_H, "#fdf6e3"),
    label(x + 3, y + 12, first, { "font-size": 9.5 }),
    label(x + 3, y + 23, second, { "font-size": 9.5 }),
    label(x + CARD_W - 3, y + CARD_H - 4, number, { "font-size": 9, fill: "#5b6570", "text-anchor": "end" }));
}

function ohMyGoods(o: Observation, ctx: BoardContext): SVGSVGElement {
  const parts: SVGElement[] = [];
  parts.push(label(4, 14, `Oh My Goods! round ${num(o.round)}, phase ${str(o.phase)}; deck ${num(o.deck)}, discard ${list(o.discard).length}`,
                   { "font-weight": 600 }));
  parts.push(label(4, 34, "market:", { fill: "#5b6570" }));
  // A long market (up to a dozen cards with more players) closes up to fit the board.
  const market = list(o.display);
  const marketStep = Math.min(CARD_W + 4, (760 - 56 - CARD_W) / Math.max(market.length - 1, 1));
  market.forEach((card, k) => {
    parts.push(omgCard(56 + k * marketStep, 22, str(card), [str(card)], "market", null));
  });
  parts.push(label(4, 80, "assistants for hire (number/face):", { fill: "#5b6570" }));
  list(o.pool).forEach((entry, k) => {
    const a = obj(entry);
    const id = str(a.assistant);
    parts.push(part([id], "assistant", null, box(200 + k * 58, 66, 54, 20, "#e6eef6"),
      label(204 + k * 58, 80, `${id.replace("assistant-", "A")}/${num(a.face)}`, { "font-size": 10 })));
  });
  let y = 94;
  list(o.players).forEach((player, seat) => {
    const p = obj(player);
    const mine = seat === ctx.human;
    const buildings = [str(p.charburner), ...list(p.buildings).map(str)];
    const goods = list(p.goods);
    const hand = p.hand;
    const handCount = Array.isArray(hand) ? hand.length : num(hand);
    const handRows = mine ? Math.ceil(handCount / HAND_ROW) : 0;
    const rowH = 58 + handRows * (CARD_H + 4) + (handRows ? 4 : 0);
    const step = Math.min(CARD_W + 6, 636 / buildings.length);
    const children: SVGElement[] = [box(4, y, 760, rowH, mine ? "#fff6e8" : "#fafafa", seatColour(seat)),
      label(10, y + 14, `${seatName(seat)}${mine ? " (you)" : ""}${num(o.active) === seat ? ", active" : ""}${ctx.toMove === seat ? " ▶" : ""}`,
            { "font-weight": 600, fill: seatColour(seat) }),
      label(10, y + 28, scoreLine(ctx, seat), { "font-size": 10 })];
    const work = obj(p.work);
    const plan = p.plan === null ? "" : str(p.plan);
    if (plan) children.push(label(10, y + 42, fit(`plan: ${plan === "hidden" ? "(hidden)" : title(plan)}`, 22), { "font-size": 9.5 }));
    buildings.forEach((id, slot) => {
      const x = 120 + slot * step;
      const w = step - 4;
      const refs = mine ? [`#${slot}`, id] : [];
      const perRow = Math.max(1, Math.floor((w - 6) / 7.5));
      const [first, second] = twoLines(`#${slot} ${title(id).replace(/ \d+$/, "")}`, Math.floor(w / 5.6));
      const onIt: SVGElement[] = [box(x, y + 4, w, 50, slot === 0 ? "#e3ddd3" : "#f3ead2"),
        label(x + 3, y + 14, first, { "font-size": 9 }), label(x + 3, y + 24, second, { "font-size": 9 })];
      list(goods[slot]).forEach((good, k) => {
        const gx = x + 6 + (k % perRow) * 7.5;
        const gy = y + 28 + Math.floor(k / perRow) * 7;
        onIt.push(part([], "good", seat, el("rect", { x: gx - 3, y: gy, width: 6, height: 6,
          fill: good === null ? "#7a5c3a" : "#d9a441", stroke: "#333", "stroke-width": 0.4 })));
      });
      if (work.slot !== undefined && num(work.slot) === slot) onIt.push(pawn(x + w - 9, y + 44, seat, "worker", str(work.mode) === "sloppy" ? "s" : "o"));
      for (const entry of list(p.assistants)) {
        const a = obj(entry);
        if (num(a.slot) === slot) onIt.push(part([str(a.assistant)], "assistant", seat,
          el("rect", { x: x + 4, y: y + 40, width: 22, height: 11, rx: 2, fill: "#cfe0f1", stroke: "#333", "stroke-width": 0.4 }),
          label(x + 6, y + 49, str(a.assistant).replace("assistant-", "A"), { "font-size": 8 })));
      }
      children.push(part(refs, "building", seat, ...onIt));
    });
    // Another seat's hand as backs, whatever the observation holds: its cards are never
    // drawn (the view of a sealed state counts them anyway).
    if (Array.isArray(hand) && mine) {
      hand.forEach((card, k) => {
        const x = 10 + (k % HAND_ROW) * (CARD_W + 8);
        children.push(omgCard(x, y + 58 + Math.floor(k / HAND_ROW) * (CARD_H + 4), str(card), [str(card)], "card", seat));
      });
    } else {
      children.push(label(520, y + 14, `hand: ${handCount} cards`, { "font-size": 10, fill: "#5b6570" }));
      for (let k = 0; k < handCount; k += 1) {
        children.push(part([], "back", seat, el("rect", { x: 520 + (k % 24) * 9 + Math.floor(k / 24) * 4, y: y + 22, width: 16, height: 24, rx: 2,
          fill: "#5b4a8a", stroke: "#fff", "stroke-width": 0.8 })));
      }
    }
    parts.push(part([], "player", seat, ...children));
    y += rowH + 6;
  });
  return svgRoot(768, y, "oh-my-goods", ...parts);
}

// -- Stephens ----------------------------------------------------------------------------
const CUBE_COLOURS: Record<string, string> = { green: "#3c8d40", blue: "#2a6fb0", white: "#f4f4f4",
                                              orange: "#e67e22", pink: "#e07aa8", black: "#222" };

function cube(x: number, y: number, colour: string, seat: number | null, kind = "cube"): SVGElement {
  return part([colour], kind, seat, el("rect", { x, y, width: 9, height: 9, fill: CUBE_COLOURS[colour] ?? "#999",
                                                 stroke: "#333", "stroke-width": 0.5 }));
}

/** The glass each furnace holds, as printed on the board (catalogue.json's furnaces). */
const FURNACE_GLASS: Record<string, string> = { "FN-UL": "green", "FN-UR": "blue", "FN-LL": "white", "FN-LR": "white" };

/** Board corners in reading order: upper before lower, left before right. */
const byCorner = (a: string, b: string): number => {
  const key = (name: string): number => (name[name.length - 2] === "U" ? 0 : 2) + (name[name.length - 1] === "L" ? 0 : 1);
  return key(a) - key(b);
};

const ownerSeat = (owner: Json): number => (owner === "automa" ? -1 : num(owner));

function worker(x: number, y: number, owner: Json, role: string): SVGElement {
  const seat = ownerSeat(owner);
  const fill = seat < 0 ? "#666" : seatColour(seat);
  return part([], "worker", seat < 0 ? null : seat,
    el(role === "master" ? "rect" : "circle", role === "master"
      ? { x: x - 6, y: y - 6, width: 12, height: 12, fill, stroke: "#222", "stroke-width": 0.8 }
      : { cx: x, cy: y, r: 5, fill, stroke: "#222", "stroke-width": 0.8 }),
    label(x, y + 3, seat < 0 ? "A" : "", { "text-anchor": "middle", "font-size": 8, fill: "#fff" }));
}

function stephens(o: Observation, ctx: BoardContext): SVGSVGElement {
  const parts: SVGElement[] = [];
  const decisions = list(o.decisions);
  const top = obj(decisions[decisions.length - 1]);
  const waiting = decisions.length ? `${seatName(num(top.seat))} decides: ${str(top.kind)}` : "the game is over";
  parts.push(label(4, 14, `Stephens, round ${num(o.round)}; ${waiting}`, { "font-weight": 600 }));
  // The army track: 0..army's start, the French army's marker.
  const army = num(o.army);
  parts.push(part([], "army", null, label(470, 14, "French army", { "font-size": 10, fill: "#5b6570" }),
    el("rect", { x: 540, y: 6, width: 220, height: 10, fill: "#eee", stroke: "#999" }),
    el("rect", { x: 540, y: 6, width: Math.min(220, (220 * army) / 60), height: 10, fill: "#3b4f7a" }),
    label(764, 15, String(army), { "font-size": 10, "text-anchor": "end", fill: "#fff" })));
  // The factory area: four furnaces and four small factories, each a place for workers.
  const places = obj(o.places);
  const furnaces = obj(o.furnaces);
  const factories = obj(o.small_factories);
  // As on the board: furnaces above, small factories below, each upper left to lower
  // right (a Struct keeps no key order).
  const names = [...Object.keys(furnaces).sort(byCorner), ...Object.keys(factories).sort(byCorner)];
  const placeH = 40 + Math.max(3, ...names.map((n) => list(places[n]).length)) * 17;
  names.forEach((name, k) => {
    const x = 4 + (k % 4) * 191;
    const y = 24 + Math.floor(k / 4) * (placeH + 6);
    const isFurnace = name.startsWith("FN");
    const children: SVGElement[] = [box(x, y, 186, placeH, isFurnace ? "#f6e0d0" : "#e5ecf3"),
      label(x + 5, y + 13, `${isFurnace ? `Furnace ${name}, ${FURNACE_GLASS[name] ?? "?"} glass` : `Small factory ${name}`}`,
            { "font-size": 10.5, "font-weight": 600 })];
    if (isFurnace) {
      for (let g = 0; g < num(furnaces[name]); g += 1) {
        children.push(part([], "glass", null, el("circle", { cx: x + 12 + g * 13, cy: y + 25, r: 5,
          fill: CUBE_COLOURS[FURNACE_GLASS[name]] ?? "#9fd8e8", stroke: "#333", "stroke-width": 0.6 })));
      }
    } else {
      let cx = x + 6;
      for (const [colour, n] of Object.entries(obj(factories[name]))) {
        for (let c = 0; c < num(n); c += 1) { children.push(cube(cx, y + 20, colour, null, "product")); cx += 11; }
      }
    }
    list(places[name]).forEach((entry, row) => {
      const e = obj(entry);
      const card = str(e.card);
      const ry = y + 36 + row * 17;
      const rowParts: SVGElement[] = [el("rect", { x: x + 4, y: ry, width: 178, height: 15, rx: 2, fill: "#fff", stroke: "#c9c9c9" }),
        label(x + 8, ry + 11, fit(title(card), 18), { "font-size": 9.5 }), worker(x + 150, ry + 7.5, e.master, "master")];
      if (e.apprentice !== null && e.apprentice !== undefined) rowParts.push(worker(x + 168, ry + 7.5, e.apprentice, "apprentice"));
      children.push(part([card], "profession", null, ...rowParts));
    });
    parts.push(part([name], isFurnace ? "furnace" : "factory", null, ...children));
  });
  // Displays: professions, contracts, investments.
  let y = 24 + 2 * (placeH + 6) + 6;
  const profs = obj(o.professions);
  const row = (title_: string, cards: Json[], kind: string, note: string): void => {
    parts.push(label(4, y + 13, title_, { "font-size": 10, fill: "#5b6570" }));
    cards.forEach((card, k) => {
      const id = card === null ? "" : str(card);
      const x = 84 + k * 112;
      parts.push(id ? part([id], kind, null, box(x, y, 108, 20, "#fdf6e3"), label(x + 4, y + 14, fit(title(id), 18), { "font-size": 10 }))
                    : part([], null, null, box(x, y, 108, 20, "#eee")));
    });
    parts.push(label(764, y + 13, note, { "font-size": 9.5, "text-anchor": "end", fill: "#5b6570" }));
    y += 24;
  };
  const red = obj(profs.red_deck);
  const blue = obj(profs.blue_deck);
  row("professions", list(profs.display), "profession-card", "");
  y += 4;
  // The decks' face-up tops: a move takes a top by its name.
  for (const [k, [colour, deck]] of ([["red", red], ["blue", blue]] as const).entries()) {
    const x = 84 + (4 + k) * 112;
    const top = str(deck.top);
    parts.push(part(top ? [top, colour] : [colour], "deck", null, box(x, y - 24, 108, 20, colour === "red" ? "#f6dcdc" : "#dde4f6"),
      label(x + 4, y - 10, fit(`${colour} (${num(deck.count)}): ${title(top) || "-"}`, 19), { "font-size": 9.5 })));
  }
  const contracts = obj(o.contracts);
  row("contracts", list(contracts.display), "contract", `deck ${num(contracts.deck)}`);
  const investments = obj(o.investments);
  row("investments", list(investments.display), "investment", `deck ${num(investments.deck)}`);
  // The player boards.
  list(o.players).forEach((player, seat) => {
    const p = obj(player);
    const mine = seat === ctx.human;
    const children: SVGElement[] = [box(4, y + 2, 760, 58, mine ? "#fff6e8" : "#fafafa", seatColour(seat)),
      label(10, y + 17, `${seatName(seat)}${mine ? " (you)" : ""}${ctx.toMove === seat ? " ▶" : ""}`, { "font-weight": 600, fill: seatColour(seat) }),
      part([], "score", seat, label(96, y + 17, `track ${num(p.vp)} VP · ${scoreLine(ctx, seat)} if the game ended now`, { "font-size": 10.5 })),
      label(368, y + 17, `coins ${num(p.coins)} · influence ${num(p.influence)} · forest ${num(p.forest)} · dune ${num(p.dune)}`, { "font-size": 10.5 })];
    let cx = 10;
    for (const [colour, n] of Object.entries(obj(p.cubes))) {
      for (let c = 0; c < num(n); c += 1) { if (cx < 300) children.push(cube(cx, y + 24, colour, seat)); cx += 10; }
    }
    const acc = obj(p.accessories);
    children.push(label(310, y + 32, `accessories: ${Object.entries(acc).filter(([, n]) => num(n)).map(([a, n]) => `${n} ${a}`).join(", ") || "-"}`, { "font-size": 10 }));
    const unlocked = list(p.unlocked).map(str);
    children.push(part(unlocked, null, seat, label(520, y + 32, fit(`abilities: ${unlocked.join(" ") || "-"}`, 40), { "font-size": 10 })));
    let x = 10;
    for (const id of list(p.contracts).map(str)) {
      children.push(part([id], "held-contract", seat, box(x, y + 38, 76, 18, "#f3ead2"), label(x + 3, y + 51, fit(title(id), 13), { "font-size": 9.5 })));
      x += 80;
    }
    const fulfilled = Object.values(obj(p.fulfilled)).reduce<number>((n, v) => n + list(v).length, 0);
    const invested = Object.entries(obj(p.investments)).map(([c, v]) => `${list(v).length} ${c}`).join(", ");
    children.push(label(Math.max(x + 6, 330), y + 51, `fulfilled ${fulfilled} · investments ${invested}`, { "font-size": 10 }));
    parts.push(part([], "player", seat, ...children));
    y += 62;
  });
  const solo = o.solo;
  if (solo && typeof solo === "object" && !Array.isArray(solo)) {
    const revealed = list(solo.automa_revealed).map(str);
    const bag = obj(solo.bag);
    const children: SVGElement[] = [box(4, y + 2, 760, 24, "#eceff3", "#666"),
      label(10, y + 18, `Automa (${str(obj(o.options).difficulty) || "normal"}): deck ${num(solo.automa_deck)}, last card ${revealed[revealed.length - 1] ?? "-"}; bag ${Object.entries(bag).map(([c, n]) => `${n} ${c}`).join(", ")}${num(solo.final_reset) ? "; final reset" : ""}`,
            { "font-size": 10.5 })];
    parts.push(part([], "automa", null, ...children));
    y += 28;
  }
  return svgRoot(768, y + 4, "stephens", ...parts);
}

const DRAWERS: Record<string, (o: Observation, ctx: BoardContext) => SVGSVGElement> = {
  samara, "oh-my-goods": ohMyGoods, stephens,
};

/** The board of `game` drawn from `observation`, or null for a game with no drawing. */
export function drawBoard(game: string, observation: Observation, ctx: BoardContext): SVGSVGElement | null {
  const draw = DRAWERS[game];
  return draw ? draw(observation, ctx) : null;
}

/** The words of a move's text a component's `data-ref` may match. */
export const moveWords = (text: string): string[] => text.split(/[\s:]+/).filter(Boolean);
