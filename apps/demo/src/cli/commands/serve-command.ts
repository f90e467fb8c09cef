import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import {
  action,
  addJournalOption,
  addModelOptions,
  addStoreOption,
  type ModelFlags,
  portNumber,
  usageAfterError,
} from '../cli-options';
import { loadRunCommandParts } from './load-on-use';

/** `closedloop serve`: the web UI over the same runner. */
export function registerServeCommand(program: Command, context: CliContext): void {
  const command = addStoreOption(
    addJournalOption(
      addModelOptions(
        program
          .command('serve')
          .description('the web UI: start runs, watch them, approve, resume')
          .option('--host <addr>', 'interface to listen on (loopback only by default)', '127.0.0.1')
          .option('--port <n>', 'port (0 = any free port)', portNumber, 4173),
      ),
    ),
  );
  usageAfterError(command);
  action(
    command,
    context,
    async (flags: ModelFlags & { host: string; port: number; journal?: string; store?: string }) => {
      const { io } = context;
      // Loaded on use, so `--help` and `--version` stay fast.
      const [{ resolveModel, selectModel }, { reachStore }, { startWebServer }, { runnerFromFlags }] =
        await Promise.all([
          import('../../runner/select-model'),
          import('../../scale-out/scale-out-runner'),
          import('../../server/web-server'),
          loadRunCommandParts(),
        ]);
      const selection = selectModel(
        { provider: flags.provider, model: flags.model, baseURL: flags.baseUrl },
        io.env,
      );
      // A chosen model must be usable before the page offers it (its key set, its server up).
      if (selection) await resolveModel(selection, io.env);
      if (flags.store !== undefined) await reachStore(flags.store);
      const runner = runnerFromFlags(context, {
        ...(flags.journal !== undefined ? { journal: flags.journal } : {}),
        ...(flags.store !== undefined ? { store: flags.store } : {}),
      })(selection);
      const server = await startWebServer({
        host: flags.host,
        port: flags.port,
        journalDir: runner.journal,
        ...runner,
      });
      const model = runner.model
        ? `typed tasks run on ${runner.model.provider}/${runner.model.modelId}`
        : 'no model configured: the page runs the offline demo; add --provider (and its key) for typed tasks';
      const where = flags.store ? `runs in ${flags.store}; ` : '';
      io.stdout.write(`closedloop web UI: ${server.url}  (${where}${model}; Ctrl-C to stop)\n`);
      if (server.url.includes('token=')) {
        io.stderr.write(
          'note: listening beyond loopback; the URL carries an access token: share it only with people who may run tasks here.\n',
        );
      }
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
      await server.close();
      if ('close' in runner && typeof runner.close === 'function') await runner.close();
      return 0;
    },
  );
}
