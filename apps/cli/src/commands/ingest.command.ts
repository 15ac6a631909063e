import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { commandLineActor } from '@libs/evidence-trail';
import { ingestStack, StackModel, summarizeStack } from '@libs/stack-ingestion';
import { printJson } from '@cli/cli-output';
import { lenientOption, outsideRefsOption } from '@cli/command-arguments';

interface IngestOptions {
  lenient?: boolean;
  json?: boolean;
  /** Undefined unless --store or --no-store is given: then a configured DATABASE_URL decides. */
  store?: boolean;
  allowOutsideRefs?: boolean;
}

/** Why a stack was not stored, for the summary: asked not to, or no database to store it in. */
const notStoredReasons = {
  asked: '  not stored (--no-store)\n',
  noDatabase:
    '  not stored: no DATABASE_URL (pass --store to keep it in the embedded database under MIRROR_DATA_DIR)\n',
};

const shownWarnings = 25;

const printSummary = (
  model: StackModel,
  id: string | null,
  version: string,
  created: boolean | null,
  ms: number,
  notStored: string,
): void => {
  const out = process.stdout;
  out.write(`Stack ${model.name}  version ${version.slice(0, 12)}${id ? `  id ${id}` : ''}\n`);
  out.write(
    created === null
      ? notStored
      : created
        ? '  stored as a new version\n'
        : '  unchanged: this version was already stored\n',
  );
  out.write(`  ingested in ${Math.round(ms)} ms\n\n`);
  const rows = model.services.map((s) => [
    s.name,
    s.dialect,
    String(s.operations.length),
    String(s.resources.length),
    String(s.webhooks.length),
  ]);
  const header = ['service', 'dialect', 'operations', 'resources', 'webhooks'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [header, ...rows]) {
    out.write(`  ${row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')}\n`);
  }
  if (model.entities.length > 0) {
    out.write(
      `\n  entities: ${model.entities.map((e) => `${e.name}${e.resources.length ? ` → ${e.resources.join(', ')}` : ''}`).join('; ')}\n`,
    );
    out.write(
      `  relations: ${model.relations.map((r) => `${r.from.entity}.${r.from.fields.join(',')} → ${r.to.entity}${r.origin === 'inferred' ? ' (inferred)' : ''}`).join('; ') || 'none'}\n`,
    );
  }
  if (model.warnings.length > 0) {
    out.write(`\n  ${model.warnings.length} warning${model.warnings.length === 1 ? '' : 's'}:\n`);
    // Enough for one warning per skipped SQL statement kind, so a schema dump's losses are all on screen.
    for (const warning of model.warnings.slice(0, shownWarnings)) {
      out.write(`    ${warning.location}: ${warning.message}\n`);
    }
    if (model.warnings.length > shownWarnings) {
      out.write(`    … ${model.warnings.length - shownWarnings} more (see --json)\n`);
    }
  }
};

export const ingestCommand = (): Command =>
  new Command('ingest')
    .description(
      'ingest a stack bundle (folder with mirror.yaml, spec file, or .zip/.tar.gz): check it, model it, and store the model when a database is configured',
    )
    .argument('<path>', 'bundle folder, OpenAPI/Swagger file or archive')
    .option('--json', 'print the result as JSON')
    .option('--store', 'store the model even without DATABASE_URL (in the embedded database)')
    .option('--no-store', 'check and model the bundle without storing it, even with DATABASE_URL')
    .addOption(outsideRefsOption())
    .addOption(lenientOption())
    .action(async (path: string, options: IngestOptions) => {
      const { model, version, stats } = await ingestStack({
        kind: 'path',
        path,
        allowOutsideRefs: options.allowOutsideRefs === true,
        lenient: options.lenient === true,
      });
      const log = options.json ? silentLog : stderrLog;
      // Checking a spec is the engineer's feedback loop: no database starts unless one is configured or asked for.
      const store = options.store ?? Boolean(process.env.DATABASE_URL);
      const stored = store
        ? await (
            await import('@cli/database-session')
          ).withDatabase(log, ({ config, stacks }) =>
            stacks.saveVersion(config.MIRROR_TENANT, version, model, {
              actor: commandLineActor(),
              actorKind: 'engineer',
            }),
          )
        : undefined;
      if (options.json) {
        printJson({
          ...summarizeStack(model, { id: stored?.stackId ?? null, version }),
          stored: stored?.created ?? false,
        });
      } else {
        printSummary(
          model,
          stored?.stackId ?? null,
          version,
          stored ? stored.created : null,
          stats.milliseconds,
          options.store === false ? notStoredReasons.asked : notStoredReasons.noDatabase,
        );
      }
    });
