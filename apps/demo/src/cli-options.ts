import { parseArgs } from 'node:util';

/** Providers the CLI can drive. `scripted` is the offline demo model. */
export const providerNames = ['scripted', 'openai', 'anthropic', 'openai-compatible'] as const;
export type ProviderName = (typeof providerNames)[number];

export type CliCommand =
  | { kind: 'run'; task: string | undefined; options: RunOptions }
  | { kind: 'resume'; runId: string; options: RunOptions }
  | { kind: 'report'; runId: string; options: RunOptions }
  | { kind: 'serve'; host: string; port: number; options: RunOptions }
  | { kind: 'worker'; groups: string[]; shared: boolean; options: RunOptions & { store: string } }
  | { kind: 'coordinator'; options: RunOptions & { store: string } }
  | { kind: 'help' };

export interface RunOptions {
  provider: ProviderName;
  model: string | undefined;
  baseURL: string | undefined;
  mode: 'single' | 'auto';
  workspace: string | undefined;
  concurrency: number;
  maxIterations: number;
  budgetTokens: number | undefined;
  json: boolean;
  journal: string;
  /** `--store redis://…`: runs live in Redis (scale-out: coordinators and workers), not in `journal`. */
  store?: string | undefined;
}

/** A command line the CLI cannot act on; the message says what to do instead. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

export const usage = `closedloop — LLM agents that prove their work

Usage:
  closedloop run ["<task>"] [options]   run a task (default: the offline isPrime scenario)
  closedloop resume <runId> [options]   continue an interrupted run from its journal
  closedloop report <runId> [options]   re-render a finished run from its journal
  closedloop serve [--host h] [--port n] the web UI (default http://127.0.0.1:4173)
  closedloop coordinator --store <url>  drive queued runs (scale-out; takes over runs of a dead coordinator)
  closedloop worker --store <url>       run steps of any queued run (scale-out; any number, any machine)

Options:
  --provider <name>        scripted | openai | anthropic | openai-compatible   (default: scripted)
  --model <id>             model id, e.g. gpt-4.1 or claude-sonnet-4-5
  --base-url <url>         OpenAI-compatible server, e.g. http://localhost:11434/v1
  --mode <single|auto>     single: one successful action per step; auto: up to five (default: auto)
  --workspace <dir>        folder the agent works in (default: a fresh temp folder)
  --concurrency <n>        steps run at once (default: 4)
  --max-iterations <n>     goal-level iterations (default: 3)
  --budget <tokens>        stop when this many tokens were used
  --journal <dir>          where run journals are kept (default: .closedloop/runs)
  --store <redis-url>      keep runs in Redis instead (redis://host:6379): run/resume queue the run for a
                           coordinator, report/serve read it from any machine
  --group <name>           worker: also run steps of runs pinned to this group (repeatable)
  --groups-only            worker: only the --group queues, not the shared one
  --json                   print the full RunResult as JSON on stdout
  --host <addr>, --port <n>  where "serve" listens (default 127.0.0.1:4173; 0 = any free port)
  -h, --help               this text
`;

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new CliUsageError(`--${name} must be a whole number ≥ 1, got "${value}".`);
  }
  return parsed;
}

/** Parses argv (without `node` and the script path) into a command. Throws `CliUsageError`. */
export function parseCli(argv: string[]): CliCommand {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      provider: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      mode: { type: 'string' },
      workspace: { type: 'string' },
      concurrency: { type: 'string' },
      'max-iterations': { type: 'string' },
      budget: { type: 'string' },
      journal: { type: 'string' },
      store: { type: 'string' },
      group: { type: 'string', multiple: true },
      'groups-only': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      host: { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { kind: 'help' };

  const provider = values.provider ?? (values['base-url'] ? 'openai-compatible' : 'scripted');
  if (!providerNames.includes(provider as ProviderName)) {
    throw new CliUsageError(`Unknown provider "${provider}". Use one of: ${providerNames.join(', ')}.`);
  }
  const mode = values.mode ?? 'auto';
  if (mode !== 'single' && mode !== 'auto') {
    throw new CliUsageError(`--mode must be "single" or "auto", got "${mode}".`);
  }
  const options: RunOptions = {
    provider: provider as ProviderName,
    model: values.model,
    baseURL: values['base-url'],
    mode,
    workspace: values.workspace,
    concurrency: positiveInt('concurrency', values.concurrency, 4),
    maxIterations: positiveInt('max-iterations', values['max-iterations'], 3),
    budgetTokens: values.budget === undefined ? undefined : positiveInt('budget', values.budget, 1),
    json: values.json ?? false,
    journal: values.journal ?? '.closedloop/runs',
    store: values.store,
  };

  const [command = 'run', ...rest] = positionals;
  switch (command) {
    case 'run':
      return { kind: 'run', task: rest.join(' ') || undefined, options };
    case 'resume':
    case 'report': {
      const runId = rest[0];
      if (!runId)
        throw new CliUsageError(`"closedloop ${command}" needs a run id: closedloop ${command} <runId>.`);
      return { kind: command, runId, options };
    }
    case 'serve': {
      const port = values.port === undefined ? 4173 : Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new CliUsageError(`--port must be a port number 0-65535, got "${values.port}".`);
      }
      return { kind: 'serve', host: values.host ?? '127.0.0.1', port, options };
    }
    case 'worker':
    case 'coordinator': {
      if (!options.store) {
        throw new CliUsageError(
          `"closedloop ${command}" needs --store redis://host:port (the Redis its runs live in).`,
        );
      }
      const withStore = { ...options, store: options.store };
      return command === 'worker'
        ? { kind: 'worker', groups: values.group ?? [], shared: !values['groups-only'], options: withStore }
        : { kind: 'coordinator', options: withStore };
    }
    default:
      throw new CliUsageError(
        `Unknown command "${command}". Commands: run, resume, report, serve, coordinator, worker.`,
      );
  }
}
