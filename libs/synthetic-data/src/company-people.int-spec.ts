import * as fs from 'node:fs';
import * as path from 'node:path';

import { writeBundle } from '@test/support/bundle-fixtures';
import { repositoryRoot } from '@test/support/cli-runner';
import { DocumentValidators } from '@libs/openapi-schemas';
import { ingestStack, IngestionError } from '@libs/stack-ingestion';
import type { StackModel } from '@libs/stack-model';

import { buildWorld } from './world-builder';
import { WorldRecord } from './world';

/** Real: ingestion of the IT desk example (Box's own spec) and of a helpdesk spec, world synthesis. Mocked: nothing. */
describe('company people in spec twins', () => {
  const halden = () => ingestStack({ kind: 'path', path: path.join(repositoryRoot, 'examples', 'halden-it') });
  const rows = (world: ReturnType<typeof buildWorld>, key: string): WorldRecord[] => {
    const table = world.tables.get(key);
    return (table?.ids ?? []).map((id) => table?.records.get(id) as WorldRecord);
  };
  const withoutPeopleIn = (model: StackModel): StackModel => ({
    ...model,
    company: { ...model.company, people_in: undefined },
  });

  it("makes Box's users the company's employees, in the company's order, with the same ids every build", async () => {
    const { model, version } = await halden();
    const sizes = { recordsPerResource: 20, childrenPerParent: 2 };
    const world = buildWorld(model, version, 11, sizes);
    const company = world.company as NonNullable<typeof world.company>;
    const users = rows(world, 'box/users');
    // Everyone has an account: the resource holds at least the headcount.
    expect(users).toHaveLength(company.employees.length);
    users.forEach((user, n) => {
      expect({ login: user.login, name: user.name }).toEqual({
        login: company.employees[n].email,
        name: company.employees[n].name,
      });
    });
    expect(users[0].login).toBe('it.desk@halden-logistics.example');
    expect(rows(buildWorld(model, version, 11, sizes), 'box/users').map((u) => u.id)).toEqual(users.map((u) => u.id));
    const service = model.services.find((s) => s.name === 'box') as StackModel['services'][number];
    const validate = new DocumentValidators(service.document, service.dialect).validatorForSchema(
      world.tables.get('box/users')?.shape?.record as object,
    );
    expect(users.filter((u) => !validate(u))).toEqual([]);
  });

  it("draws users beyond the headcount as new people at the company's domain, each address once", async () => {
    const { model, version } = await halden();
    const world = buildWorld(model, version, 4, {
      recordsPerResource: 3,
      childrenPerParent: 1,
      overrides: { 'box/users': 30 },
      company: { employees: 12 },
    });
    const logins = rows(world, 'box/users').map((u) => String(u.login));
    expect(logins).toHaveLength(30);
    expect(logins.filter((login) => !login.endsWith('@halden-logistics.example'))).toEqual([]);
    expect(new Set(logins).size).toBe(30);
    expect(logins.slice(0, 12)).toEqual(world.company?.employees.map((e) => e.email));
  });

  it("changes nothing but the people's fields of the declared resource", async () => {
    const { model, version } = await halden();
    const sizes = { recordsPerResource: 6, childrenPerParent: 2, overrides: { 'box/users': 30 } };
    const declared = buildWorld(model, version, 2, sizes);
    const undeclared = buildWorld(withoutPeopleIn(model), version, 2, sizes);
    expect([...declared.tables.keys()]).toEqual([...undeclared.tables.keys()]);
    // The people's own fields aside, every record of every table is the same.
    const strip = (key: string, record: WorldRecord): WorldRecord =>
      key === 'box/users' ? { ...record, login: undefined, name: undefined, job_title: undefined } : record;
    const everything = (world: ReturnType<typeof buildWorld>) =>
      [...world.tables.keys()].map((key) => ({ key, records: rows(world, key).map((r) => strip(key, r)) }));
    expect(everything(declared)).toEqual(everything(undeclared));
    const logins = (world: ReturnType<typeof buildWorld>) => rows(world, 'box/users').map((u) => String(u.login));
    expect(logins(undeclared).filter((login) => !login.endsWith('@halden-logistics.example'))).not.toEqual([]);
    expect(logins(declared).filter((login) => !login.endsWith('@halden-logistics.example'))).toEqual([]);
  });

  const helpdesk = (company: string): string =>
    writeBundle({
      'apis/helpdesk.yaml': fs.readFileSync(path.join(repositoryRoot, 'examples/clinic-network/apis/helpdesk.yaml')),
      'mirror.yaml': `name: desk\nservices:\n  - { name: helpdesk, spec: apis/helpdesk.yaml }\n  - { name: slack, pack: slack }\ncompany:\n  domain: clinic.example\n${company}`,
    });

  it("leaves a helpdesk's end users outsiders unless the bundle declares them the company's", async () => {
    const sizes = { recordsPerResource: 10, childrenPerParent: 1 };
    const plain = await ingestStack({ kind: 'path', path: helpdesk('') });
    const outsiders = rows(buildWorld(plain.model, plain.version, 1, sizes), 'helpdesk/users');
    expect(outsiders.filter((u) => String(u.email).endsWith('@clinic.example'))).toEqual([]);
    const staff = await ingestStack({ kind: 'path', path: helpdesk('  people_in: [helpdesk.users]\n') });
    const world = buildWorld(staff.model, staff.version, 1, sizes);
    expect(rows(world, 'helpdesk/users').map((u) => u.email)).toEqual(world.company?.employees.map((e) => e.email));
  });

  it('refuses a people resource that does not exist or cannot hold a person, at its line', async () => {
    const refused = async (company: string): Promise<string[]> => {
      try {
        await ingestStack({ kind: 'path', path: helpdesk(company) });
      } catch (error) {
        if (error instanceof IngestionError) {
          return error.problems.map((p) => `${p.file}:${p.line}#${p.pointer} ${p.message}`);
        }
        throw error;
      }
      return [];
    };
    expect(await refused('  people_in: [helpdesk.staff]\n')).toEqual([
      expect.stringMatching(/^mirror\.yaml:7#\/company\/people_in\/0 "helpdesk" has no resource "staff"/),
    ]);
    expect(await refused('  people_in: [slack.users]\n')).toEqual([
      expect.stringMatching(/people_in\/0 "slack" is not a service of the stack's own specs/),
    ]);
    expect(await refused('  people_in: [helpdesk.tickets]\n')).toEqual([
      expect.stringMatching(/helpdesk\.tickets records have no field that reads as a person's address and name/),
    ]);
    expect(await refused('  people_in: [{ resource: helpdesk.users, email: mail }]\n')).toEqual([
      expect.stringMatching(/people_in\/0\/email helpdesk\.users records have no field "mail"/),
    ]);
  });
});
