import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import Ajv2020 from 'ajv/dist/2020';
import { parseAllDocuments, parse } from 'yaml';

import { mirrorConfigSchema, settingsMarkdown } from '@libs/config';

import { composeSpecSchema, helmBinary } from '../support/deploy-tools';

/**
 * deploy/ checked as far as this machine allows without a container engine: the Compose file against the Compose
 * Specification's own schema (after interpolation, as `docker compose config` does), the Helm chart linted and rendered
 * by Helm itself and its objects inspected, the Dockerfile's shape, and the settings table against the config schema.
 */
const root = path.resolve(__dirname, '../..');
const deploy = (...parts: string[]): string => path.join(root, 'deploy', ...parts);
const settings = new Set(Object.keys(mirrorConfigSchema.shape));

/** Compose's interpolation: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`, `$$`. */
const interpolate = (text: string, env: Record<string, string>): string =>
  text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])((?:[^{}]|\{[^{}]*\})*))?\}/g,
    (all, name, colon, kind, arg) => {
      if (all === '$$') {
        return '$';
      }
      const value = env[name as string];
      const missing = value === undefined || (colon === ':' && value === '');
      if (!missing) {
        return value;
      }
      if (kind === '?') {
        throw new Error(`required variable ${name as string} is missing: ${arg as string}`);
      }
      return kind === '-' ? (arg as string) : '';
    },
  );

const composeText = (): string => fs.readFileSync(deploy('compose', 'compose.yaml'), 'utf8');
const secretsEnv: Record<string, string> = {
  POSTGRES_PASSWORD: 'pw-for-the-test',
  MIRROR_APP_DB_PASSWORD: 'app-secret-for-the-test',
  MIRROR_OPERATOR_KEY: 'a-key-of-thirty-two-characters-x',
};

interface ComposeService {
  image?: string;
  command?: string[];
  stop_grace_period?: string;
  deploy?: { replicas?: number };
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

describe('deploy/compose', () => {
  const compose = parse(interpolate(composeText(), secretsEnv), { merge: true }) as {
    services: Record<string, ComposeService>;
  };

  it('is a valid Compose file by the Compose Specification schema', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(composeSpecSchema());
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('refuses to start without its secrets, naming each', () => {
    for (const name of Object.keys(secretsEnv)) {
      const others = Object.fromEntries(Object.entries(secretsEnv).filter(([other]) => other !== name));
      expect(() => interpolate(composeText(), others)).toThrow(new RegExp(`required variable ${name} is missing`));
    }
    // No secret value is written in the file itself.
    expect(composeText()).not.toMatch(/^\s*[A-Z_]*(PASSWORD|PWD|KEY):\s*[^$\s]/m);
  });

  it('runs PostgreSQL, a Temporal server on it with its UI, and the api, gateway and worker apart, with health checks', () => {
    const services = compose.services;
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining([
        'postgresql',
        'temporal',
        'temporal-ui',
        'migrate',
        'api',
        'gateway-1',
        'gateway-2',
        'worker',
      ]),
    );
    expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    for (const app of ['api', 'gateway-1', 'gateway-2', 'worker']) {
      const service = services[app];
      expect(service.healthcheck?.test.join(' ')).toMatch(/healthz|readyz|health/);
      // Every app waits for the migrations to have succeeded.
      expect(service.depends_on?.migrate?.condition).toBe('service_completed_successfully');
      // The apps log in as a role that holds only the apps' group role; the owner's password is not theirs.
      expect(service.environment?.DATABASE_URL).toMatch(
        /^postgres:\/\/mirror_app_login:app-secret-for-the-test@postgresql:5432\//,
      );
      expect(JSON.stringify(service.environment)).not.toContain(secretsEnv.POSTGRES_PASSWORD);
      expect(service.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
    }
    expect(services.postgresql.healthcheck?.test.join(' ')).toMatch(/pg_isready/);
    expect(services.migrate.command).toEqual(['bin/mirror.js', 'db', 'migrate']);
    // Migrations run as the schema's owner, after the apps' login is made and given the group role.
    expect(services.migrate.environment?.MIRROR_MIGRATION_DATABASE_URL).toMatch(
      /^postgres:\/\/mirror:pw-for-the-test@postgresql:5432\//,
    );
    expect(services.migrate.depends_on?.['database-roles']?.condition).toBe('service_completed_successfully');
    expect(services['database-roles'].depends_on?.postgresql?.condition).toBe('service_healthy');
  });

  it('gives the api the Temporal and rollout queue of the workers, which it starts rollouts on', () => {
    const temporalOf = (service: string) => {
      const env = compose.services[service].environment ?? {};
      return [env.TEMPORAL_ADDRESS, env.TEMPORAL_NAMESPACE, env.MIRROR_TASK_QUEUE];
    };
    expect(temporalOf('api')[0]).toBeDefined();
    expect(temporalOf('api')).toEqual(temporalOf('worker'));
  });

  /** Compose's durations as seconds (`90s`, `11m`, `1h30m`). */
  const seconds = (duration: string | undefined): number =>
    [...(duration ?? '').matchAll(/(\d+)(h|m|s)/g)].reduce(
      (sum, [, n, unit]) => sum + Number(n) * { h: 3600, m: 60, s: 1 }[unit as 'h' | 'm' | 's'],
      0,
    );

  it('gives every worker every gateway by its own name, and minutes to stop, longer than Mirror takes', () => {
    const services = compose.services;
    const gateways = Object.entries(services).filter(([, s]) => s.command?.[0] === 'dist/apps/gateway/src/main.js');
    expect(gateways.length).toBeGreaterThanOrEqual(2);
    const worker = services.worker;
    expect(worker.deploy?.replicas).toBeGreaterThanOrEqual(2);
    // Each gateway service by its name and port, no round-robin name in front of several.
    expect(worker.environment?.MIRROR_GATEWAY_URL?.split(',').sort()).toEqual(
      gateways.map(([name, s]) => `http://${name}:${s.environment?.GATEWAY_PORT}`).sort(),
    );
    for (const [name, service] of [...gateways, ['worker', worker] as const]) {
      const grace = Number(service.environment?.MIRROR_STOP_GRACE_SECONDS);
      expect({ name, minutes: grace >= 120 }).toEqual({ name, minutes: true });
      expect({ name, waitsLonger: seconds(service.stop_grace_period) > grace }).toEqual({ name, waitsLonger: true });
    }
  });

  it('sets only settings Mirror reads on its own services', () => {
    for (const name of ['migrate', 'api', 'gateway-1', 'gateway-2', 'worker']) {
      for (const variable of Object.keys(compose.services[name].environment ?? {})) {
        expect({ service: name, variable, known: settings.has(variable) }).toEqual({
          service: name,
          variable,
          known: true,
        });
      }
    }
  });
});

interface K8sObject {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    replicas?: number;
    serviceName?: string;
    clusterIP?: string;
    template?: { spec: PodSpec };
  };
}
interface Container {
  name: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: unknown;
  readinessProbe?: unknown;
  securityContext?: { allowPrivilegeEscalation?: boolean };
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean };
}

/** The Deployment or StatefulSet of a component (`review-mirror-<component>`). */
const workload = (objects: K8sObject[], component: string): K8sObject => {
  const found = objects.find(
    (o) => ['Deployment', 'StatefulSet'].includes(o.kind) && o.metadata.name === `review-mirror-${component}`,
  );
  if (!found) {
    throw new Error(`no Deployment or StatefulSet for ${component}`);
  }
  return found;
};

describe('deploy/helm', () => {
  const chart = deploy('helm', 'mirror');
  const helm = (...args: string[]): string => execFileSync(helmBinary(), args, { encoding: 'utf8' });
  const render = (...sets: string[]): K8sObject[] =>
    parseAllDocuments(helm('template', 'review', chart, ...sets.flatMap((s) => ['--set', s])))
      .map((document) => document.toJSON() as K8sObject | null)
      .filter((object): object is K8sObject => object !== null);

  it('passes helm lint', () => {
    expect(helm('lint', chart)).toMatch(/0 chart\(s\) failed/);
  });

  it('renders the api, gateway and worker with replicas, probes, resources, non-root, secrets by reference', () => {
    const objects = render('gateway.replicas=3', 'worker.replicas=4');
    const deployment = (component: string): K8sObject => workload(objects, component);
    expect(deployment('gateway').spec.replicas).toBe(3);
    expect(deployment('worker').spec.replicas).toBe(4);
    for (const component of ['api', 'gateway', 'worker']) {
      const pod = deployment(component).spec.template?.spec as PodSpec;
      const container = pod.containers[0];
      expect(container.args?.[0]).toBe(`dist/apps/${component}/src/main.js`);
      expect(container.livenessProbe).toBeDefined();
      expect(container.readinessProbe).toBeDefined();
      expect(container.resources?.requests?.cpu).toBeDefined();
      expect(container.resources?.limits?.memory).toBeDefined();
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      const env = new Map((container.env ?? []).map((e) => [e.name, e]));
      for (const secret of ['DATABASE_URL', 'MIRROR_OPERATOR_KEY']) {
        expect(env.get(secret)?.valueFrom?.secretKeyRef?.name).toBe('mirror-secrets');
        expect(env.get(secret)?.value).toBeUndefined();
      }
      for (const name of env.keys()) {
        expect({ name, known: settings.has(name) }).toEqual({ name, known: true });
      }
    }
    // The api starts rollouts on the workers' queue: the same Temporal, namespace and queue.
    const temporalOf = (component: string) => {
      const env = new Map(
        ((deployment(component).spec.template?.spec as PodSpec).containers[0].env ?? []).map((e) => [e.name, e.value]),
      );
      return ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'MIRROR_TASK_QUEUE'].map((name) => env.get(name));
    };
    expect(temporalOf('api')[0]).toBeDefined();
    expect(temporalOf('api')).toEqual(temporalOf('worker'));
    // The chart holds no secret's value: it makes no Secret at all.
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(
      objects
        .filter((o) => o.kind === 'Service')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['review-mirror-api', 'review-mirror-gateway', 'review-mirror-gateway-pods']);
  });

  it('gives every worker every gateway pod by name through a headless service, and minutes to stop', () => {
    const objects = render('gateway.replicas=3', 'stopGraceSeconds=300');
    const gateway = workload(objects, 'gateway');
    expect(gateway.kind).toBe('StatefulSet');
    const headless = objects.find((o) => o.kind === 'Service' && o.metadata.name === gateway.spec.serviceName);
    expect(headless?.spec.clusterIP).toBe('None');
    const env = (component: string) =>
      new Map((workload(objects, component).spec.template?.spec.containers[0].env ?? []).map((e) => [e.name, e.value]));
    expect(env('worker').get('MIRROR_GATEWAY_URL')?.split(',')).toEqual(
      [0, 1, 2].map((i) => `http://review-mirror-gateway-${i}.${gateway.spec.serviceName}:4000`),
    );
    for (const component of ['gateway', 'worker']) {
      expect(env(component).get('MIRROR_STOP_GRACE_SECONDS')).toBe('300');
      expect(workload(objects, component).spec.template?.spec.terminationGracePeriodSeconds).toBeGreaterThan(300);
    }
  });

  it('migrates in a hook Job before the apps of an install or upgrade', () => {
    const job = render().find((o) => o.kind === 'Job');
    expect(job?.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(job?.spec.template?.spec.containers[0].args).toEqual(['bin/mirror.js', 'db', 'migrate']);
    expect(render('migration.enabled=false').some((o) => o.kind === 'Job')).toBe(false);
  });

  it("gives the schema owner's URL to the migration Job alone, when one is named", () => {
    const ownerUrl = (objects: K8sObject[]) =>
      Object.fromEntries(
        objects
          .filter((o) => o.spec.template)
          .map((o) => [
            o.metadata.name,
            o.spec.template?.spec.containers[0].env?.find((e) => e.name === 'MIRROR_MIGRATION_DATABASE_URL')
              ?.valueFrom ?? null,
          ]),
      );
    expect(ownerUrl(render('migration.ownerSecretKey=migration-database-url'))).toEqual({
      'review-mirror-api': null,
      'review-mirror-gateway': null,
      'review-mirror-worker': null,
      'review-mirror-migrate': { secretKeyRef: { name: 'mirror-secrets', key: 'migration-database-url' } },
    });
    expect(Object.values(ownerUrl(render()))).toEqual([null, null, null, null]);
  });
});

describe('deploy/docker', () => {
  const dockerfile = fs.readFileSync(deploy('docker', 'Dockerfile'), 'utf8');

  it('builds in stages from a pinned base and runs as a user that is not root', () => {
    const stages = [...dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)];
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1] ?? '';
    // An exact release, not a moving tag such as `node:20` or `latest`.
    expect(base).toMatch(/^node:\d+\.\d+\.\d+-[a-z]+(-slim)?$/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const user = /^USER\s+(\S+)/m.exec(runtime)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    // Nothing installed or built on the host leaks into the image.
    const ignored = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.mirror']));
  });

  it('uses the Node release the project requires', () => {
    const base = /^ARG NODE_IMAGE=node:(\d+)\.(\d+)/m.exec(dockerfile);
    const engines = (
      JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    const [, major, minor] = /(\d+)\.(\d+)/.exec(engines) ?? [];
    expect(Number(base?.[1])).toBe(Number(major));
    expect(Number(base?.[2])).toBeGreaterThanOrEqual(Number(minor));
  });
});

/** A Markdown table's cells, row by row, however a formatter padded it. */
const tableCells = (markdown: string): string[][] =>
  markdown
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );

describe('deploy/README.md', () => {
  it('documents every setting, as the config schema describes it', () => {
    const readme = fs.readFileSync(deploy('README.md'), 'utf8');
    const table = /<!-- settings:start[^>]*-->([\s\S]*?)<!-- settings:end -->/.exec(readme)?.[1] ?? '';
    expect(tableCells(table)).toEqual(tableCells(settingsMarkdown()));
  });
});
