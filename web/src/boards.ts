// Drawn boards of the web table: one SVG per game, drawn from the observation the
// server answers for the human's seat (a sealed state's `view`, or the JSON state
// with the human's observer_seat in a game with nothing hidden).  Nothing here reads
// more than that observation, so a board shows what the seat may see.
//
// What a card, tile or disk says (its cost, points, needs, effect) comes from the
// game's catalogue as the engine plays it (GameInfo.catalogue, the box's contents:
// public), never from tables written here: the observation names a component by id,
// the catalogue says what that id is.
//
// Every drawn component that a move can be about carries `data-ref`: the words a
// move's text uses for it (a Samara spot `r3c1`, an Oh My Goods! slot `#2` or card
// id, a Stephens furnace `FN-UL` or profession `miller`).  The page matches moves to
// components by those words: clicking a component offers the moves that name it, and
// a hint lights the components its move names.  Countable pieces carry `data-kind`
// (and `data-seat` when they belong to a seat) so a test can count what is drawn, and
// every piece carries a tooltip (an SVG <title>) with its full text.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Observation = { [key: string]: Json };

/** What a board needs besides the observation. */
export interface BoardContext {
  human: number;
  /** The status scores (the final score if the game ended now, in Stephens). */
  scores: number[];
  /** The seat to move, -1 when none. */
  toMove: number;
  /** The game's catalogue (GameInfo.catalogue, parsed), {} when the server sent none. */
  catalogue: Observation;
}

const NS = "http://www.w3.org/2000/svg";
// Warm and dark: none of them reads as Stephens' blue or green glass or its cubes.
const SEAT_COLOURS = ["#c0392b", "#7b4fa0", "#a8740c", "#5d4037", "#37474f"];
export const seatColour = (seat: number): string => SEAT_COLOURS[seat % SEAT_COLOURS.length];
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

/** A label no wider than `width`: a text that might be wider is squeezed to it (the
 * renderer, not a guess of glyph widths, then keeps it inside its box). */
function fitted(x: number, y: number, text: string, width: number, attrs: Attrs = {}): SVGElement {
  const node = label(x, y, text, attrs);
  const size = Number(attrs["font-size"] ?? 11);
  if (text.length * size * 0.58 > width) {
    node.setAttribute("textLength", String(width));
    node.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return node;
}

/** A component: a group the page can match to moves (`refs`) and count (`kind`), with
 * its full text as a tooltip (`tip`). */
function part(refs: string[], kind: string | null, seat: number | null, tip: string,
              ...children: SVGElement[]): SVGElement {
  const attrs: Attrs = {};
  if (refs.length) {
    attrs["data-ref"] = refs.join(" ");
    attrs.class = "part";
  }
  if (kind) attrs["data-kind"] = kind;
  if (seat !== null) attrs["data-seat"] = seat;
  return el("g", attrs, ...(tip ? [el("title", {}, tip)] : []), ...children);
}

/** A component that shows a catalogue entry: its id (and an assistant's side) as data,
 * for a test to check the tooltip against the catalogue. */
function carded(node: SVGElement, id: string, face?: number): SVGElement {
  node.setAttribute("data-card", id);
  if (face !== undefined) node.setAttribute("data-face", String(face));
  return node;
}

function box(x: number, y: number, w: number, h: number, fill: string, stroke = "#8a8f96"): SVGElement {
  return el("rect", { x, y, width: w, height: h, rx: 4, fill, stroke, class: "face" });
}

/** An id as words: `brick-manufacture` → `Brick Manufacture`. */
const title = (id: string): string =>
  id.split("-").map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w)).join(" ");

/** Text cut to fit about `chars` characters. */
const fit = (text: string, chars: number): string => (text.length > chars ? text.slice(0, chars - 1) + "…" : text);

const num = (value: Json | undefined): number => (typeof value === "number" ? value : 0);
const str = (value: Json | undefined): string => (typeof value === "string" ? value : "");
const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);
const obj = (value: Json | undefined): Observation =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};

/** The catalogue entries of `section` (a list of objects with ids), by id. */
function byId(catalogue: Observation, ...path: string[]): Map<string, Observation> {
  let node: Json | undefined = catalogue;
  for (const key of path) node = obj(node)[key];
  return new Map(list(node).map((entry) => [str(obj(entry).id), obj(entry)]));
}

/** Counts as words: {stone: 3, clay: 1} → `3 stone + 1 clay`. */
const counts = (value: Json | undefined, noun = ""): string =>
  Object.entries(obj(value)).filter(([, n]) => num(n)).map(([what, n]) => `${n} ${what}${noun}`).join(" + ");

function svgRoot(width: number, height: number, game: string, ...children: SVGElement[]): SVGSVGElement {
  const root = el("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img",
                           "aria-label": `${game} board`, "data-game": game,
                           "font-family": "system-ui, sans-serif" }, ...children);
  return root as SVGSVGElement;
}

function pawn(x: number, y: number, seat: number, kind: string, glyph: string, tip: string): SVGElement {
  return part([], kind, seat, tip,
    el("circle", { cx: x, cy: y, r: 7, fill: seatColour(seat), stroke: "#222", "stroke-width": 0.8, class: "face" }),
    label(x, y + 3.5, glyph, { "text-anchor": "middle", "font-size": 9, fill: "#fff" }));
}

/** A coin with a number: what something costs. */
function coin(x: number, y: number, cost: number): SVGElement {
  return el("g", {}, el("circle", { cx: x, cy: y, r: 6.5, fill: "#f2c94c", stroke: "#8a6d1a", "stroke-width": 0.7 }),
    label(x, y + 3.2, String(cost), { "text-anchor": "middle", "font-size": 8.5, "font-weight": 700 }));
}

/** Points: a number on a laurel-green shield. */
function points(x: number, y: number, vp: number, unit = "VP"): SVGElement {
  const text = `${vp} ${unit}`;
  const w = 5 * text.length + 4;
  return el("g", {}, el("rect", { x: x - w, y: y - 8.5, width: w, height: 11, rx: 2, fill: "#4e342e" }),
    label(x - w / 2, y, text, { "text-anchor": "middle", "font-size": 8.5, fill: "#fff" }));
}

function scoreLine(ctx: BoardContext, seat: number): string {
  const score = ctx.scores[seat];
  return score === undefined ? "" : `score ${score}`;
}

/** One line of a board's key: a swatch (a colour, or a glyph on grey) and what it means. */
export interface KeyItem { colour?: string; glyph?: string; text: string }

// -- Samara ------------------------------------------------------------------------------
const SAMARA_TOOLS = ["saw", "compass", "square", "glass-a", "glass-b"];
const TOOL_GLYPH: Record<string, string> = { saw: "S", compass: "C", square: "Q", "glass-a": "A", "glass-b": "B" };
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const monthName = (month: number): string => MONTHS[((month % 12) + 12) % 12] ?? String(month);

/** What a Samara tile costs and scores, from the catalogue. */
function tileText(tile: Observation): string {
  const power = str(tile.power);
  return `${str(tile.name)}: cost ${num(tile.saws)} saws, ${num(tile.trowels)} trowels, ${num(tile.glass)} glass; ` +
    `points ${num(tile.prestige)} prestige${power ? `; power: ${power.replace(/_/g, " ")}` : ""}`;
}

function samara(o: Observation, ctx: BoardContext): SVGSVGElement {
  const parts: SVGElement[] = [];
  const tiles = byId(ctx.catalogue, "tiles");
  const cell = 84;
  const rows = 4;
  const top = 22;
  const pitch = 62;
  parts.push(label(4, 14, `Samara, ${monthName(num(o.month))}: the board (rows by strength, columns by months a worker takes)`,
                   { "font-weight": 600 }));
  for (let c = 1; c <= 9; c += 1) parts.push(label(10 + (c - 1) * cell + cell / 2, top + rows * pitch + 10,
                                                    `col ${c}: ${c} month${c > 1 ? "s" : ""}`,
                                                    { "text-anchor": "middle", fill: "#5b6570", "font-size": 9.5 }));
  for (const spot of list(o.spots)) {
    const s = obj(spot);
    const name = str(s.spot);
    const m = /^r(\d+)c(\d+)$/.exec(name);
    if (!m) continue;
    const row = Number(m[1]);
    const col = Number(m[2]);
    const x = 10 + (col - 1) * cell;
    const y = top + (rows - row) * pitch;
    const id = s.tile === null ? "" : str(s.tile);
    const tile = tiles.get(id) ?? {};
    const children: SVGElement[] = [box(x, y, cell - 6, 58, id ? "#f1e3c6" : "#e8e8e3")];
    children.push(label(x + 4, y + 11, name, { "font-size": 8.5, fill: "#5b6570" }));
    if (id) {
      const needs = [["S", tile.saws], ["T", tile.trowels], ["G", tile.glass]].filter(([, n]) => num(n as Json))
        .map(([g, n]) => `${num(n as Json)}${g}`).join(" ");
      children.push(carded(part([], "tile", null, tileText({ ...tile, name: str(tile.name) || title(id) }),
        el("circle", { cx: x + cell - 17, cy: y + 10, r: 7.5, fill: "#c9a227", stroke: "#7a5f10", "stroke-width": 0.6 }),
        label(x + cell - 17, y + 13.5, String(num(tile.prestige)), { "text-anchor": "middle", "font-size": 9.5, "font-weight": 700 }),
        fitted(x + 4, y + 25, fit(str(tile.name) || title(id), 15), cell - 14, { "font-size": 10 }),
        fitted(x + 4, y + 38, `${needs || "no tools"}${str(tile.power) ? " ✦" : ""}`, cell - 14, { "font-size": 9, fill: "#4a3b22" })), id));
    }
    let tx = x + 8;
    const tools = obj(s.tools);
    for (const tool of SAMARA_TOOLS) {
      for (let k = 0; k < num(tools[tool]); k += 1) {
        children.push(part([], "tool", null, `a ${tool} tool on ${name}: the worker who takes this spot may take it`,
          el("rect", { x: tx - 6, y: y + 42, width: 13, height: 13, rx: 2, fill: "#6b5a3a" }),
          label(tx, y + 52, TOOL_GLYPH[tool] ?? "?", { "text-anchor": "middle", "font-size": 9, fill: "#fff" })));
        tx += 16;
      }
    }
    const spotTip = `spot ${name}: row ${row} takes workers of strength ${row} or more; column ${col} sends them ${col} month(s) ahead` +
      (id ? `; ${tileText({ ...tile, name: str(tile.name) || title(id) })}` : "; its tile is taken");
    parts.push(part([name], "spot", null, spotTip, ...children));
  }
  // The time track: each month's workers, nearest first; one piece per worker, with its
  // strength (a man or woman of strength 2 is one piece).
  const trackTop = top + rows * pitch + 18;
  const now = num(o.month);
  parts.push(label(4, trackTop + 12, "Time track: workers by the month they return (yours this month numbered as moves name them: 1+2 = workers 1 and 2)",
                   { "font-weight": 600, "font-size": 10 }));
  const track = list(o.track);
  const boxW = Math.min(114, 756 / Math.max(track.length, 1) - 6);
  track.forEach((entry, k) => {
    const e = obj(entry);
    const x = 10 + k * (boxW + 6);
    const month = num(e.month);
    // Month 0 is January, as the engine names months (its text board too); a track skips
    // empty months, so the distance is the months', not the position in the list.
    const name = monthName(month);
    const children: SVGElement[] = [box(x, trackTop + 18, boxW, 46, month === now ? "#fbe9d9" : "#f4f1ea"),
      label(x + 4, trackTop + 30, `${name}${month === now ? " (now)" : ` (+${month - now})`}`,
            { "font-size": 10, fill: "#5b6570" })];
    const workers = list(e.workers).map(obj);
    const step = Math.min(24, (boxW - 8) / Math.max(workers.length, 1));
    let mine = 0;
    workers.forEach((w, n) => {
      const owner = num(w.owner);
      const strength = num(w.men) + num(w.women);
      const gender = str(w.gender) === "woman" ? "W" : "M";
      const px = x + 4 + n * step;
      const numbered = month === now && owner === ctx.human;
      if (numbered) mine += 1;
      const pieces: SVGElement[] = [
        el("rect", { x: px, y: trackTop + 35, width: 21, height: 14, rx: 7, fill: seatColour(owner), stroke: "#222", "stroke-width": 0.8, class: "face" }),
        label(px + 10.5, trackTop + 45.5, `${gender}${strength}`, { "text-anchor": "middle", "font-size": 9, fill: "#fff", "font-weight": 600 })];
      if (numbered) pieces.push(label(px + 10.5, trackTop + 60, String(mine), { "text-anchor": "middle", "font-size": 9, "font-weight": 700 }));
      const who = `${seatName(owner)}'s ${gender === "W" ? "woman" : "man"} of strength ${strength}` +
        (strength > 1 ? ` (${num(w.men)} man, ${num(w.women)} woman together)` : "");
      children.push(part([], "worker", owner, `${who}, back in ${name}${numbered ? `; your worker ${mine} in moves` : ""}`, ...pieces));
    });
    parts.push(part([], null, null, "", ...children));
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
        children.push(part(seat === ctx.human ? [tool] : [], "tool", seat, `${seatName(seat)}'s ${tool} tool`,
          el("rect", { x, y: y + 8, width: 14, height: 14, rx: 2, fill: "#6b5a3a" }),
          label(x + 7, y + 19, TOOL_GLYPH[tool] ?? "?", { "text-anchor": "middle", "font-size": 9, fill: "#fff" })));
        x += 17;
      }
    }
    x = Math.max(x + 10, 300);
    const pawns = obj(f.pawns);
    for (let k = 0; k < num(pawns.men) + num(pawns.women); k += 1) {
      const man = k < num(pawns.men);
      const pawnPart = pawn(x, y + 15, seat, "pawn", man ? "M" : "W",
                            `${seatName(seat)}'s ${man ? "man" : "woman"} (strength 1) on the Foreman board, to recruit`);
      if (seat === ctx.human) {
        pawnPart.setAttribute("data-ref", man ? "man" : "woman");
        pawnPart.setAttribute("class", "part");
      }
      children.push(pawnPart);
      x += 17;
    }
    x = Math.max(x + 10, 380);
    const buildings = list(f.buildings).map(str);
    const built = buildings.map((b) => tiles.get(b) ?? { name: title(b) });
    const prestige = built.reduce((n, t) => n + num(t.prestige), 0);
    children.push(part([], null, null, built.length ? built.map(tileText).join("\n") : "no buildings yet",
      label(x, y + 19, fit(`built (${prestige} prestige): ${built.map((t) => str(t.name)).join(", ") || "-"}`, 62), { "font-size": 11 })));
    parts.push(part([], "foreman", seat, `${seatName(seat)}'s Foreman board`, ...children));
  });
  const height = formTop + list(o.foremen).length * 34 + 6;
  return svgRoot(768, height, "samara", ...parts);
}

const SAMARA_KEY: KeyItem[] = [
  { glyph: "7", colour: "#c9a227", text: "a tile's prestige (its points)" },
  { glyph: "2S 1T", text: "the saws (S), trowels (T) and glass (G) a tile needs; ✦ a power building" },
  { glyph: "S", colour: "#6b5a3a", text: "a tool (S saw, C compass, Q square, A/B glass)" },
  { glyph: "M2", text: "a worker: man or woman, and its strength" },
  { glyph: "1", text: "your worker's number this month, as moves name it" },
];

// -- Oh My Goods! ------------------------------------------------------------------------
const CARD_W = 70;
const CARD_H = 48;
const HAND_ROW = 10;
const MARKET_W = 46;
const GOOD_COLOURS: Record<string, string> = { wood: "#8d6e3f", clay: "#c0643c", grain: "#e3c04f",
                                               wool: "#f1efe6", stone: "#8a8f96", any: "#cfd8dc" };
const BUILDING_COLOURS: Record<string, string> = { blue: "#d6e4f0", red: "#f3d6d0", white: "#f7f7f2",
                                                   yellow: "#f7edc4", green: "#dcebd6", gray: "#e4e4e4" };

/** A name in at most two lines of about `chars` characters each. */
function twoLines(name: string, chars: number): [string, string] {
  const words = name.split(" ");
  let first = words.shift() ?? "";
  while (words.length && (first + " " + words[0]).length <= chars) first += " " + words.shift();
  return [fit(first, chars), fit(words.join(" "), chars)];
}

/** A card's facts from the catalogue: its deck entry and its building. */
interface OmgFacts { card: Observation; building: Observation }

function omgFacts(catalogue: Observation): (id: string) => OmgFacts {
  const deck = byId(catalogue, "deck");
  const charburners = byId(catalogue, "charburners");
  const buildings = byId(catalogue, "buildings");
  return (id) => {
    const card = deck.get(id) ?? charburners.get(id) ?? {};
    const building = buildings.get(str(card.building) || (charburners.has(id) ? "charburner" : "")) ?? {};
    return { card, building };
  };
}

/** A card's full text: the building it builds (cost, points, production) and the good
 * its other side shows. */
function omgCardText(id: string, { card, building }: OmgFacts): string {
  const name = str(building.name) || title(id);
  const inputs = counts(card.inputs);
  const good = str(building.good);
  const lines = [`${name} (${id}): cost ${num(card.cost)} coins; points ${num(card.vp)} VP`];
  if (good) {
    lines.push(`produces 1 ${good} (worth ${num(building.value)}) from ${inputs || "nothing"}`);
    const chain = list(building.chain).map(str);
    if (chain.length) lines.push(`chain: ${chain.join(" + ")} → 1 more ${good}`);
  } else if (str(card.market)) {
    lines.push(`market office: ${str(card.market) === "card" ? "1 more card" : `1 ${str(card.market)}`} in each market`);
  }
  if (str(card.resource)) lines.push(`its other side shows ${str(card.resource)}${card.half_sun ? ", with a half sun" : ""}`);
  return lines.join("\n");
}

function goodSquare(x: number, y: number, good: string, size = 8): SVGElement {
  return el("rect", { x, y, width: size, height: size, rx: 1.5, fill: GOOD_COLOURS[good] ?? "#bbb", stroke: "#333", "stroke-width": 0.5 });
}

function halfSun(x: number, y: number): SVGElement {
  return el("path", { d: `M ${x - 6} ${y} A 6 6 0 0 1 ${x + 6} ${y} Z`, fill: "#f39c12", stroke: "#a0600a", "stroke-width": 0.6 });
}

/** A market card: the good its resource side shows, and its half sun. */
function omgMarketCard(x: number, y: number, id: string, facts: OmgFacts): SVGElement {
  const good = str(facts.card.resource);
  const children: SVGElement[] = [box(x, y, MARKET_W, 36, GOOD_COLOURS[good] ?? "#fdf6e3"),
    label(x + MARKET_W / 2, y + 31, good, { "text-anchor": "middle", "font-size": 10, fill: good === "wool" || good === "grain" ? "#222" : "#fff", "font-weight": 600 })];
  if (facts.card.half_sun) children.push(halfSun(x + MARKET_W / 2, y + 15));
  return carded(part([id], "market", null, omgCardText(id, facts), ...children), id);
}

/** A card face in a hand: building name, cost (coin), points, production, and the good
 * its other side shows (the left strip, with its half sun). */
function omgCard(x: number, y: number, id: string, facts: OmgFacts, refs: string[], kind: string, seat: number | null): SVGElement {
  const { card, building } = facts;
  const resource = str(card.resource);
  const [first, second] = twoLines(str(building.name).replace(/ \(.*\)$/, "") || title(id), 11);
  const children: SVGElement[] = [box(x, y, CARD_W, CARD_H, BUILDING_COLOURS[str(building.colour)] ?? "#fdf6e3"),
    el("rect", { x: x + 1, y: y + 1, width: 7, height: CARD_H - 2, rx: 2, fill: GOOD_COLOURS[resource] ?? "#ccc" }),
    label(x + 11, y + 10, first, { "font-size": 8.5 }),
    label(x + 11, y + 19, second, { "font-size": 8.5 })];
  if (card.half_sun) children.push(el("circle", { cx: x + 4.5, cy: y + 6, r: 2.8, fill: "#f39c12", stroke: "#a0600a", "stroke-width": 0.4 }));
  let ix = x + 11;
  for (const [good, n] of Object.entries(obj(card.inputs))) {
    children.push(label(ix, y + 31, String(n), { "font-size": 8 }), goodSquare(ix + 5, y + 24, good, 7));
    ix += 15;
  }
  const out = Math.min(ix, x + 44);
  if (str(building.good)) children.push(fitted(out, y + 31, `→${str(building.good)}`, x + CARD_W - 3 - out, { "font-size": 7.5 }));
  else if (str(card.market)) children.push(fitted(out, y + 31, `+${str(card.market)}`, x + CARD_W - 3 - out, { "font-size": 7.5 }));
  children.push(coin(x + 17, y + 40, num(card.cost)), points(x + CARD_W - 3, y + 43, num(card.vp)));
  return carded(part(refs, kind, seat, omgCardText(id, facts), ...children), id);
}

function assistantText(id: string, face: number, catalogue: Observation): string {
  const faces = list(byId(catalogue, "assistants").get(id)?.faces).map(obj);
  const f = faces[face] ?? {};
  return `${id} (side ${face + 1}): cost ${num(f.cost)} coins; points ${num(f.vp)} VP; needs buildings ${counts(f.needs) || "-"}`;
}

function ohMyGoods(o: Observation, ctx: BoardContext): SVGSVGElement {
  const parts: SVGElement[] = [];
  const facts = omgFacts(ctx.catalogue);
  const assistants = byId(ctx.catalogue, "assistants");
  parts.push(label(4, 14, `Oh My Goods! round ${num(o.round)}, phase ${str(o.phase)}; deck ${num(o.deck)}, discard ${list(o.discard).length}`,
                   { "font-weight": 600 }));
  parts.push(label(4, 38, "market:", { fill: "#5b6570" }));
  // A long market (up to a dozen cards with more players) closes up to fit the row.
  const market = list(o.display);
  const marketStep = Math.min(MARKET_W + 4, (764 - 52 - MARKET_W) / Math.max(market.length - 1, 1));
  market.forEach((card, k) => {
    parts.push(omgMarketCard(52 + k * marketStep, 20, str(card), facts(str(card))));
  });
  parts.push(label(4, 75, "assistants for hire:", { fill: "#5b6570", "font-size": 10 }));
  const pool = list(o.pool);
  const poolStep = Math.min(90, 644 / Math.max(pool.length, 1));
  pool.forEach((entry, k) => {
    const a = obj(entry);
    const id = str(a.assistant);
    const face = obj(list(assistants.get(id)?.faces)[num(a.face)]);
    const x = 120 + k * poolStep;
    parts.push(carded(part([id], "assistant", null, assistantText(id, num(a.face), ctx.catalogue), box(x, 61, poolStep - 4, 20, "#e6eef6"),
      label(x + 3, 75, id.replace("assistant-", "A"), { "font-size": 9.5, "font-weight": 600 }),
      coin(x + 28, 71, num(face.cost)), points(x + poolStep - 7, 75, num(face.vp))), id, num(a.face)));
  });
  let y = 86;
  list(o.players).forEach((player, seat) => {
    const p = obj(player);
    const mine = seat === ctx.human;
    const buildings = [str(p.charburner), ...list(p.buildings).map(str)];
    const goods = list(p.goods);
    const hand = p.hand;
    const handCount = Array.isArray(hand) ? hand.length : num(hand);
    const handRows = mine ? Math.ceil(handCount / HAND_ROW) : 0;
    const rowH = 62 + handRows * (CARD_H + 4) + (handRows ? 2 : 0);
    const step = Math.min(CARD_W + 6, 636 / buildings.length);
    const children: SVGElement[] = [box(4, y, 760, rowH, mine ? "#fff6e8" : "#fafafa", seatColour(seat)),
      label(10, y + 14, `${seatName(seat)}${mine ? " (you)" : ""}${num(o.active) === seat ? ", active" : ""}${ctx.toMove === seat ? " ▶" : ""}`,
            { "font-weight": 600, fill: seatColour(seat) }),
      label(10, y + 28, scoreLine(ctx, seat), { "font-size": 10 })];
    const work = obj(p.work);
    const plan = p.plan === null ? "" : str(p.plan);
    if (plan) {
      const planText = plan === "hidden" ? "a building planned (hidden)" : `plans ${str(facts(plan).building.name) || title(plan)}`;
      children.push(part([], null, null, plan === "hidden" ? "a secret plan: the card is face down" : omgCardText(plan, facts(plan)),
        label(10, y + 42, fit(planText, 20), { "font-size": 9 })));
    }
    buildings.forEach((id, slot) => {
      const x = 120 + slot * step;
      const w = step - 4;
      const refs = mine ? [`#${slot}`, id] : [];
      const f = facts(id);
      const perRow = Math.max(1, Math.floor((w - 6) / 7.5));
      const name = str(f.building.name).replace(/ \(.*\)$/, "") || title(id).replace(/ \d+$/, "");
      const [first, second] = twoLines(`#${slot} ${name}`, Math.floor((w - 4) / 5.2));
      const onIt: SVGElement[] = [box(x, y + 4, w, 54, BUILDING_COLOURS[str(f.building.colour)] ?? "#f3ead2"),
        label(x + 3, y + 13, first, { "font-size": 8.5 }), label(x + 3, y + 22, second, { "font-size": 8.5 })];
      if (str(f.building.good)) onIt.push(label(x + 3, y + 31, fit(`→${str(f.building.good)} ${num(f.building.value)}`, Math.floor((w - 4) / 4.6)), { "font-size": 8, fill: "#4a3b22" }));
      list(goods[slot]).forEach((good, k) => {
        const gx = x + 6 + (k % perRow) * 7.5;
        const gy = y + 34 + Math.floor(k / perRow) * 7;
        onIt.push(part([], "good", seat, good === null ? "a good, face down" : `a good (shown: ${str(good)})`,
          el("rect", { x: gx - 3, y: gy, width: 6, height: 6,
          fill: good === null ? "#7a5c3a" : "#d9a441", stroke: "#333", "stroke-width": 0.4 })));
      });
      if (work.slot !== undefined && num(work.slot) === slot) {
        const mode = str(work.mode);
        onIt.push(pawn(x + w - 9, y + 48, seat, "worker", mode === "sloppy" ? "s" : "o", `${seatName(seat)}'s worker, working ${mode}`));
      }
      for (const entry of list(p.assistants)) {
        const a = obj(entry);
        if (num(a.slot) === slot) onIt.push(carded(part([str(a.assistant)], "assistant", seat, assistantText(str(a.assistant), num(a.face), ctx.catalogue),
          el("rect", { x: x + 4, y: y + 45, width: 22, height: 11, rx: 2, fill: "#cfe0f1", stroke: "#333", "stroke-width": 0.4 }),
          label(x + 6, y + 54, str(a.assistant).replace("assistant-", "A"), { "font-size": 8 })), str(a.assistant), num(a.face)));
      }
      children.push(carded(part(refs, "building", seat, `building slot #${slot}: ${omgCardText(id, f)}`, ...onIt), id));
    });
    // Another seat's hand as backs, whatever the observation holds: its cards are never
    // drawn (the view of a sealed state counts them anyway).
    if (Array.isArray(hand) && mine) {
      hand.forEach((card, k) => {
        const x = 10 + (k % HAND_ROW) * (CARD_W + 5);
        children.push(omgCard(x, y + 62 + Math.floor(k / HAND_ROW) * (CARD_H + 4), str(card), facts(str(card)), [str(card)], "card", seat));
      });
    } else {
      children.push(label(560, y + 14, `hand: ${handCount} cards`, { "font-size": 10, fill: "#5b6570" }));
      for (let k = 0; k < handCount; k += 1) {
        children.push(part([], "back", seat, `a card in ${seatName(seat)}'s hand`, el("rect", { x: 560 + (k % 20) * 9 + Math.floor(k / 20) * 4, y: y + 22, width: 16, height: 24, rx: 2,
          fill: "#5b4a8a", stroke: "#fff", "stroke-width": 0.8 })));
      }
    }
    parts.push(part([], "player", seat, `${seatName(seat)}'s buildings${mine ? " and hand" : ""}`, ...children));
    y += rowH + 4;
  });
  return svgRoot(768, y, "oh-my-goods", ...parts);
}

const OMG_KEY: KeyItem[] = [
  ...["wood", "clay", "grain", "wool", "stone"].map((good) => ({ colour: GOOD_COLOURS[good], text: good })),
  { glyph: "◓", colour: "#f39c12", text: "a half sun (the second of a row ends the market)" },
  { glyph: "2", colour: "#f2c94c", text: "cost in coins" },
  { glyph: "2 VP", colour: "#4e342e", text: "points" },
  { glyph: "3▪→", text: "the goods a building needs, and what it produces" },
  { colour: "#7a5c3a", text: "a good face down (#d9a441 gold: shown)" },
];

// -- Stephens ----------------------------------------------------------------------------
const CUBE_COLOURS: Record<string, string> = { green: "#3c8d40", blue: "#2a6fb0", white: "#f4f4f4",
                                              orange: "#e67e22", pink: "#e07aa8", black: "#222" };

function cube(x: number, y: number, colour: string, seat: number | null, kind = "cube", tip = `a ${colour} cube`): SVGElement {
  return part([colour], kind, seat, tip, el("rect", { x, y, width: 9, height: 9, fill: CUBE_COLOURS[colour] ?? "#bbb",
                                                      stroke: "#333", "stroke-width": 0.5 }));
}

/** Cubes (and accessories) a card asks for, drawn small from x: the end x. */
function needsRow(children: SVGElement[], x: number, y: number, cubes: Json | undefined, accessories: Json | undefined): number {
  for (const [colour, n] of Object.entries(obj(cubes))) {
    for (let c = 0; c < num(n); c += 1) {
      children.push(el("rect", { x, y, width: 8, height: 8, fill: CUBE_COLOURS[colour] ?? "#ddd", stroke: "#333", "stroke-width": 0.5 }));
      x += 9;
    }
  }
  for (const [accessory, n] of Object.entries(obj(accessories))) {
    if (!num(n)) continue;
    children.push(label(x + 1, y + 8, `+${num(n)}${accessory === "any" ? "acc" : accessory.slice(0, 4)}`, { "font-size": 8 }));
    x += 26;
  }
  return x;
}

/** Board corners in reading order: upper before lower, left before right. */
const byCorner = (a: string, b: string): number => {
  const key = (name: string): number => (name[name.length - 2] === "U" ? 0 : 2) + (name[name.length - 1] === "L" ? 0 : 1);
  return key(a) - key(b);
};

const ownerSeat = (owner: Json): number => (owner === "automa" ? -1 : num(owner));

function worker(x: number, y: number, owner: Json, role: string): SVGElement {
  const seat = ownerSeat(owner);
  const fill = seat < 0 ? "#666" : seatColour(seat);
  return part([], "worker", seat < 0 ? null : seat, `${seat < 0 ? "the Automa" : seatName(seat)}'s ${role}`,
    el(role === "master" ? "rect" : "circle", role === "master"
      ? { x: x - 6, y: y - 6, width: 12, height: 12, fill, stroke: "#222", "stroke-width": 0.8 }
      : { cx: x, cy: y, r: 5, fill, stroke: "#222", "stroke-width": 0.8 }),
    label(x, y + 3, seat < 0 ? "A" : "", { "text-anchor": "middle", "font-size": 8, fill: "#fff" }));
}

/** A benefit atom as words: {coin: 2} → `2 coins`, {cube: "any", n: 1} → `1 any cube`. */
function atomText(atom: Observation): string {
  for (const noun of ["cube", "accessory"]) {
    if (noun in atom) return `${num(atom.n)} ${str(atom[noun])} ${noun}`;
  }
  return Object.entries(atom).map(([what, n]) => `${n} ${what === "coin" ? "coin" : what === "vp" ? "VP" : what}`).join(" + ");
}

function optionText(option: Observation): string {
  const gain = list(option.gain).map((a) => atomText(obj(a))).join(" + ");
  const pay = list(option.pay).map((a) => atomText(obj(a))).join(" + ");
  return pay ? `pay ${pay}: ${gain}` : gain;
}

/** What a profession gives, each way to take it (a choice's options split by " | "). */
function benefitText(profession: Observation): string {
  const benefit = obj(profession.benefit);
  return "choice" in benefit ? list(benefit.choice).map((o) => optionText(obj(o))).join(" | ") : optionText(benefit);
}

function professionText(id: string, profession: Observation, masterVp?: number): string {
  const spaces = list(profession.spaces).map(obj);
  const cost = spaces.map((s, k) => `${k ? "apprentice" : "master"} ${counts(s) ? counts(s).replace(/coin$/, "coins") : "free"}`).join(", ");
  return `${str(profession.name) || title(id)} (${str(profession.deck)} deck): cost to place a worker: ${cost}; ` +
    `points ${masterVp === undefined ? "0 printed (a master scores the place's VP at the end)" : `a master here scores ${masterVp} VP at the end`}; ` +
    `effect: ${benefitText(profession)}`;
}

function contractText(id: string, contract: Observation, types: Map<string, Observation>, cost: number | null): string {
  const needs = [counts(contract.cubes, " cube"), counts(contract.accessories, " accessory").replace(/\bany accessory/, "any accessory")]
    .filter(Boolean).join(" + ");
  const cubes = Object.values(obj(contract.cubes)).reduce<number>((n, v) => n + num(v), 0);
  return `${id}, ${str(types.get(str(contract.type))?.name) || str(contract.type)} contract: cost ${cost === null ? "paid when taken" : `${cost} coins (this display space)`}; ` +
    `points ${cubes} per contract in its column once fulfilled (its ${cubes} cubes × the column's cards); needs ${needs || "nothing"}`;
}

function investmentText(id: string, investment: Observation, cost: number | null): string {
  const costs = [num(investment.forest) ? `${num(investment.forest)} forest` : "", num(investment.dune) ? `${num(investment.dune)} dune` : ""].filter(Boolean);
  return `${title(id)} investment: cost ${cost === null ? "paid when taken" : `${cost} coins (this display space)`}; points ${num(investment.vp)} VP when its column is activated` +
    `${costs.length ? ` (activating costs ${costs.join(" + ")})` : ""}; ${counts(investment.cubes) ? `holds ${counts(investment.cubes, " cube")}` : "holds no cubes (any row)"}`;
}

/** A player-board ability as words (its catalogue effect, VP and counts). */
function abilityText(disk: Observation): string {
  const bits = [str(disk.effect).replace(/-/g, " ")];
  if (num(disk.vp)) bits.push(`${num(disk.vp)} VP${num(disk.per) ? ` per ${num(disk.per)}` : ""}`);
  else if (num(disk.per)) bits.push(`per ${num(disk.per)}`);
  if (num(disk.n)) bits.push(`(${num(disk.n)})`);
  const requires = list(disk.requires).map(str);
  return bits.join(" ") + (requires.length ? `; needs ${requires.map(diskLabel).join(", ")} first` : "");
}

/** A disk's name on the drawn board: "P1"/"P2" read as players, so placement disks are
 * "Pl1"/"Pl2" (the move text keeps the engine's id). */
const diskLabel = (id: string): string => id.replace(/^P(\d)$/, "Pl$1");

function stephens(o: Observation, ctx: BoardContext): SVGSVGElement {
  const parts: SVGElement[] = [];
  const cat = ctx.catalogue;
  const board = obj(cat.board);
  const professions = byId(cat, "professions");
  const contractsCat = byId(cat, "contracts");
  const investmentsCat = byId(cat, "investments");
  const types = byId(cat, "contract_types");
  const abilities = list(obj(cat.player_board).abilities).map(obj);
  const furnaceCat = byId(cat, "board", "furnaces");
  const masterVp = byId(cat, "board", "places");
  const decisions = list(o.decisions);
  const top = obj(decisions[decisions.length - 1]);
  const waiting = decisions.length ? `${seatName(num(top.seat))} decides: ${str(top.kind)}` : "the game is over";
  parts.push(label(4, 14, `Stephens, round ${num(o.round)}; ${waiting}`, { "font-weight": 600 }));
  // The army track: 0..army's start, the French army's marker.
  const army = num(o.army);
  const armyStart = num(obj(obj(board.army).start).value) || 60;
  parts.push(part([], "army", null, `the French army on ${army} (of ${armyStart})`, label(470, 14, "French army", { "font-size": 10, fill: "#5b6570" }),
    el("rect", { x: 540, y: 6, width: 220, height: 10, fill: "#eee", stroke: "#999" }),
    el("rect", { x: 540, y: 6, width: Math.min(220, (220 * army) / armyStart), height: 10, fill: "#3b4f7a" }),
    label(764, 15, String(army), { "font-size": 10, "text-anchor": "end", fill: "#fff" })));
  // The factory area: four furnaces and four small factories, each a place for workers.
  const places = obj(o.places);
  const furnaces = obj(o.furnaces);
  const factories = obj(o.small_factories);
  // As on the board: furnaces above, small factories below, each upper left to lower
  // right (a Struct keeps no key order).
  const names = [...Object.keys(furnaces).sort(byCorner), ...Object.keys(factories).sort(byCorner)];
  const placeH = 34 + Math.max(2, ...names.map((n) => list(places[n]).length)) * 16;
  names.forEach((name, k) => {
    const x = 4 + (k % 4) * 191;
    const y = 22 + Math.floor(k / 4) * (placeH + 4);
    const isFurnace = name.startsWith("FN");
    const glass = str(furnaceCat.get(name)?.colour);
    const vp = masterVp.get(name)?.master_vp;
    const children: SVGElement[] = [box(x, y, 186, placeH, isFurnace ? "#f6e0d0" : "#e5ecf3"),
      label(x + 5, y + 12, `${isFurnace ? `Furnace ${name}, ${glass} glass` : `Small factory ${name}`}`,
            { "font-size": 10, "font-weight": 600 })];
    if (isFurnace) {
      for (let g = 0; g < num(furnaces[name]); g += 1) {
        children.push(part([], "glass", null, `a piece of ${glass} glass in ${name}`, el("circle", { cx: x + 12 + g * 13, cy: y + 23, r: 5,
          fill: CUBE_COLOURS[glass] ?? "#9fd8e8", stroke: "#333", "stroke-width": 0.6 })));
      }
    } else {
      let cx = x + 6;
      for (const [colour, n] of Object.entries(obj(factories[name]))) {
        for (let c = 0; c < num(n); c += 1) { children.push(cube(cx, y + 18, colour, null, "product", `a ${colour} product in ${name}`)); cx += 11; }
      }
    }
    list(places[name]).forEach((entry, row) => {
      const e = obj(entry);
      const card = str(e.card);
      const ry = y + 32 + row * 16;
      const prof = professions.get(card) ?? {};
      const rowParts: SVGElement[] = [el("rect", { x: x + 4, y: ry, width: 178, height: 14, rx: 2, fill: "#fff", stroke: "#c9c9c9", class: "face" }),
        label(x + 8, ry + 10.5, fit(`${str(prof.name) || title(card)}: ${benefitText(prof)}`, 27), { "font-size": 8.5 }),
        worker(x + 158, ry + 7, e.master, "master")];
      if (e.apprentice !== null && e.apprentice !== undefined) rowParts.push(worker(x + 174, ry + 7, e.apprentice, "apprentice"));
      children.push(carded(part([card], "profession", null, professionText(card, prof, vp === undefined ? undefined : num(vp)), ...rowParts), card));
    });
    parts.push(part([name], isFurnace ? "furnace" : "factory", null,
                    `${isFurnace ? `furnace ${name}: ${glass} glass` : `small factory ${name}`}; a master here scores ${num(vp)} VP at the end`, ...children));
  });
  // Displays: professions, contracts, investments; each card with its cost and effect.
  let y = 22 + 2 * (placeH + 4) + 2;
  const cardW = 110;
  const cardH = 26;
  const displayRow = (rowTitle: string, note: string, draw: (x: number, k: number) => SVGElement | null, n: number): void => {
    parts.push(label(4, y + 16, rowTitle, { "font-size": 10, fill: "#5b6570" }));
    for (let k = 0; k < n; k += 1) {
      const x = 80 + k * (cardW + 3);
      parts.push(draw(x, k) ?? part([], null, null, "an empty space", box(x, y, cardW, cardH, "#eee")));
    }
    if (note) parts.push(label(764, y + 16, note, { "font-size": 9, "text-anchor": "end", fill: "#5b6570" }));
    y += cardH + 3;
  };
  const profs = obj(o.professions);
  const professionCard = (x: number, id: string, refs: string[], kind: string, heading: string, fill: string): SVGElement => {
    const prof = professions.get(id) ?? {};
    const spaces = list(prof.spaces).map(obj);
    const room = cardW - 10 - spaces.length * 15;
    const children: SVGElement[] = [box(x, y, cardW, cardH, fill),
      fitted(x + 4, y + 11, fit(heading, Math.floor(room / 5)), room, { "font-size": 9.5, "font-weight": 600 }),
      fitted(x + 4, y + 22, fit(benefitText(prof), 24), cardW - 8, { "font-size": 8.5 })];
    spaces.forEach((space, s) => {
      const c = num(space.coin);
      children.push(c ? coin(x + cardW - 8 - (spaces.length - 1 - s) * 15, y + 8, c)
                      : el("circle", { cx: x + cardW - 8 - (spaces.length - 1 - s) * 15, cy: y + 8, r: 6, fill: "#fff", stroke: "#999", "stroke-width": 0.6 }));
    });
    return carded(part(refs, kind, null, professionText(id, prof), ...children), id);
  };
  const display = list(profs.display);
  const decks = ([["red", obj(profs.red_deck)], ["blue", obj(profs.blue_deck)]] as const);
  displayRow("professions", "", (x, k) => {
    if (k < display.length) {
      const id = display[k] === null ? "" : str(display[k]);
      return id ? professionCard(x, id, [id], "profession-card", str(professions.get(id)?.name) || title(id), "#fdf6e3") : null;
    }
    const [colour, deck] = decks[k - display.length];
    const topId = str(deck.top);
    const fill = colour === "red" ? "#f6dcdc" : "#dde4f6";
    if (!topId) return part([colour], "deck", null, `the ${colour} deck: empty`, box(x, y, cardW, cardH, fill), label(x + 4, y + 16, `${colour} deck: empty`, { "font-size": 9.5 }));
    return professionCard(x, topId, [topId, colour], "deck", `${colour} ${num(deck.count)}: ${str(professions.get(topId)?.name) || title(topId)}`, fill);
  }, display.length + 2);
  const contracts = obj(o.contracts);
  const contractCosts = list(board.contract_display).map((d) => num(obj(d).cost));
  const contractCard = (x: number, yy: number, w: number, id: string, cost: number | null, refs: string[], kind: string, seat: number | null): SVGElement => {
    const c = contractsCat.get(id) ?? {};
    const type = str(types.get(str(c.type))?.name) || str(c.type);
    const children: SVGElement[] = [box(x, yy, w, cardH, "#f3ead2"), label(x + 4, yy + 11, fit(`${type}`, 13), { "font-size": 9, "font-weight": 600 })];
    if (cost !== null) children.push(coin(x + w - 9, yy + 8, cost));
    needsRow(children, x + 4, yy + 15, c.cubes, c.accessories);
    return carded(part(refs, kind, seat, contractText(id, c, types, cost), ...children), id);
  };
  const contractDisplay = list(contracts.display);
  displayRow("contracts", `deck ${num(contracts.deck)}`, (x, k) => {
    const id = contractDisplay[k] === null ? "" : str(contractDisplay[k]);
    return id ? contractCard(x, y, cardW, id, contractCosts[k] ?? null, [id], "contract", null) : null;
  }, contractDisplay.length);
  const investments = obj(o.investments);
  const investmentCosts = list(board.investment_display).map((d) => num(obj(d).cost));
  const investmentDisplay = list(investments.display);
  displayRow("investments", `deck ${num(investments.deck)}`, (x, k) => {
    const id = investmentDisplay[k] === null ? "" : str(investmentDisplay[k]);
    if (!id) return null;
    const inv = investmentsCat.get(id) ?? {};
    const cost = investmentCosts[k] ?? null;
    const children: SVGElement[] = [box(x, y, cardW, cardH, "#e9f0e1"), label(x + 4, y + 11, fit(title(id), 13), { "font-size": 9, "font-weight": 600 })];
    if (cost !== null) children.push(coin(x + cardW - 9, y + 8, cost));
    const ex = needsRow(children, x + 4, y + 15, inv.cubes, {});
    const effect = [num(inv.forest) ? `-${num(inv.forest)} forest` : "", num(inv.dune) ? `-${num(inv.dune)} dune` : ""].filter(Boolean).join(" ");
    if (effect) children.push(label(ex + 2, y + 23, effect, { "font-size": 8 }));
    children.push(points(x + cardW - 3, y + 23, num(inv.vp)));
    return carded(part([id], "investment", null, investmentText(id, inv, cost), ...children), id);
  }, investmentDisplay.length);
  // The player boards.
  list(o.players).forEach((player, seat) => {
    const p = obj(player);
    const mine = seat === ctx.human;
    const rowH = 62;
    const children: SVGElement[] = [box(4, y + 2, 760, rowH - 2, mine ? "#fff6e8" : "#fafafa", seatColour(seat)),
      label(10, y + 15, `${seatName(seat)}${mine ? " (you)" : ""}${ctx.toMove === seat ? " ▶" : ""}`, { "font-weight": 600, fill: seatColour(seat) }),
      part([], "score", seat, "VP on the scoring track, and the score if the game ended now", label(96, y + 15, `track ${num(p.vp)} VP · ${scoreLine(ctx, seat)} if the game ended now`, { "font-size": 10 })),
      label(380, y + 15, `coins ${num(p.coins)} · influence ${num(p.influence)} · forest ${num(p.forest)} · dune ${num(p.dune)}`, { "font-size": 10 })];
    let cx = 10;
    for (const [colour, n] of Object.entries(obj(p.cubes))) {
      for (let c = 0; c < num(n); c += 1) { if (cx < 200) children.push(cube(cx, y + 20, colour, seat, "cube", `${seatName(seat)}'s ${colour} cube`)); cx += 10; }
    }
    const acc = obj(p.accessories);
    children.push(label(210, y + 28, fit(`accessories: ${Object.entries(acc).filter(([, n]) => num(n)).map(([a, n]) => `${n} ${a}`).join(", ") || "-"}`, 30), { "font-size": 9.5 }));
    // The ability disks: every one, unlocked filled in the seat's colour, each with what
    // it does (a move unlocks one by its id).
    const unlocked = new Set(list(p.unlocked).map(str));
    abilities.forEach((disk, k) => {
      const id = str(disk.id);
      const on = unlocked.has(id);
      const dx = 392 + k * 26;
      children.push(part(mine ? [id] : [], "disk", seat, `ability ${diskLabel(id)} (${on ? "unlocked" : "locked"}): ${abilityText(disk)}`,
        el("rect", { x: dx, y: y + 19, width: 24, height: 12, rx: 6, fill: on ? seatColour(seat) : "#fff", stroke: on ? "#222" : "#aaa",
                     "stroke-width": 0.7, "stroke-dasharray": on ? "" : "2 1.5", class: "face" }),
        label(dx + 12, y + 28, diskLabel(id), { "text-anchor": "middle", "font-size": 8, fill: on ? "#fff" : "#777" })));
    });
    let x = 10;
    for (const id of list(p.contracts).map(str)) {
      children.push(contractCard(x, y + 34, 96, id, null, [id], "held-contract", seat));
      x += 100;
    }
    const fulfilled = Object.values(obj(p.fulfilled)).reduce<number>((n, v) => n + list(v).length, 0);
    const invested = Object.entries(obj(p.investments)).map(([c, v]) => `${list(v).length} ${c}`).join(", ");
    children.push(label(Math.max(x + 6, 310), y + 51, `fulfilled ${fulfilled} contracts · investments ${invested}`, { "font-size": 9.5 }));
    parts.push(part([], "player", seat, `${seatName(seat)}'s player board`, ...children));
    y += rowH;
  });
  const solo = o.solo;
  if (solo && typeof solo === "object" && !Array.isArray(solo)) {
    const revealed = list(solo.automa_revealed).map(str);
    const bag = obj(solo.bag);
    const text = `Automa (${str(obj(o.options).difficulty) || "normal"}): deck ${num(solo.automa_deck)}, last card ${revealed[revealed.length - 1] ?? "-"}; bag ${Object.entries(bag).map(([c, n]) => `${n} ${c}`).join(", ")}${num(solo.final_reset) ? "; final reset" : ""}`;
    parts.push(part([], "automa", null, text, box(4, y + 2, 760, 22, "#eceff3", "#666"), label(10, y + 17, text, { "font-size": 10 })));
    y += 26;
  }
  return svgRoot(768, y + 4, "stephens", ...parts);
}

const STEPHENS_KEY: KeyItem[] = [
  ...Object.entries(CUBE_COLOURS).map(([colour, fill]) => ({ colour: fill, text: colour })),
  { glyph: "2", colour: "#f2c94c", text: "cost in coins (a profession: the master's, then the apprentice's space)" },
  { glyph: "1 VP", colour: "#4e342e", text: "points" },
  { glyph: "■ ●", text: "a master, an apprentice (A: the Automa)" },
  { glyph: "Pl1", text: "an ability disk (filled: unlocked; V VP, Pl placement, C cards, S products)" },
];

const DRAWERS: Record<string, (o: Observation, ctx: BoardContext) => SVGSVGElement> = {
  samara, "oh-my-goods": ohMyGoods, stephens,
};

const KEYS: Record<string, KeyItem[]> = { samara: SAMARA_KEY, "oh-my-goods": OMG_KEY, stephens: STEPHENS_KEY };

const parsed = new Map<string, Observation>();

/** A game's catalogue (GameInfo.catalogue's JSON text), parsed once per game; {} for none
 * (the board then draws ids without their facts). */
export function catalogueOf(info: { name: string; catalogue: string }): Observation {
  let catalogue = parsed.get(info.name);
  if (!catalogue) {
    try {
      catalogue = info.catalogue ? obj(JSON.parse(info.catalogue) as Json) : {};
    } catch {
      catalogue = {};
    }
    parsed.set(info.name, catalogue);
  }
  return catalogue;
}

/** The board of `game` drawn from `observation`, or null for a game with no drawing. */
export function drawBoard(game: string, observation: Observation, ctx: BoardContext): SVGSVGElement | null {
  const draw = DRAWERS[game];
  return draw ? draw(observation, ctx) : null;
}

/** What the symbols of `game`'s drawn board mean (the page shows it beside the board). */
export const boardKey = (game: string): KeyItem[] => KEYS[game] ?? [];

/** The words of a move's text a component's `data-ref` may match. */
export const moveWords = (text: string): string[] => text.split(/[\s:]+/).filter(Boolean);
