import 'reflect-metadata';

import { Command, CommanderError } from 'commander';

import { exitCodes, reportFailure } from './cli-output';

/**
 * Each command's module, loaded only when it runs: together they pull in Nest, TypeORM, Temporal, the agents and
 * their SDKs (about 16 s of module loading on a loaded machine), which `mirror ingest` of one spec never needs.
 */
const commands: Record<string, () => Promise<Command>> = {
  ingest: async () => (await import('./commands/ingest.command')).ingestCommand(),
  serve: async () => (await import('./commands/serve.command')).serveCommand(),
  up: async () => (await import('./commands/up.command')).upCommand(),
  run: async () => (await import('./commands/run.command')).runCommand(),
  grade: async () => (await import('./commands/grade.command')).gradeCommand(),
  check: async () => (await import('./commands/check.command')).checkCommand(),
  rollout: async () => (await import('./commands/rollout.command')).rolloutCommand(),
  diff: async () => (await import('./commands/diff.command')).diffCommand(),
  types: async () => (await import('./commands/types.command')).typesCommand(),
  schema: async () => (await import('./commands/schema.command')).schemaCommand(),
  db: async () => (await import('./commands/db.command')).dbCommand(),
  audit: async () => (await import('./commands/audit.command')).auditCommand(),
  report: async () => (await import('./commands/report.command')).reportCommand(),
  config: async () => (await import('./commands/config.command')).configCommand(),
  keys: async () => (await import('./commands/keys.command')).keysCommand(),
};

/** The program with the named command, or with every command when none is named (help, a mistyped name). */
export const buildProgram = async (name?: string): Promise<Command> => {
  const program = new Command('mirror')
    .description('Mirror: safe digital twins of a company stack for training and auditing AI agents')
    .exitOverride()
    .showHelpAfterError();
  const load = name !== undefined && Object.hasOwn(commands, name) ? [commands[name]] : Object.values(commands);
  for (const command of await Promise.all(load.map((loadCommand) => loadCommand()))) {
    program.addCommand(command.exitOverride());
  }
  return program;
};

/** Commands that host no server nor database, kept quick to start: nothing of theirs logs through Nest. */
const withoutServers = new Set(['ingest', 'diff', 'types', 'schema', 'config']);

export const run = async (argv: string[]): Promise<number> => {
  const json = argv.includes('--json');
  try {
    if (argv[0] !== undefined && Object.hasOwn(commands, argv[0]) && !withoutServers.has(argv[0])) {
      (await import('./process-logging')).useRedactingLogs();
    }
    await (await buildProgram(argv[0])).parseAsync(argv, { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successful exits; anything else commander refuses is a usage error.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.invalidInput;
    }
    return reportFailure(error, json);
  }
};

/**
 * Ends the process with the command's exit code. A failed command ends at once: it has said why, and what it
 * started but could not stop (a database driver's pool, a socket) must not keep it alive after the message.
 */
export const exitWith = (code: number): void => {
  process.exitCode = code;
  if (code !== exitCodes.ok) {
    process.exit(code);
  }
};

if (require.main === module) {
  void run(process.argv.slice(2)).then(exitWith);
}
