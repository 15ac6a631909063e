import * as fs from 'node:fs';

import { Command } from 'commander';

import { silentLog, stderrLog } from '@libs/embedded-services';
import { exportEvidenceAudited, verifyTrail } from '@libs/episode-host';
import {
  AuditEntry,
  bundleVersions,
  commandLineActor,
  describeVersions,
  isJsonObject,
  keyFingerprint,
  publicKeyOf,
  verifyEvidenceBundle,
} from '@libs/evidence-trail';
import { AuditTrailRepository } from '@libs/persistence';
import { printJson, ReportedFailure, UsageError } from '@cli/cli-output';
import { withDatabase } from '@cli/database-session';

const readBundle = (file: string): unknown => {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
};

export const auditCommand = (): Command => {
  const audit = new Command('audit').description(
    'the evidence trail: verify the hash chain or an exported bundle, export evidence, show the signing key',
  );

  audit
    .command('verify')
    .description("check the tenant's hash chain (or, with --bundle, an exported evidence bundle, offline)")
    .option('--bundle <file>', 'verify an evidence bundle file without any database')
    .option('--key <fingerprint>', 'with --bundle: the fingerprint the signing key must have (`mirror audit key`)')
    .option(
      '--deep',
      "also check each ended or graded episode's event log and its calls that changed nothing (reads) against what its end or grading recorded, every episode's chain of calls link by link, and name the calls no entry vouches for yet",
    )
    .option('--json', 'print the result as JSON')
    .action(async (options: { bundle?: string; key?: string; deep?: boolean; json?: boolean }) => {
      if (options.bundle) {
        const bundle = readBundle(options.bundle);
        const problems = verifyEvidenceBundle(bundle, options.key);
        // What produced the evidence (stack, world seed, scenario by id and digest, policies, grader, models): read
        // from a valid bundle only, since an invalid one vouches for nothing.
        const versions =
          problems.length === 0 && isJsonObject(bundle) ? bundleVersions(bundle.entries as AuditEntry[]) : [];
        if (options.json) {
          printJson({ file: options.bundle, valid: problems.length === 0, problems, versions });
        } else if (problems.length === 0) {
          process.stdout.write(`${options.bundle}: valid evidence bundle\n`);
          for (const subject of versions) {
            process.stdout.write(`  ${describeVersions(subject)}\n`);
          }
        } else {
          process.stderr.write(`${options.bundle}: NOT valid\n`);
          for (const problem of problems) {
            process.stderr.write(`  ${options.bundle}#${problem.pointer}: ${problem.message}\n`);
          }
        }
        if (problems.length > 0) {
          throw new ReportedFailure();
        }
        return;
      }
      const result = await withDatabase(options.json ? silentLog : stderrLog, ({ config, dataSource }) =>
        verifyTrail(dataSource, config.MIRROR_TENANT, { deep: options.deep }),
      );
      const { valid } = result;
      if (options.json) {
        printJson(result);
      } else if (valid) {
        process.stdout.write(
          `tenant ${result.tenant}: ${result.entries} entries, chain intact; head ${result.head.seq} ${result.head.hash}\n`,
        );
        // Not a fault: calls of an episode still open, or answered after its end and never graded, chain only to each other.
        for (const { episodeId, from, to } of result.unvouched ?? []) {
          process.stdout.write(
            `tenant ${result.tenant}: episode ${episodeId}'s ${from === to ? `call ${from} is` : `calls ${from}–${to} are`} vouched for by no entry yet (linked, not committed)\n`,
          );
        }
      } else {
        if (result.broken) {
          process.stderr.write(
            `tenant ${result.tenant}: chain BROKEN at entry ${result.broken.seq}: ${result.broken.message}\n`,
          );
        }
        for (const drift of result.drifted) {
          process.stderr.write(`tenant ${result.tenant}: ${drift.message}\n`);
        }
      }
      if (!valid) {
        throw new ReportedFailure();
      }
    });

  audit
    .command('export')
    .description(
      'write a signed evidence bundle of an episode or a rollout (verify it with `mirror audit verify --bundle`)',
    )
    .argument('<kind>', 'episode or rollout')
    .argument('<id>', 'its id')
    .requiredOption('-o, --output <file>', 'the bundle file to write')
    .action(async (kind: string, id: string, options: { output: string }) => {
      if (kind !== 'episode' && kind !== 'rollout') {
        throw new UsageError(`no evidence of "${kind}"; kinds: episode, rollout`);
      }
      const exported = await withDatabase(stderrLog, ({ config, dataSource }) =>
        exportEvidenceAudited(
          dataSource,
          config.MIRROR_TENANT,
          { kind, id },
          { actor: commandLineActor(), actorKind: 'admin' },
        ),
      );
      if (!exported) {
        throw new UsageError(`the evidence trail has no entry about ${kind} "${id}"`);
      }
      const { bundle, text } = exported;
      // Written whole or not at all: a reviewer never receives half a bundle.
      const partial = `${options.output}.${process.pid}.partial`;
      fs.writeFileSync(partial, text);
      fs.renameSync(partial, options.output);
      process.stdout.write(
        `${options.output}: ${bundle.entries.length} entries, ${bundle.episodes.length} episodes, Merkle root ${bundle.merkleRoot}, ` +
          `signed by ${keyFingerprint(bundle.signature.publicKey)}\n`,
      );
    });

  audit
    .command('key')
    .description("print the fingerprint of this installation's evidence-signing key (pin it with `verify --key`)")
    .action(async () => {
      const key = await withDatabase(stderrLog, ({ dataSource }) => new AuditTrailRepository(dataSource).signingKey());
      const publicKey = publicKeyOf(key);
      process.stdout.write(`${keyFingerprint(publicKey)}  Ed25519 ${publicKey}\n`);
    });

  return audit;
};
