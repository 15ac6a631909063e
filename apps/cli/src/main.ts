import 'reflect-metadata';

import { Command, CommanderError } from 'commander';

import { auditCommand } from './commands/audit.command';
import { checkCommand } from './commands/check.command';
import { configCommand } from './commands/config.command';
import { dbCommand } from './commands/db.command';
import { diffCommand } from './commands/diff.command';
import { ingestCommand } from './commands/ingest.command';
import { gradeCommand } from './commands/grade.command';
import { rolloutCommand } from './commands/rollout.command';
import { runCommand } from './commands/run.command';
import { schemaCommand } from './commands/schema.command';
import { serveCommand } from './commands/serve.command';
import { typesCommand } from './commands/types.command';
import { upCommand } from './commands/up.command';
import { exitCodes, reportFailure } from './cli-output';

export const buildProgram = (): Command => {
  const program = new Command('mirror')
    .description('Mirror: safe digital twins of a company stack for training and auditing AI agents')
    .exitOverride()
    .showHelpAfterError();
  for (const command of [
    ingestCommand(),
    serveCommand(),
    upCommand(),
    runCommand(),
    gradeCommand(),
    checkCommand(),
    rolloutCommand(),
    diffCommand(),
    typesCommand(),
    schemaCommand(),
    dbCommand(),
    auditCommand(),
    configCommand(),
  ]) {
    program.addCommand(command.exitOverride());
  }
  return program;
};

export const run = async (argv: string[]): Promise<number> => {
  const json = argv.includes('--json');
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successful exits; anything else commander refuses is a usage error.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.invalidInput;
    }
    return reportFailure(error, json);
  }
};

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
