/** Options of {@link createToolCallIds}. */
export interface ToolCallIdsOptions {
  /**
   * The id as the API accepts it: the same id when it is valid, else a valid one derived from it,
   * the same for the same input (results are paired by calling it again). Called with `''` never.
   */
  normalize: (id: string) => string;
  /** Prefix of the id given to a call without one: `call_` gives `call_0`, `call_1`, … */
  emptyPrefix: string;
}

/** The id pairing of one request: see {@link createToolCallIds}. */
export interface ToolCallIds {
  /** A new assistant turn starts: its calls' results follow. */
  startTurn(): void;
  /** The id to send for a call of the current turn: valid, and unique in the request. */
  call(id: string): string;
  /**
   * The id to send for a tool result: that of the latest turn's call with this id (two calls
   * with one id are paired with their results in order), else the id made valid.
   */
  result(id: string): string;
}

/**
 * Tool-call ids as an API pairs them: valid for it and unique in the request. History from other
 * providers breaks this — empty ids, llama.cpp and Ollama restarting at `call_0` every turn,
 * Kimi's `functions.read_file:0`, Codex's ids longer than 64 characters — and the API rejects the
 * request or pairs a result with the wrong call. Ids that are valid and new pass unchanged;
 * others are rewritten, and each tool result follows its call's new id. Build one per request.
 *
 * @example
 * const ids = createToolCallIds({ normalize: (id) => id.slice(0, 64), emptyPrefix: 'call_' });
 * ids.startTurn();
 * const sent = ids.call(call.id); // … then ids.result(message.toolCallId) for its result
 */
export function createToolCallIds(options: ToolCallIdsOptions): ToolCallIds {
  const { normalize, emptyPrefix } = options;
  const used = new Set<string>();
  // The latest assistant turn's calls: original id → the ids sent for it, in order.
  let turn = new Map<string, string[]>();
  return {
    startTurn() {
      turn = new Map();
    },
    call(id) {
      const base = normalize(id === '' ? `${emptyPrefix}${used.size}` : id);
      let sent = base;
      for (let n = 2; used.has(sent); n++) sent = normalize(`${base}_${n}`);
      used.add(sent);
      const sentIds = turn.get(id);
      if (sentIds) sentIds.push(sent);
      else turn.set(id, [sent]);
      return sent;
    },
    result(id) {
      const sentIds = turn.get(id);
      if (!sentIds) return normalize(id === '' ? `${emptyPrefix}unknown` : id);
      return (sentIds.length > 1 ? sentIds.shift() : sentIds[0]) as string;
    },
  };
}

/**
 * A short, stable digest of an id (FNV-1a, base 36), for building a valid id from an invalid
 * one: the same input gives the same digest, so a call and its result stay paired.
 */
export function idDigest(id: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) {
    hash ^= id.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

/**
 * The ids of one response's tool calls, each its own: the provider's id when it sent one not yet
 * used in the response, `<id>_2`, `<id>_3`, … for an id used again (a gateway that numbers every
 * response's calls from the same id, or derives them from the tool name), `<prefix><n>` for a
 * call without one. Results are paired with calls by id, so two calls of one answer must never
 * share one. Call the returned function once per call, in order.
 *
 * @example
 * const idOf = responseToolCallIds('toolu_');
 * [idOf('toolu_1'), idOf('toolu_1'), idOf(undefined)] // ['toolu_1', 'toolu_1_2', 'toolu_2']
 */
export function responseToolCallIds(prefix: string): (id: string | null | undefined) => string {
  const used = new Set<string>();
  return (id) => {
    const base = typeof id === 'string' && id.trim() !== '' ? id : `${prefix}${used.size}`;
    let unique = base;
    for (let n = 2; used.has(unique); n++) unique = `${base}_${n}`;
    used.add(unique);
    return unique;
  };
}
