// Plays a whole game of Samara (2 players) against a running Furnace server and
// shows how a client reads the details of an error.
//
//   furnace serve --port 50051 &
//   npm ci && npm run build
//   node dist/examples/play-samara.js --server localhost:50051 [--iterations 200]
//       [--seed 7] [--opponent bot|random] [--quiet]
//
// Seat 0 (P1) is the bot: BestMove picks its move, ApplyMove plays it.  Seat 1 (P2)
// is the bot too (--opponent bot, the default) or a stand-in for a human who picks
// a random legal move (--opponent random, from LegalMoves).  The last line is a JSON
// summary (prefixed "RESULT ") for scripts and the test
// (tests/clients/test_node_client.py).

import { parseArgs } from "node:util";

import {
  ConnectError,
  FurnaceClient,
  decodeErrorDetails,
  type ErrorDetails,
  type GameState,
  type GameStatus,
} from "../index.js";

const { values: args } = parseArgs({
  options: {
    server: { type: "string", default: "localhost:50051" },
    iterations: { type: "string", default: "200" },
    seed: { type: "string", default: "7" },
    opponent: { type: "string", default: "bot" },
    "max-moves": { type: "string", default: "2000" },
    quiet: { type: "boolean", default: false },
  },
});

const iterations = Number(args.iterations);
const seed = BigInt(args.seed);
const opponent = args.opponent;
if (opponent !== "bot" && opponent !== "random") {
  console.error(`--opponent must be bot or random, not ${opponent}`);
  process.exit(2);
}

/** "P1 (seat 0)": the player's name in renders and events, and its 0-based seat in the API. */
function player(seat: number): string {
  return `P${seat + 1} (seat ${seat})`;
}

/** A small seeded generator (mulberry32), so a run with --opponent random repeats. */
function rng(seedValue: number): () => number {
  let a = seedValue >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function log(line: string): void {
  if (!args.quiet) console.log(line);
}

/** Sends a move the rules forbid and decodes the error's details. */
async function showErrorDetails(client: FurnaceClient, state: GameState): Promise<ErrorDetails> {
  const illegal = "build r1c1 1+2+3";
  try {
    await client.applyMove(state, illegal);
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    const details = decodeErrorDetails(error);
    console.log(`ApplyMove "${illegal}" failed: ${details.codeName}: ${details.message}`);
    for (const violation of details.badRequest?.fieldViolations ?? []) {
      console.log(`  BadRequest field violation: field=${violation.field} description=${violation.description}`);
    }
    if (details.errorInfo) {
      const { reason, domain, metadata } = details.errorInfo;
      console.log(`  ErrorInfo: reason=${reason} domain=${domain} metadata=${JSON.stringify(metadata)}`);
    }
    if (details.retryInfo) console.log(`  RetryInfo: retry after ${details.retryInfo.retryDelay?.seconds}s`);
    return details;
  }
  throw new Error(`the server accepted the illegal move ${illegal}`);
}

async function main(): Promise<void> {
  const client = new FurnaceClient(args.server, { timeoutMs: 60_000 });

  const games = await client.listGames();
  const samara = games.games.find((g) => g.name === "samara");
  if (!samara) throw new Error(`the server at ${args.server} does not serve samara`);
  log(`${samara.title}: ${samara.minPlayers}-${samara.maxPlayers} players`);

  const game = await client.newGame("samara", 2, { seed });
  let state = game.state!;
  let status: GameStatus = game.status!;

  const details = await showErrorDetails(client, state);

  const random = rng(Number(seed));
  let moves = 0;
  while (!status.terminal) {
    if (moves >= Number(args["max-moves"])) throw new Error(`no end after ${moves} moves`);
    const seat = status.currentPlayer;
    let text: string;
    if (seat === 0 || opponent === "bot") {
      const reply = await client.bestMove(state, { seat, iterations, seed: seed + BigInt(moves) });
      text = reply.move!.text;
    } else {
      const legal = await client.legalMoves(state, { seat });
      text = legal.moves[Math.floor(random() * legal.moves.length)]!.text;
    }
    const applied = await client.applyMove(state, text, seat);
    state = applied.state!;
    status = applied.status!;
    moves += 1;
    log(`${String(moves).padStart(3)} ${player(seat)}: ${text}`);
  }

  console.log(`Game over after ${moves} moves.`);
  status.scores.forEach((score, seat) => console.log(`  ${player(seat)}: ${score} points`));
  const ranking = status.ranking.map((place) => place.seats.map((s) => `P${s + 1}`).join(" = "));
  console.log(`  ranking: ${ranking.join(", ")}`);

  const summary = {
    terminal: status.terminal,
    moves,
    scores: status.scores,
    ranking: status.ranking.map((place) => place.seats),
    error: {
      code: details.codeName,
      message: details.message,
      fieldViolations: (details.badRequest?.fieldViolations ?? []).map((v) => ({
        field: v.field,
        description: v.description,
      })),
      reason: details.errorInfo?.reason ?? null,
      domain: details.errorInfo?.domain ?? null,
    },
  };
  console.log(`RESULT ${JSON.stringify(summary)}`);
}

main().catch((error: unknown) => {
  if (error instanceof ConnectError) {
    const details = decodeErrorDetails(error);
    console.error(`error: ${details.codeName}: ${details.message}`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
