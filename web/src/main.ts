// The Furnace web table: play the bots of `furnace serve --http-port` in a browser.
//
// Everything goes through the service's gRPC-Web door with a client generated from
// proto/furnace/v1/furnace.proto (@bufbuild/protoc-gen-es, @connectrpc/connect-web).
// The server is stateless: the page keeps the position and sends it with every call.
// What the page shows is the human's view only: every state it sends carries
// observer_seat = the human's seat, so renders, move lists and records are that seat's.
// In a hidden-information game the page holds the position *sealed*, always (every
// server seals: with a key of its own when given no --seal-key): encrypted and
// authenticated by the server for the human's seat, so neither the page nor its user
// can read the other hands or the deck, or alter a card (docs/api.md, "Sealed states").  The bots move with BestMove
// `play`: the server searches for the bot from the bot's own information and answers
// the new position; it answers the bot's move and analysis only when the human may
// know them, and the page shows whatever analysis it gets.
// The board is drawn (boards.ts) from the position as the human's seat sees it: the
// `view` beside a sealed state, else the state itself, asked as a JSON object.
// The page also keeps the game's record (NewGame's seed and the moves it saw played)
// for the review panel (review.ts), which streams ReviewGame at the game's end or on
// the Review button: of that record, or of the sealed position, which carries the
// whole record (the moves the page did not see too) for the server alone to read.
// A sealed game's seed is the server's alone (whoever knows it deals the game again in
// clear, every hand and the deck): the page sends none and holds none, except on a page
// pinned with `?seed=N`, whose seed a server takes only with --allow-sealed-seeds.

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import {
  type Analysis,
  FurnaceService,
  type GameInfo,
  type GameState,
  GameStateSchema,
  type GameStatus,
  InformationType,
  type Move,
  type MoveRecord,
  SearchStopReason,
  StateFormat,
} from "./gen/furnace/v1/furnace_pb";
import { boardKey, catalogueOf, drawBoard, moveWords, type Observation } from "./boards";
import { closeReview, openReview, type PlayedMove } from "./review";

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
};

const ui = {
  game: $<HTMLSelectElement>("game"),
  players: $<HTMLSelectElement>("players"),
  seat: $<HTMLSelectElement>("seat"),
  level: $<HTMLSelectElement>("level"),
  strengthKind: $<HTMLSelectElement>("strength-kind"),
  strength: $<HTMLInputElement>("strength"),
  searches: $<HTMLSelectElement>("searches"),
  exact: $<HTMLDetailsElement>("exact"),
  budgetNote: $<HTMLSpanElement>("budget-note"),
  token: $<HTMLInputElement>("token"),
  newGame: $<HTMLButtonElement>("new-game"),
  hint: $<HTMLButtonElement>("hint"),
  review: $<HTMLButtonElement>("review-open"),
  reviewClose: $<HTMLButtonElement>("review-close"),
  status: $<HTMLDivElement>("status"),
  board: $<HTMLPreElement>("board"),
  drawn: $<HTMLDivElement>("drawn"),
  key: $<HTMLUListElement>("key"),
  textToggle: $<HTMLButtonElement>("text-toggle"),
  filterNote: $<HTMLSpanElement>("filter-note"),
  showAll: $<HTMLButtonElement>("show-all"),
  moves: $<HTMLDivElement>("moves"),
  analysisTitle: $<HTMLHeadingElement>("analysis-title"),
  analysisInfo: $<HTMLDivElement>("analysis-info"),
  chart: $<HTMLDivElement>("chart"),
  expected: $<HTMLDivElement>("expected"),
  pv: $<HTMLDivElement>("pv"),
  log: $<HTMLOListElement>("log"),
  error: $<HTMLDivElement>("error"),
};

// -- the client ---------------------------------------------------------------------------
const withToken: Interceptor = (next) => async (request) => {
  const token = ui.token.value.trim();
  if (token) request.header.set("Authorization", `Bearer ${token}`);
  return next(request);
};

const furnace = createClient(
  FurnaceService,
  createGrpcWebTransport({ baseUrl: window.location.origin, interceptors: [withToken] }),
);

// -- the table ------------------------------------------------------------------------------
interface Table {
  info: GameInfo;
  human: number;
  players: number;
  /** The position: sealed for the human's seat in a hidden-information game, else the
   * whole position (nothing in it is hidden) as a JSON object with the human's
   * observer_seat. */
  state: GameState;
  status: GameStatus;
  /** What the board is drawn from: the position as the human's seat sees it (a sealed
   * state's `view`, else the JSON state, held with the human's observer_seat). */
  seen: Observation | null;
  /** The human's legal moves on its turn (none otherwise), and the component words the
   * list is narrowed to (a clicked component's), if any. */
  moves: Move[];
  filter: string[] | null;
  /** The move a hint found best, until the human moves. */
  hinted: Move | null;
  /** The seed NewGame dealt from (null for a sealed game: the server's alone), and every
   * move played since (the game's record, for a review); `played` is null once a move
   * was hidden from the human (no record the page can send). */
  seed: bigint | null;
  played: PlayedMove[] | null;
  /** Bumped by every new game: work for an older game stops. */
  generation: number;
}

declare global {
  interface Window {
    /** The current table, for the curious (and the browser test): what the page holds. */
    furnaceTable?: Table | null;
  }
}

let games: GameInfo[] = [];
let table: Table | null = null;
let generation = 0;

const seatName = (seat: number): string => `P${seat + 1} (seat ${seat})`;
const percent = (x: number): string => `${(100 * x).toFixed(1)}%`;

function setPhase(phase: "idle" | "busy" | "human" | "bot" | "hint" | "over"): void {
  document.body.dataset.phase = phase;
  ui.hint.disabled = phase !== "human";
  ui.review.disabled = phase !== "human" && phase !== "over";
}

function showError(error: unknown): void {
  let message = error instanceof ConnectError
    ? `${Code[error.code]}: ${error.rawMessage}`
    : String(error);
  if (error instanceof ConnectError && error.code === Code.InvalidArgument && pinned &&
      /sealed game takes no seed/.test(error.rawMessage)) {
    message += " (this page is pinned with ?seed=, which this server does not take for a game" +
      " whose cards are hidden: open the page without ?seed=)";
  }
  ui.error.textContent = message;
  ui.error.hidden = false;
}

/** The position as the human sees it (observer_seat = the human's seat; a sealed
 * position is sealed for that seat already). */
function view(t: Table): GameState {
  return create(GameStateSchema, { state: t.state.state, observerSeat: t.human });
}

/** Whether the page holds `info`'s positions sealed: a game with hidden information.
 * Never a readable fallback: a server that could not seal would refuse the game, and
 * the page would say so, rather than hand the browser the other hands. */
const sealedFor = (info: GameInfo): boolean => info.informationType === InformationType.IMPERFECT;

const MAX_LEVEL = 5;

type Budget = { iterations?: bigint; timeLimitMs?: number };

/** Whether the bots play a strength level (1-5, the main setting) rather than an exact
 * budget (the "Exact budgets" details). */
const byLevel = (): boolean => ui.strengthKind.value === "level";

/** The exact budget of the details: iterations or milliseconds a move. */
function exactBudget(): Budget {
  const amount = Math.max(1, Math.floor(Number(ui.strength.value) || 1));
  return ui.strengthKind.value === "time" ? { timeLimitMs: amount } : { iterations: BigInt(amount) };
}

/** The bots' strength as request fields: a level (which brings its own budget and way of
 * choosing), or an exact budget. */
function strength(): { budget?: Budget; level?: number } {
  if (byLevel()) return { level: Math.min(MAX_LEVEL, Math.max(1, Number(ui.level.value) || 3)) };
  return { budget: exactBudget() };
}

/** Whether hints and reviews search the bots' exact budget (a details setting, for tuning
 * and tests) rather than the game's own budgets. */
const searchesAsBots = (): boolean => ui.searches.value === "bots" && !byLevel();

/** A hint's budget: the game's (GameInfo.hint_iterations, docs/api.md "Hints and
 * reviews"), whatever the bots' strength; never a level, so that the hint is the
 * search's best move, not one drawn with a weak level's temperature. */
function hintBudget(info: GameInfo): Budget {
  if (searchesAsBots()) return exactBudget();
  return info.hintIterations ? { iterations: BigInt(info.hintIterations) } : {};
}

/** A review's budget a decision: none, which the server reads as the game's review
 * budget (GameInfo.review_iterations, at which docs/review.md measured its labels). */
const reviewBudget = (): Budget | undefined => (searchesAsBots() ? exactBudget() : undefined);

/** Games whose status scores a game in progress as its final score if it ended now. */
const SCORED_AS_IF_ENDED = new Set(["stephens"]);

/** The page's `?seed=N`: a table whose deals and searches repeat (tests, bug reports). */
const pinnedSeed = new URLSearchParams(window.location.search).get("seed");
const pinned = pinnedSeed !== null && /^\d{1,15}$/.test(pinnedSeed);
let seedsGiven = 0;
/** A seed for a new game or search: with `?seed=N`, N and then N+1, N+2...; else random. */
const newSeed = (): bigint =>
  pinned ? BigInt(pinnedSeed ?? 0) + BigInt(seedsGiven++) : BigInt(Math.floor(Math.random() * 2 ** 31));

function describeStatus(t: Table): string {
  const s = t.status;
  const scores = s.scores.map((score, seat) => `${seatName(seat)}: ${score}`).join(", ");
  if (s.terminal) {
    // Each seat's score by source, as the engine breaks it down (sources worth nothing left out).
    const sources = s.scoreBreakdown
      .map((breakdown, seat) => {
        const earned = breakdown.parts.filter((part) => part.points).map((part) => `${part.source} ${part.points}`);
        return `${seatName(seat)}: ${earned.join(", ") || "nothing scored"}`;
      })
      .join("; ");
    if (s.numPlayers === 1) {
      // A lone seat always ranks first: the verdict is the score against the target.
      const target = s.soloTarget === undefined ? "" : ` against a target of ${s.soloTarget}`;
      const verdict = s.soloResult ? `: ${s.soloResult}` : "";
      return `Game over. You scored ${s.scores[0] ?? 0}${target}${verdict}. By source: ${sources}`;
    }
    const first = s.ranking[0]?.seats ?? [];
    const winners = first.map(seatName).join(" and ");
    const you = first.includes(t.human) ? "You win" : "You lose";
    return `Game over. ${first.length > 1 ? "Tied winners" : "Winner"}: ${winners}. ${you}. Scores: ${scores}. By source: ${sources}`;
  }
  const turn = s.currentPlayer === t.human ? "your turn" : `${seatName(s.currentPlayer)} (bot) to move`;
  // Stephens scores a game in progress as if it ended now, far above the scoring
  // track's VP: the board shows both, and says so (SCORED_AS_IF_ENDED).
  const label = SCORED_AS_IF_ENDED.has(t.info.name) ? "Scores if the game ended now" : "Scores";
  return `${t.info.title}, you are ${seatName(t.human)}: ${turn}. ${label}: ${scores}`;
}

function addLog(record: MoveRecord): void {
  const item = document.createElement("li");
  const who = table && record.player === table.human ? `You, ${seatName(record.player)}` : `Bot, ${seatName(record.player)}`;
  const what = record.moveHidden ? "(a move you cannot see)" : (record.move?.text ?? "?");
  item.textContent = `${who}: ${what}`;
  if (record.events.length) {
    const events = document.createElement("div");
    events.className = "events";
    events.textContent = record.events.join("; ");
    item.append(events);
  }
  ui.log.prepend(item);
}

function clearMoves(): void {
  ui.moves.replaceChildren();
  ui.filterNote.textContent = "";
  ui.showAll.hidden = true;
}

/** Whether `move` is about a component named by any of `refs`. */
const isAbout = (move: Move, refs: string[]): boolean => moveWords(move.text).some((w) => refs.includes(w));

function showMoves(t: Table): void {
  clearMoves();
  const moves = t.filter ? t.moves.filter((m) => isAbout(m, t.filter ?? [])) : t.moves;
  if (t.filter) {
    ui.filterNote.textContent = `${moves.length} of ${t.moves.length} moves: those about ${t.filter.join(" ")}`;
    ui.showAll.hidden = false;
  }
  for (const move of moves) {
    const button = document.createElement("button");
    button.className = "move";
    button.textContent = move.text;
    button.dataset.id = String(move.id ?? "");
    button.classList.toggle("best", t.hinted !== null && t.hinted.id === move.id);
    button.addEventListener("click", () => void humanMove(t, move));
    ui.moves.append(button);
  }
}

// -- the drawn board ------------------------------------------------------------------------
/** The observation an answer brings: its `view` beside a sealed state, else the JSON state
 * itself (held with the human's observer_seat, in a game with nothing to hide). */
function seenIn(reply: { state?: GameState; view?: Observation | { [key: string]: unknown } }): Observation | null {
  if (reply.view && Object.keys(reply.view).length) return reply.view as Observation;
  const state = reply.state?.state;
  if (state?.case === "jsonObject") return state.value as Observation;
  return null;
}

/** Draw the board from what the human sees; components a legal move is about are live
 * (a click narrows the moves to theirs), those the hint's move names are lit. */
function drawTable(t: Table): void {
  const board = t.seen ? drawBoard(t.info.name, t.seen, {
    human: t.human, scores: t.status.scores, toMove: t.status.terminal ? -1 : t.status.currentPlayer,
    catalogue: catalogueOf(t.info),
  }) : null;
  if (!board) {
    ui.drawn.replaceChildren();
    ui.drawn.hidden = true;
    ui.board.hidden = false;
    return;
  }
  ui.drawn.hidden = false;
  const hintWords = t.hinted ? moveWords(t.hinted.text) : [];
  for (const part of board.querySelectorAll<SVGGElement>("g.part")) {
    const refs = (part.dataset.ref ?? "").split(" ");
    if (t.moves.some((m) => isAbout(m, refs))) {
      part.classList.add("live");
      part.addEventListener("click", (event) => {
        event.stopPropagation();
        t.filter = refs;
        showMoves(t);
        markPicked(refs);
      });
    }
    if (hintWords.some((w) => refs.includes(w))) part.classList.add("hinted");
  }
  ui.drawn.replaceChildren(board);
  if (t.filter) markPicked(t.filter);
}

/** The key of `game`'s drawn board: each symbol and what it means. */
function showKey(game: string): void {
  ui.key.replaceChildren(...boardKey(game).map((item) => {
    const entry = document.createElement("li");
    const swatch = document.createElement("i");
    swatch.textContent = item.glyph ?? "";
    if (item.colour) swatch.style.background = item.colour;
    entry.append(swatch, item.text);
    return entry;
  }));
  ui.key.hidden = !ui.key.childElementCount;
}

function markPicked(refs: string[]): void {
  for (const part of ui.drawn.querySelectorAll<SVGGElement>("g.part")) {
    part.classList.toggle("picked", part.dataset.ref === refs.join(" "));
  }
}

/** The analysis panel back to empty: a hint's candidates are for a position now gone. */
function clearAnalysis(): void {
  ui.analysisTitle.textContent = "Analysis";
  ui.analysisInfo.textContent = ui.expected.textContent = ui.pv.textContent = "";
  ui.chart.replaceChildren();
}

// -- analysis -------------------------------------------------------------------------------
/** An answered analysis: its candidate moves whenever the server answers one (it answers
 * none the human may not know). */
function showAnalysis(analysis: Analysis, title: string, final: boolean): void {
  ui.analysisTitle.textContent = title;
  const stop = final ? `, stopped by ${SearchStopReason[analysis.stopReason].replace("SEARCH_STOP_REASON_", "").toLowerCase()}` : "";
  ui.analysisInfo.textContent =
    `${analysis.iterations} iterations in ${analysis.elapsedSeconds.toFixed(2)} s${stop}` +
    (analysis.bestMove ? `; best so far: ${analysis.bestMove.text}` : "");
  ui.chart.replaceChildren();
  const most = Math.max(1, ...analysis.moves.map((m) => m.visits));
  for (const m of analysis.moves) {
    const row = document.createElement("div");
    row.className = "row";
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = m.move?.text ?? "?";
    const bars = document.createElement("span");
    bars.className = "bars";
    const visits = document.createElement("span");
    visits.className = "bar visits";
    visits.style.width = `${(100 * m.visits) / most}%`;
    visits.textContent = `${m.visits}`;
    const win = document.createElement("span");
    win.className = "bar win";
    win.style.width = `${100 * m.winProbability}%`;
    win.textContent = percent(m.winProbability);
    bars.append(visits, win);
    row.append(label, bars);
    ui.chart.append(row);
  }
  ui.expected.textContent = "Expected scores: " + analysis.expectedScores
    .map((score, seat) => `${seatName(seat)} ${score.toFixed(1)} (wins ${percent(analysis.winProbabilities[seat] ?? 0)})`)
    .join(", ");
  ui.pv.textContent = analysis.principalVariation.length
    ? "Principal variation: " + analysis.principalVariation.map((m) => m.text).join(" → ")
    : "";
}

/** Run Analyze for the seat to move at a hint's budget, showing every update; the final
 * analysis, whose best move (the most visited) is the hint. */
async function think(t: Table, title: string, doneTitle: string): Promise<Analysis | null> {
  let last: Analysis | null = null;
  const stream = furnace.analyze({
    state: view(t),
    seat: t.status.currentPlayer,
    budget: hintBudget(t.info),
    updateIntervalMs: 100,
    maxCandidates: 8,
    seed: newSeed(),
  });
  for await (const update of stream) {
    if (t.generation !== generation) return null;
    if (update.analysis) {
      last = update.analysis;
      showAnalysis(update.analysis, update.final ? doneTitle : title, update.final);
    }
  }
  return last;
}

/** The bot's turn in one call: BestMove with `play` (a level's own choice, or the most
 * visited move of a budget's search), answered with the new position as the human sees
 * it.  The move and analysis come only when the human may know them. */
async function botMove(t: Table, player: number): Promise<void> {
  ui.analysisTitle.textContent = `${seatName(player)} (bot) is thinking…`;
  const reply = await furnace.bestMove({
    state: view(t),
    seat: player,
    ...strength(),
    maxCandidates: 8,
    seed: newSeed(),
    play: true,
  });
  if (t.generation !== generation) return;
  if (reply.analysis) {
    showAnalysis(reply.analysis, `${seatName(player)} (bot) thought`, true);
  } else {
    ui.analysisTitle.textContent = `${seatName(player)} (bot) moved`;
    ui.analysisInfo.textContent = "Its search is not shown: it depends on cards you cannot see.";
    ui.chart.replaceChildren();
    ui.expected.textContent = ui.pv.textContent = "";
  }
  played(t, reply);
}

/** Take an answer's new position (ApplyMove, or BestMove with `play`). */
function played(t: Table, reply: { state?: GameState; status?: GameStatus; render: string;
                                   record?: MoveRecord; view?: { [key: string]: unknown } }): void {
  if (t.generation !== generation || !reply.state || !reply.status) return;
  t.state = reply.state;
  t.status = reply.status;
  t.seen = seenIn(reply);
  t.moves = [];
  t.filter = null;
  ui.board.textContent = reply.render;
  if (reply.record) {
    addLog(reply.record);
    const move = reply.record.move;
    t.played = t.played && move && !reply.record.moveHidden ? [...t.played, { id: move.id, text: move.text }] : null;
  }
  ui.status.textContent = describeStatus(t);
  drawTable(t);
}

// -- the game loop --------------------------------------------------------------------------
async function apply(t: Table, move: Move, seat: number | undefined): Promise<void> {
  played(t, await furnace.applyMove({ state: view(t), move: { id: move.id }, seat }));
}

async function advance(t: Table): Promise<void> {
  while (t.generation === generation) {
    ui.status.textContent = describeStatus(t);
    if (t.status.terminal) {
      clearMoves();
      setPhase("over");
      review(t);
      return;
    }
    if (t.status.chance) {
      const reply = await furnace.legalMoves({ state: view(t) });
      let pick = Math.random();
      const outcome = reply.chanceOutcomes.find((o) => (pick -= o.probability) <= 0) ??
        reply.chanceOutcomes[reply.chanceOutcomes.length - 1];
      if (!outcome?.move) throw new Error("chance moves next, but the server listed no outcome");
      await apply(t, outcome.move, undefined);
      continue;
    }
    const player = t.status.currentPlayer;
    if (player === t.human) {
      const reply = await furnace.legalMoves({ state: view(t), seat: t.human, includeRender: true });
      if (t.generation !== generation) return;
      ui.board.textContent = reply.render;
      t.moves = reply.moves;
      t.filter = null;
      showMoves(t);
      drawTable(t);
      setPhase("human");
      return;
    }
    // A bot's turn: the server searches and plays it.
    clearMoves();
    setPhase("bot");
    await botMove(t, player);
  }
}

async function humanMove(t: Table, move: Move): Promise<void> {
  if (document.body.dataset.phase !== "human") return;
  setPhase("busy");
  clearMoves();
  t.hinted = null;
  clearAnalysis();
  try {
    await apply(t, move, t.human);
    await advance(t);
  } catch (error) {
    showError(error);
    setPhase("idle");
  }
}

async function hint(): Promise<void> {
  const t = table;
  if (!t || document.body.dataset.phase !== "human") return;
  setPhase("hint");
  try {
    const analysis = await think(t, "Hint: searching your move…", "Hint: the search for your move");
    if (table === t && analysis?.bestMove) {
      t.hinted = t.moves.find((m) => m.id === analysis.bestMove?.id) ?? analysis.bestMove;
      showMoves(t);
      drawTable(t);
    }
  } catch (error) {
    showError(error);
  } finally {
    if (table === t && !t.status.terminal) setPhase("human");
  }
}

/** Review the human's decisions so far (the whole game at its end), in the review panel. */
function review(t: Table): void {
  openReview(furnace, {
    info: t.info, players: t.players, seat: t.human, seed: t.seed, moves: t.played,
    sealed: t.state.state.case === "sealed" ? t.state : null, budget: reviewBudget(),
    reviewSeed: newSeed(),
  });
}

async function newGame(): Promise<void> {
  ui.error.hidden = true;
  // The budgets' panel floats over the moves: a game starts with it closed.
  ui.exact.open = false;
  closeReview();
  const info = games.find((g) => g.name === ui.game.value);
  if (!info) return;
  const players = Number(ui.players.value);
  const human = Number(ui.seat.value);
  generation += 1;
  setPhase("busy");
  clearMoves();
  ui.log.replaceChildren();
  clearAnalysis();
  try {
    // Sealed where there is something to hide; else the JSON object the board reads.
    const sealed = sealedFor(info);
    const reply = await furnace.newGame({
      game: info.name, numPlayers: players, observerSeat: human,
      // A sealed game is dealt from the server's own secret seed (none is answered),
      // unless the page is pinned: then a server started with --allow-sealed-seeds takes
      // it, and any other refuses it (the page says so).
      seed: sealed && !pinned ? undefined : newSeed(),
      stateFormat: sealed ? StateFormat.SEALED : StateFormat.JSON_OBJECT,
    });
    if (!reply.state || !reply.status) throw new Error("NewGame answered without a state");
    table = { info, human, players, state: reply.state, status: reply.status, generation,
              seed: sealed ? null : (reply.seed ?? null), played: [],
              seen: seenIn(reply), moves: [], filter: null, hinted: null };
    window.furnaceTable = table;
    showKey(info.name);
    ui.textToggle.disabled = false;
    ui.board.textContent = reply.render;
    drawTable(table);
    await advance(table);
  } catch (error) {
    showError(error);
    setPhase("idle");
  }
}

// -- the settings ---------------------------------------------------------------------------
function fillPlayers(): void {
  const info = games.find((g) => g.name === ui.game.value);
  // The game's own budgets, in the details (GameInfo: docs/api.md, "Hints and reviews").
  ui.budgetNote.textContent = info?.hintIterations
    ? `${info.title}'s hints search ${info.hintIterations} iterations, its reviews ` +
      `${info.reviewIterations} a decision.`
    : "";
  const counts = info?.playerCounts.length ? info.playerCounts : [2];
  const previous = Number(ui.players.value) || 2;
  ui.players.replaceChildren(...counts.map((n) => new Option(String(n), String(n))));
  ui.players.value = String(counts.includes(previous) ? previous : counts[0]);
  fillSeats();
}

function fillSeats(): void {
  const players = Number(ui.players.value) || 1;
  const previous = Number(ui.seat.value) || 0;
  ui.seat.replaceChildren(...Array.from({ length: players }, (_, seat) => new Option(seatName(seat), String(seat))));
  ui.seat.value = String(previous < players ? previous : 0);
}

async function start(): Promise<void> {
  setPhase("busy");
  const stored = window.sessionStorage.getItem("furnace-token");
  if (stored) ui.token.value = stored;
  ui.token.addEventListener("change", () => window.sessionStorage.setItem("furnace-token", ui.token.value));
  ui.game.addEventListener("change", fillPlayers);
  ui.players.addEventListener("change", fillSeats);
  ui.strengthKind.addEventListener("change", () => {
    ui.strength.value = ui.strengthKind.value === "time" ? "1000" : "2000";
    ui.strength.disabled = ui.level.disabled = false;
    if (byLevel()) ui.strength.disabled = true;
    else ui.level.disabled = true;
  });
  ui.newGame.addEventListener("click", () => void newGame());
  ui.hint.addEventListener("click", () => void hint());
  ui.review.addEventListener("click", () => { if (table) review(table); });
  ui.reviewClose.addEventListener("click", closeReview);
  ui.textToggle.addEventListener("click", () => {
    ui.board.hidden = !ui.board.hidden;
    ui.textToggle.setAttribute("aria-pressed", String(!ui.board.hidden));
    ui.textToggle.textContent = ui.board.hidden ? "Show the text board" : "Hide the text board";
  });
  ui.showAll.addEventListener("click", () => {
    if (!table) return;
    table.filter = null;
    showMoves(table);
    markPicked([]);
  });
  try {
    const reply = await furnace.listGames({});
    games = reply.games;
    ui.game.replaceChildren(...games.map((g) => new Option(g.title, g.name)));
    fillPlayers();
    setPhase("idle");
    document.body.dataset.ready = "true";
  } catch (error) {
    showError(error);
    setPhase("idle");
    document.body.dataset.ready = "error";
  }
}

void start();
