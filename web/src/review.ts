// The web table's review panel: ReviewGame on the game just played, drawn as it streams.
//
// A game with nothing hidden is sent as a record (the seed NewGame dealt from and every
// move the page saw played), reviewing the human's seat with observer_seat = that seat,
// so the server judges each decision from what the seat could see then
// (docs/review.md).  In a game with hidden information the page never sees every move
// (another seat's secret choice in Oh My Goods!): it sends the sealed state it holds,
// which carries the game's record inside, and the server reviews the seat it was sealed
// for, and only that seat.
// The graph is the seat's win probability after each move it played (alone against a
// target: the chance of reaching it), one point per reviewed decision; a click on a
// point shows the position as the seat saw it then: for a sealed game, the `view` each
// decision's message carries; else rebuilt by the server from the record's first moves
// and answered as a JSON state.  Never the host's position.  The board marks the move
// played and the search's best (the components their texts name, as a hint lights
// them); the key moments (the server's choice: each seat's mistakes and blunders and the
// largest swings of its forecast) are listed once the summary comes, and the panel
// steps decision by decision or to the next mistake.  A decision whose forecast moved
// before it through the opponents' moves or chance says so: not the seat's loss.
// Closing the panel, or a new game, aborts the stream (the server stops the review).

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import {
  type ForecastSwing,
  FurnaceService,
  type GameInfo,
  type GameState,
  GameStateSchema,
  type KeyMoment,
  KeyMomentReason,
  ReviewLabel,
  type ReviewedDecision,
  type ReviewSummary,
  StateFormat,
} from "./gen/furnace/v1/furnace_pb";
import { catalogueOf, drawBoard, moveWords, type Observation } from "./boards";

/** A move as a record holds it: the id and text the page saw. */
export interface PlayedMove {
  id?: bigint;
  text: string;
}

/** What a review needs of the game the page played. */
export interface ReviewedGame {
  info: GameInfo;
  players: number;
  /** The reviewed seat: the human's. */
  seat: number;
  /** The seed NewGame dealt from; null for a sealed game (the server's alone: the
   * review reads the record the sealed state carries). */
  seed: bigint | null;
  /** Every move played so far, in order; null when the page did not see one of them. */
  moves: PlayedMove[] | null;
  /** The position the page holds: sealed for `seat` in a game with hidden information
   * (it carries the game's record, which the review then reads), else null. */
  sealed: GameState | null;
  /** Each decision's budget (the bots' exact budget, when the settings ask reviews to use it), or undefined: the game's review budget. */
  budget?: { iterations?: bigint; timeLimitMs?: number };
  reviewSeed: bigint;
}

type Furnace = Client<typeof FurnaceService>;

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
};

const LABELS: Record<number, string> = {
  [ReviewLabel.BEST]: "best", [ReviewLabel.GOOD]: "good", [ReviewLabel.INACCURACY]: "inaccuracy",
  [ReviewLabel.MISTAKE]: "mistake", [ReviewLabel.BLUNDER]: "blunder",
};
const labelName = (label: ReviewLabel): string => LABELS[label] ?? "unjudged";
const percent = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** The review under way, if any: its abort handle and what it has received. */
interface Running {
  furnace: Furnace;
  game: ReviewedGame;
  abort: AbortController;
  decisions: ReviewedDecision[];
  /** The decision whose position is shown; -1 for none. */
  shown: number;
  /** The key moments of the reviewed seat, once its summary came. */
  moments: KeyMoment[];
}

let running: Running | null = null;

function setState(state: "idle" | "running" | "done" | "cancelled" | "error" | "unavailable"): void {
  $("review").dataset.state = state;
}

/** NewGame's seed of a game the page holds a record of (not a sealed game). */
function seedOf(game: ReviewedGame): bigint {
  if (game.seed === null) throw new Error("a sealed game is reviewed from its sealed state");
  return game.seed;
}

/** The game's record up to (not including) move `upto`, for `seat`'s eyes. */
function recordState(game: ReviewedGame, upto: number): GameState {
  return create(GameStateSchema, {
    state: {
      case: "record",
      value: {
        game: game.info.name, numPlayers: game.players, options: {},
        start: { case: "seed", value: seedOf(game) },
        moves: (game.moves ?? []).slice(0, upto).map((m) => ({ id: m.id, text: m.text })),
      },
    },
    observerSeat: game.seat,
  });
}

/** Open the panel and review `game` (a review already running is cancelled first). */
export function openReview(furnace: Furnace, game: ReviewedGame): void {
  wireSteps();
  closeReview();
  $("review").hidden = false;
  const progress = $<HTMLProgressElement>("review-progress");
  progress.removeAttribute("value");
  if (!game.sealed && !game.moves) {
    $("review-status").textContent =
      "This game cannot be reviewed here: some moves were hidden from you, and a review needs them all.";
    setState("unavailable");
    return;
  }
  const run: Running = { furnace, game, abort: new AbortController(), decisions: [], shown: -1, moments: [] };
  running = run;
  $("review-status").textContent = "Reviewing your decisions…";
  setState("running");
  void stream(run);
}

/** Close the panel, emptied; a review still streaming is cancelled (the server stops it). */
export function closeReview(): void {
  if (running) {
    const run = running;
    running = null;
    run.abort.abort();
  }
  $("review").hidden = true;
  for (const id of ["review-graph", "review-list", "review-detail", "review-board", "review-moments"]) {
    $(id).replaceChildren();
  }
  updateSteps(null);
  $("review-status").textContent = $("review-summary").textContent = "";
  setState("idle");
}

async function stream(run: Running): Promise<void> {
  const progress = $<HTMLProgressElement>("review-progress");
  try {
    const responses = run.furnace.reviewGame({
      state: run.game.sealed ?? recordState(run.game, run.game.moves?.length ?? 0),
      seat: run.game.seat,
      budget: run.game.budget,
      seed: run.game.reviewSeed,
    }, { signal: run.abort.signal });
    for await (const response of responses) {
      if (running !== run) return;
      const item = response.item;
      if (item.case === "decision") {
        run.decisions.push(item.value);
        progress.max = item.value.total;
        progress.value = item.value.index + 1;
        $("review-status").textContent = `Reviewed ${item.value.index + 1} of ${item.value.total} decisions…`;
        drawGraph(run);
        addRow(run, run.decisions.length - 1);
        updateSteps(run);
      } else if (item.case === "summary") {
        showSummary(item.value, run);
        if (item.value.seat === run.game.seat) {
          run.moments = item.value.keyMoments;
          showMoments(run);
          drawGraph(run);
        }
      }
    }
    if (running !== run) return;
    if (!run.decisions.length) {
      progress.max = 1;
      progress.value = 1;
      $("review-status").textContent = "Nothing to review: you had no decision with a choice.";
    }
    setState("done");
  } catch (error) {
    if (running !== run) return;
    if (error instanceof ConnectError && error.code === Code.Canceled) {
      setState("cancelled");
      return;
    }
    $("review-status").textContent = error instanceof ConnectError
      ? `The review failed: ${Code[error.code]}: ${error.rawMessage}`
      : `The review failed: ${String(error)}`;
    setState("error");
  }
}

function showSummary(summary: ReviewSummary, run: Running): void {
  const c = summary.counts;
  const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  const counts = c ? `${c.best} best, ${c.good} good, ${count(c.inaccuracy, "inaccuracy", "inaccuracies")}, ` +
    `${count(c.mistake, "mistake", "mistakes")}, ${count(c.blunder, "blunder", "blunders")}` : "";
  $("review-status").textContent = summary.complete
    ? `Reviewed all ${summary.decisions} of your decisions.`
    : `The review stopped early: ${summary.decisions} decisions reviewed.`;
  $("review-summary").textContent =
    `Accuracy ${summary.accuracy.toFixed(1)}; ${counts}; average loss ${percent(summary.averageWinProbabilityLoss)} ` +
    `${targetOf(run) === null ? "win probability" : "chance of the target"}, ${summary.averageScoreLoss.toFixed(2)} points.`;
}

/** The target a solo game aims at (the graph is then the chance of reaching it). */
function targetOf(run: Running): number | null {
  const target = run.decisions.find((d) => d.target !== undefined)?.target;
  return target === undefined ? null : target;
}

// -- the graph ------------------------------------------------------------------------------
const NS = "http://www.w3.org/2000/svg";
const W = 520;
const H = 170;
const PAD = { left: 38, right: 10, top: 10, bottom: 24 };

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The seat's win probability (or chance of its target) after each move it played, one
 * point per reviewed decision; mistakes and blunders are marked, a click shows one. */
function drawGraph(run: Running): void {
  const n = run.decisions.length;
  const total = Math.max(n, run.decisions[n - 1]?.total ?? n, 2);
  const x = (i: number): number => PAD.left + ((W - PAD.left - PAD.right) * i) / (total - 1);
  const y = (p: number): number => PAD.top + (H - PAD.top - PAD.bottom) * (1 - Math.min(1, Math.max(0, p)));
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img" }) as SVGSVGElement;
  const target = targetOf(run);
  root.setAttribute("aria-label", target === null ? "your win probability, decision by decision"
    : `your chance of reaching ${target}, decision by decision`);
  for (const p of [0, 0.5, 1]) {
    root.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(p), y2: y(p), class: "grid" }));
    root.append(svg("text", { x: PAD.left - 4, y: y(p) + 4, "text-anchor": "end", class: "axis" }, `${100 * p}%`));
  }
  root.append(svg("text", { x: PAD.left, y: H - 6, class: "axis" },
    target === null ? "your win probability after each decision" : `your chance of reaching ${target}`));
  const points = run.decisions.map((d, i) => `${x(i)},${y(d.played?.winProbability ?? 0)}`);
  if (n > 1) root.append(svg("polyline", { points: points.join(" "), class: "curve" }));
  run.decisions.forEach((d, i) => {
    const label = labelName(d.label);
    const marked = d.label === ReviewLabel.MISTAKE || d.label === ReviewLabel.BLUNDER;
    const key = run.moments.some((m) => m.index === i);
    const point = svg("circle", {
      cx: x(i), cy: y(d.played?.winProbability ?? 0), r: marked ? 6 : 4,
      class: `point ${label}${i === run.shown ? " shown" : ""}${key ? " key" : ""}`, "data-index": i, "data-turn": d.turn,
    });
    point.append(svg("title", {}, `move ${d.turn + 1}: ${d.played?.move?.text ?? "?"} (${label})`));
    point.addEventListener("click", () => void showDecision(run, i));
    root.append(point);
  });
  $("review-graph").replaceChildren(root);
}

function addRow(run: Running, i: number): void {
  const d = run.decisions[i];
  const row = document.createElement("button");
  row.className = `decision ${labelName(d.label)}`;
  row.dataset.index = String(i);
  row.textContent = `Move ${d.turn + 1}: ${d.played?.move?.text ?? "?"} (${labelName(d.label)})`;
  row.addEventListener("click", () => void showDecision(run, i));
  $("review-list").append(row);
}

// -- one decision ---------------------------------------------------------------------------
/** Show decision `i`: the played and best moves, the line after the best, and the board as
 * the seat saw it before its move (rebuilt by the server for that seat). */
async function showDecision(run: Running, i: number): Promise<void> {
  const d = run.decisions[i];
  run.shown = i;
  drawGraph(run);
  for (const row of $("review-list").querySelectorAll<HTMLElement>("button.decision")) {
    row.classList.toggle("shown", row.dataset.index === String(i));
  }
  const detail = $("review-detail");
  detail.dataset.turn = String(d.turn);
  const line = (cls: string, text: string): HTMLDivElement => {
    const div = document.createElement("div");
    div.className = cls;
    div.textContent = text;
    return div;
  };
  updateSteps(run);
  const measure = d.target === undefined ? "win" : `reach ${d.target}`;
  const same = d.best?.move?.id === d.played?.move?.id;
  detail.replaceChildren(
    line("heading", `Move ${d.turn + 1}, ${d.choices} choices: ${labelName(d.label)} (accuracy ${d.accuracy.toFixed(0)})`),
    line("played", `Played: ${d.played?.move?.text ?? "?"} (${measure} ${percent(d.played?.winProbability ?? 0)})`),
    line("best", same ? "Best: the move played" :
      `Best: ${d.best?.move?.text ?? "?"} (${measure} ${percent(d.best?.winProbability ?? 0)}), ` +
      `loss ${percent(d.winProbabilityLoss)}, ${d.scoreLoss.toFixed(2)} points`),
    line("variation", d.principalVariation.length
      ? `Line after the best: ${d.principalVariation.map((m) => m.text).join(" → ")}` : ""),
    line("swing", d.swing?.notable ? swingText(d.swing, d.target) : ""),
  );
  const board = $("review-board");
  board.replaceChildren(line("note", "Drawing the position…"));
  try {
    const seen = await positionBefore(run.furnace, run.game, d);
    if (running !== run || run.shown !== i) return;
    const drawn = seen ? drawBoard(run.game.info.name, seen.observation, {
      human: run.game.seat, scores: seen.scores, toMove: d.seat, catalogue: catalogueOf(run.game.info),
    }) : null;
    if (drawn) {
      const marked = markMoves(drawn, d.played?.move?.text ?? "", same ? "" : d.best?.move?.text ?? "");
      board.replaceChildren(drawn, line("marks", marked));
    } else {
      board.replaceChildren(line("note", "This game has no drawn board."));
    }
  } catch (error) {
    if (running !== run) return;
    board.replaceChildren(line("note", `The position could not be drawn: ${String(error)}`));
  }
}

/** The position before decision `d`'s move, as the reviewed seat saw it: carried by the
 * decision (a sealed game's review), else the deal (turn 0) or the record's first `turn`
 * moves replayed by the server, answered for that seat. */
async function positionBefore(furnace: Furnace, game: ReviewedGame, d: ReviewedDecision):
    Promise<{ observation: Observation; scores: number[] } | null> {
  if (d.view && Object.keys(d.view).length) {
    return { observation: d.view as Observation, scores: d.status?.scores ?? [] };
  }
  if (game.sealed) return null;
  const turn = d.turn;
  const stateFormat = StateFormat.JSON_OBJECT;
  const reply = turn === 0
    ? await furnace.newGame({ game: game.info.name, numPlayers: game.players, seed: seedOf(game),
                              observerSeat: game.seat, stateFormat })
    : await furnace.applyMove({ state: recordState(game, turn - 1), stateFormat,
                                move: (game.moves ?? [])[turn - 1] });
  const scores = reply.status?.scores ?? [];
  const state = reply.state?.state;
  if (state?.case === "jsonObject") return { observation: state.value as Observation, scores };
  return null;
}

// -- marks, key moments, steps --------------------------------------------------------------
/** Mark on `board` the components the played move's text names and those the best move's
 * names (as a hint lights them); the key of the marks, in words. */
function markMoves(board: SVGSVGElement, played: string, best: string): string {
  const playedWords = moveWords(played);
  const bestWords = moveWords(best);
  let playedMarked = 0;
  let bestMarked = 0;
  for (const part of board.querySelectorAll<SVGGElement>("g.part")) {
    const refs = (part.dataset.ref ?? "").split(" ");
    if (playedWords.some((w) => refs.includes(w))) {
      part.classList.add("played-move");
      playedMarked += 1;
    }
    if (bestWords.some((w) => refs.includes(w))) {
      part.classList.add("best-move");
      bestMarked += 1;
    }
  }
  const said: string[] = [];
  said.push(playedMarked ? "your move is outlined in orange" : "your move names nothing drawn");
  if (best) said.push(bestMarked ? "the best move in green, dashed" : "the best move names nothing drawn");
  else said.push("it was the best move");
  return `On the board: ${said.join("; ")}.`;
}

/** What moved the seat's forecast before a decision, and that it was not its own move. */
function swingText(swing: ForecastSwing, target: number | undefined): string {
  const what = target === undefined ? "win probability" : `chance of reaching ${target}`;
  const cause = [swing.opponents ? "the opponents' moves" : "", swing.chance ? "chance (what was drawn)" : ""]
    .filter(Boolean).join(" and ");
  const signed = (x: number, text: string): string => `${x >= 0 ? "+" : "−"}${text}`;
  return `Before this move your forecast ${swing.drop ? "fell" : "rose"} ` +
    `(${what} ${signed(swing.winProbability, percent(Math.abs(swing.winProbability)))}, ` +
    `${signed(swing.margin, Math.abs(swing.margin).toFixed(1))} points) ` +
    `through ${cause} since move ${swing.sinceTurn + 1}: not your move.`;
}

const REASONS: Record<number, string> = {
  [KeyMomentReason.MISTAKE]: "mistake", [KeyMomentReason.BLUNDER]: "blunder",
  [KeyMomentReason.DROP]: "your chances dropped before it", [KeyMomentReason.RISE]: "your chances rose before it",
};

/** The key moments as buttons, each showing its decision. */
function showMoments(run: Running): void {
  const list = $("review-moments");
  if (!run.moments.length) {
    list.replaceChildren();
    list.textContent = "Key moments: none (no mistake, no large swing).";
    return;
  }
  const heading = document.createElement("span");
  heading.textContent = "Key moments:";
  const buttons = run.moments.map((m) => {
    const button = document.createElement("button");
    button.className = "moment";
    button.dataset.index = String(m.index);
    button.textContent = `Move ${m.turn + 1}: ${m.reasons.map((r) => REASONS[r] ?? "?").join(", ")}`;
    button.addEventListener("click", () => void showDecision(run, m.index));
    return button;
  });
  list.replaceChildren(heading, ...buttons);
}

const isMistake = (d: ReviewedDecision): boolean => d.label === ReviewLabel.MISTAKE || d.label === ReviewLabel.BLUNDER;

/** The step buttons' targets from the shown decision (none while nothing is reviewed). */
function updateSteps(run: Running | null): void {
  const n = run?.decisions.length ?? 0;
  const shown = run?.shown ?? -1;
  $<HTMLButtonElement>("review-prev").disabled = !run || shown <= 0;
  $<HTMLButtonElement>("review-next").disabled = !run || shown + 1 >= n;
  $<HTMLButtonElement>("review-next-mistake").disabled =
    !run || !run.decisions.some((d, i) => i > shown && isMistake(d));
}

function step(to: (run: Running) => number): void {
  const run = running;
  if (!run) return;
  const i = to(run);
  if (i >= 0 && i < run.decisions.length) void showDecision(run, i);
}

let wired = false;

/** Wire the step buttons, the first time a review opens. */
function wireSteps(): void {
  if (wired) return;
  wired = true;
  $("review-prev").addEventListener("click", () => step((run) => run.shown - 1));
  $("review-next").addEventListener("click", () => step((run) => run.shown + 1));
  $("review-next-mistake").addEventListener("click", () =>
    step((run) => run.decisions.findIndex((d, i) => i > run.shown && isMistake(d))));
  updateSteps(null);
}
