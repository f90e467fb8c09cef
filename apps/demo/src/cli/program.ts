import { Command } from 'commander';
import { version } from '../version';
import type { CliContext } from './cli-context';
import { registerDemoCommand } from './commands/demo-command';
import { registerReportCommand } from './commands/report-command';
import { registerResumeCommand } from './commands/resume-command';
import { registerRunCommand } from './commands/run-command';
import { registerCoordinatorCommand, registerWorkerCommand } from './commands/scale-out-commands';
import { registerServeCommand } from './commands/serve-command';

/**
 * The `closedloop` program: one commander command per subcommand, each registered by its own
 * module (`commands/*-command.ts`), so adding one is one file and one line here. Errors never
 * exit the process: commander throws (`exitOverride`) and `main` turns that into an exit code.
 */
export function createProgram(context: CliContext): Command {
  const { io } = context;
  const program = new Command('closedloop')
    .description(
      'LLM agents that prove their work: plan a DAG, run real tools, verify every step from evidence',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => io.stdout.columns ?? 100,
      getErrHelpWidth: () => io.stderr.columns ?? 100,
    })
    .showHelpAfterError('Run "closedloop --help" for the commands.');
  registerDemoCommand(program, context);
  registerRunCommand(program, context);
  registerResumeCommand(program, context);
  registerReportCommand(program, context);
  registerServeCommand(program, context);
  registerCoordinatorCommand(program, context);
  registerWorkerCommand(program, context);
  program.addHelpText(
    'after',
    [
      '',
      'Examples:',
      '  closedloop demo                                  the offline scenario (no key, no network)',
      '  closedloop run "Add isPrime with tests" --provider openai   (OPENAI_API_KEY set)',
      '  closedloop serve                                 the web UI on http://127.0.0.1:4173',
      '  closedloop coordinator --store redis://127.0.0.1:6379   scale-out: drive runs queued in Redis',
      '  closedloop worker --store redis://127.0.0.1:6379        scale-out: run their steps (any number, any machine)',
    ].join('\n'),
  );
  return program;
}
