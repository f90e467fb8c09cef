/** The message of a thrown value (`Error.message`, else its string form). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The string `code` of a thrown value (`CortexError`, `ModelError`, Node errors…), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
