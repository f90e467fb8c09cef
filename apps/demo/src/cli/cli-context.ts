/** A stream the CLI writes to (`process.stdout`, or a test's capture). */
export interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

/** What the CLI reads and writes besides its arguments. */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: NodeJS.ProcessEnv;
  /** Relative paths (`--journal`, `--workspace`) resolve against it. */
  cwd: string;
  /** The file the user ran (for the commands the CLI prints, e.g. how to resume). */
  binPath: string;
}

/** Shared by the commands of one `main` call. */
export interface CliContext {
  io: CliIo;
  /** The exit code the finished command chose. */
  exitCode: number;
}
