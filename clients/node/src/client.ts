// A small typed client of the Furnace service (furnace.v1) over native gRPC.
//
// The message types and the service descriptor are generated from
// proto/furnace/v1/furnace.proto by protoc-gen-es (`npm run generate`, into
// src/gen); calls go through @connectrpc/connect with the gRPC protocol over
// HTTP/2 (@connectrpc/connect-node's createGrpcTransport), so this client talks to
// `furnace serve` directly, with no proxy.
//
// Seats are 0-based, as everywhere in the API: seat 0 is the first player, "P1" in
// renders and events.

import { create, fromBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import {
  Code,
  ConnectError,
  createClient,
  type CallOptions,
  type Client,
  type Interceptor,
} from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import {
  FurnaceService,
  MoveSchema,
  OptionValueSchema,
  StateFormat,
  type AnalyzeResponse,
  type ApplyMoveResponse,
  type BestMoveResponse,
  type CheckMoveResponse,
  type EstimateScoresResponse,
  type GameState,
  type LegalMovesResponse,
  type ListGamesResponse,
  type Move,
  type NewGameResponse,
  type ReviewGameResponse,
} from "./gen/furnace/v1/furnace_pb.js";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  RetryInfoSchema,
  type BadRequest,
  type ErrorInfo,
  type RetryInfo,
} from "./gen/google/rpc/error_details_pb.js";
import { StatusSchema, type Status } from "./gen/google/rpc/status_pb.js";

export * from "./gen/furnace/v1/furnace_pb.js";
export { Code, ConnectError };

/** A move as the client methods take it: a Move, its id, or its text. */
export type MoveLike = Move | MessageInitShape<typeof MoveSchema> | bigint | number | string;

export interface FurnaceClientOptions {
  /** Deadline of every call, in milliseconds (default 30 s; 0: none). */
  timeoutMs?: number;
  /** A bearer token, sent as `authorization: Bearer TOKEN` (servers run with --token-file). */
  token?: string;
}

export interface SearchOptions {
  /** The seat to play for (0-based); default: the seat to move. */
  seat?: number;
  /** Iteration budget (reproducible with a seed). */
  iterations?: number;
  /** Time budget in milliseconds. */
  timeLimitMs?: number;
  seed?: bigint | number;
  maxCandidates?: number;
  /** Strength level, 1 (weakest) to 5 (0: none): its budget when none is given, and
   * BestMove's `move` is the level's choice (see BestMoveRequest.level). */
  level?: number;
}

export interface ReviewOptions {
  /** The seat whose decisions are reviewed (0-based); default: every seat. */
  seat?: number;
  /** Iterations of each search of a decision (a decision runs one search, or three). */
  iterations?: number;
  /** The most one decision may take, in milliseconds. */
  timeLimitMs?: number;
  seed?: bigint | number;
}

/** The raw connect client: every RPC, with the generated request and response types. */
export type FurnaceServiceClient = Client<typeof FurnaceService>;

/** Turns "host:port" into the base URL the transport wants (http: plaintext, https: TLS). */
export function baseUrl(address: string): string {
  return /^https?:\/\//.test(address) ? address : `http://${address}`;
}

/** A Move from an id, a text or a Move. */
export function toMove(move: MoveLike): Move {
  if (typeof move === "string") return create(MoveSchema, { text: move });
  if (typeof move === "number" || typeof move === "bigint") {
    return create(MoveSchema, { id: BigInt(move) });
  }
  return create(MoveSchema, move);
}

export class FurnaceClient {
  /** The generated service client, for anything the helpers below do not cover. */
  readonly rpc: FurnaceServiceClient;
  private readonly timeoutMs: number;

  constructor(address: string, options: FurnaceClientOptions = {}) {
    const interceptors: Interceptor[] = [];
    const token = options.token;
    if (token) {
      interceptors.push((next) => (request) => {
        request.header.set("authorization", `Bearer ${token}`);
        return next(request);
      });
    }
    const transport = createGrpcTransport({ baseUrl: baseUrl(address), interceptors });
    this.rpc = createClient(FurnaceService, transport);
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  private call(options?: CallOptions): CallOptions {
    return { timeoutMs: this.timeoutMs || undefined, ...options };
  }

  listGames(options?: CallOptions): Promise<ListGamesResponse> {
    return this.rpc.listGames({}, this.call(options));
  }

  newGame(
    game: string,
    numPlayers: number,
    extra: {
      /** The setup's seed; left out, the server draws one (NewGameResponse.seed). */
      seed?: bigint | number;
      options?: Record<string, MessageInitShape<typeof OptionValueSchema>>;
      stateFormat?: StateFormat;
    } = {},
    options?: CallOptions,
  ): Promise<NewGameResponse> {
    return this.rpc.newGame(
      {
        game,
        numPlayers,
        seed: extra.seed === undefined ? undefined : BigInt(extra.seed),
        options: extra.options ?? {},
        stateFormat: extra.stateFormat ?? StateFormat.UNSPECIFIED,
      },
      this.call(options),
    );
  }

  legalMoves(
    state: GameState,
    extra: { seat?: number; includeRender?: boolean } = {},
    options?: CallOptions,
  ): Promise<LegalMovesResponse> {
    return this.rpc.legalMoves(
      { state, seat: extra.seat, includeRender: extra.includeRender ?? false },
      this.call(options),
    );
  }

  checkMove(state: GameState, move: MoveLike, seat?: number, options?: CallOptions): Promise<CheckMoveResponse> {
    return this.rpc.checkMove({ state, move: toMove(move), seat }, this.call(options));
  }

  applyMove(state: GameState, move: MoveLike, seat?: number, options?: CallOptions): Promise<ApplyMoveResponse> {
    return this.rpc.applyMove({ state, move: toMove(move), seat }, this.call(options));
  }

  bestMove(state: GameState, search: SearchOptions = {}, options?: CallOptions): Promise<BestMoveResponse> {
    return this.rpc.bestMove(
      {
        state,
        seat: search.seat,
        budget: { iterations: BigInt(search.iterations ?? 0), timeLimitMs: search.timeLimitMs ?? 0 },
        seed: BigInt(search.seed ?? 0),
        maxCandidates: search.maxCandidates ?? 0,
        level: search.level ?? 0,
      },
      this.call(options),
    );
  }

  /** The Analyze stream: updates until the one with `final` set. */
  analyze(
    state: GameState,
    search: SearchOptions & { updateIntervalMs?: number } = {},
    options?: CallOptions,
  ): AsyncIterable<AnalyzeResponse> {
    return this.rpc.analyze(
      {
        state,
        seat: search.seat,
        budget: { iterations: BigInt(search.iterations ?? 0), timeLimitMs: search.timeLimitMs ?? 0 },
        seed: BigInt(search.seed ?? 0),
        maxCandidates: search.maxCandidates ?? 0,
        updateIntervalMs: search.updateIntervalMs ?? 0,
        level: search.level ?? 0,
      },
      this.call(options),
    );
  }

  /**
   * The ReviewGame stream: one `decision` per reviewed decision of the record (a
   * GameState holding a `record`), then one `summary` per seat.  Neither budget: the
   * game's review budget.  The call's deadline covers the whole review: give a long
   * `timeoutMs` in `options` for a whole game.
   */
  reviewGame(
    state: GameState,
    review: ReviewOptions = {},
    options?: CallOptions,
  ): AsyncIterable<ReviewGameResponse> {
    return this.rpc.reviewGame(
      {
        state,
        seat: review.seat,
        budget: { iterations: BigInt(review.iterations ?? 0), timeLimitMs: review.timeLimitMs ?? 0 },
        seed: BigInt(review.seed ?? 0),
      },
      this.call(options),
    );
  }

  estimateScores(
    state: GameState,
    extra: { playouts?: number; seed?: bigint | number } = {},
    options?: CallOptions,
  ): Promise<EstimateScoresResponse> {
    return this.rpc.estimateScores(
      { state, playouts: extra.playouts ?? 0, seed: BigInt(extra.seed ?? 0) },
      this.call(options),
    );
  }
}

/** What a failed call says: its code and message, and the details of its google.rpc.Status. */
export interface ErrorDetails {
  code: Code;
  /** The code's name as gRPC spells it, e.g. "INVALID_ARGUMENT". */
  codeName: string;
  message: string;
  /** The google.rpc.Status decoded from the `grpc-status-details-bin` trailer (none: no trailer). */
  status?: Status;
  /** Which request field was wrong and why. */
  badRequest?: BadRequest;
  /** The machine-readable reason (domain "furnace.v1"). */
  errorInfo?: ErrorInfo;
  /** When to retry (RESOURCE_EXHAUSTED, UNAVAILABLE). */
  retryInfo?: RetryInfo;
  /** type URLs of details this client does not know (skip them). */
  unknownDetails: string[];
}

const STATUS_DETAILS_TRAILER = "grpc-status-details-bin";

/** `Code.InvalidArgument` -> "INVALID_ARGUMENT". */
export function codeName(code: Code): string {
  return (Code[code] ?? String(code)).replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/**
 * Decodes the error details of a failed call.  The server puts a serialized
 * google.rpc.Status in the `grpc-status-details-bin` trailer (binary metadata,
 * base64 on the wire); each of its `details` is a google.protobuf.Any holding a
 * google.rpc.BadRequest, ErrorInfo or RetryInfo.  A call refused by gRPC itself
 * (server unreachable, message too large) has no trailer: code and message only.
 */
export function decodeErrorDetails(error: unknown): ErrorDetails {
  const err = ConnectError.from(error);
  const result: ErrorDetails = {
    code: err.code,
    codeName: codeName(err.code),
    message: err.rawMessage,
    unknownDetails: [],
  };
  const trailer = err.metadata.get(STATUS_DETAILS_TRAILER);
  if (!trailer) return result;
  const status = fromBinary(StatusSchema, Buffer.from(trailer, "base64"));
  result.status = status;
  result.message = status.message || result.message;
  for (const detail of status.details) {
    const badRequest = anyUnpack(detail, BadRequestSchema);
    const errorInfo = badRequest ? undefined : anyUnpack(detail, ErrorInfoSchema);
    const retryInfo = badRequest || errorInfo ? undefined : anyUnpack(detail, RetryInfoSchema);
    if (badRequest) result.badRequest = badRequest;
    else if (errorInfo) result.errorInfo = errorInfo;
    else if (retryInfo) result.retryInfo = retryInfo;
    else result.unknownDetails.push(detail.typeUrl);
  }
  return result;
}
