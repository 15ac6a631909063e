import { z } from 'zod';

/**
 * `company:` in `mirror.yaml`: the client's own company, which every twin pack (mail, chat, the procurement ERP)
 * serves. Everything is optional; what is left out is generated from the world seed, so a bundle names only what its
 * scenarios and policies rely on (a channel, a cost centre, the agent's address).
 */
const roles = ['requester', 'buyer', 'approver', 'finance', 'executive'] as const;
const role = z.enum(roles);
const mailDomain = z
  .string()
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]$/,
    'must be a lower-case domain',
  );
const money = z.number().nonnegative();

const department = z
  .object({
    name: z.string().min(1),
    /** The department's cost centre: the code orders are charged to. */
    cost_centre: z.string().min(1).max(40),
    /** Yearly budget in the company currency; generated from the headcount when left out. */
    budget: money.optional(),
    /** Share of the staff in the department; those without one split what the others leave. */
    share: z.number().gt(0).max(1).optional(),
    /** Job titles of the department's staff, taken in turn. */
    titles: z.array(z.string().min(1)).min(1).optional(),
    /** What its staff do in scenarios: `buyer`s raise orders, `finance` answers budget questions. */
    staff_role: role.exclude(['approver', 'executive']).default('requester'),
    /** Largest order a staff member may approve; 0 (none) unless given. */
    staff_approval_limit: money.optional(),
    /** The head of the department, who approves its orders up to a limit. */
    head: z
      .object({
        name: z.string().min(1).optional(),
        title: z.string().min(1).optional(),
        approval_limit: money.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const person = z
  .object({
    /** Generated when left out: the person is still there, with this title and role. */
    name: z.string().min(1).optional(),
    email: z.string().email().optional(),
    title: z.string().min(1),
    department: z.string().min(1),
    role,
    approval_limit: money.default(0),
  })
  .strict();

const channel = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,79}$/, 'must be a Slack channel name: lower-case, no "#", no spaces'),
    purpose: z.string().default(''),
    private: z.boolean().default(false),
    /** Who is in it: people of these departments or with these roles; everyone when left out. */
    members: z
      .object({
        departments: z.array(z.string().min(1)).optional(),
        roles: z.array(z.enum([...roles, 'agent'])).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * A resource of a spec twin whose records are the company's people (`box.users`): its first records are the
 * employees, in the company's order, and any beyond the headcount are generated people at the company's domain. Only
 * declared resources: a helpdesk's end users or a store's customers look like people too, but are not employees.
 * The person's fields are found by name and format (see the synthetic data's `personFields`); `email` and `name`
 * name them when the heuristic cannot.
 */
const peopleResource = z.union([
  z.string().regex(/^[a-z][a-z0-9-]*\.[^.].*$/, 'must be "service.resource"'),
  z
    .object({
      resource: z.string().regex(/^[a-z][a-z0-9-]*\.[^.].*$/, 'must be "service.resource"'),
      /** The field that holds the person's mail address (or login). */
      email: z.string().min(1).optional(),
      /** The field that holds the person's full name. */
      name: z.string().min(1).optional(),
    })
    .strict(),
]);

export const companySectionSchema = z
  .object({
    name: z.string().min(1).optional(),
    /** The mail domain of everyone in the company; mail to any other domain leaves it. */
    domain: mailDomain.optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR')
      .optional(),
    /** Orders up to this total are approved on submission in the ERP; generated when left out. */
    auto_approval_limit: money.optional(),
    departments: z.array(department).min(1).optional(),
    /** Named people; everyone else is generated. */
    people: z.array(person).optional(),
    /** Resources of the stack's own specs whose records are the company's people, such as `box.users`. */
    people_in: z.array(peopleResource).optional(),
    /** Slack channels besides #general, #random, the heads' private channel and one per department. */
    channels: z.array(channel).optional(),
    /** Who the agent under training is: its name, address, title and department. */
    agent: z
      .object({
        name: z.string().min(1).optional(),
        email: z.string().email().optional(),
        title: z.string().min(1).optional(),
        department: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type CompanyDeclaration = z.infer<typeof companySectionSchema>;
export type DeclaredDepartment = z.infer<typeof department>;
export type DeclaredPerson = z.infer<typeof person>;
export type DeclaredChannel = z.infer<typeof channel>;
export type DeclaredPeopleResource = z.infer<typeof peopleResource>;

/**
 * What the schema cannot see: names that must refer to each other. Each problem at its pointer under `/company`, so
 * a bundle naming a department it never declared is refused at its line.
 */
export const companyProblems = (company: CompanyDeclaration): { pointer: string; message: string }[] => {
  const problems: { pointer: string; message: string }[] = [];
  const names = new Set<string>();
  const codes = new Set<string>();
  (company.departments ?? []).forEach((d, index) => {
    if (names.has(d.name)) {
      problems.push({ pointer: `/company/departments/${index}/name`, message: `department "${d.name}" twice` });
    }
    if (codes.has(d.cost_centre)) {
      problems.push({
        pointer: `/company/departments/${index}/cost_centre`,
        message: `cost centre "${d.cost_centre}" is used by another department`,
      });
    }
    names.add(d.name);
    codes.add(d.cost_centre);
  });
  const shares = (company.departments ?? []).reduce((sum, d) => sum + (d.share ?? 0), 0);
  if (shares > 1.000001) {
    problems.push({ pointer: '/company/departments', message: `the departments' shares add up to ${shares}, over 1` });
  }
  const knownDepartment = (name: string, pointer: string): void => {
    if (!company.departments) {
      problems.push({ pointer, message: `names department "${name}"; declare the company's departments to use one` });
    } else if (!names.has(name)) {
      problems.push({ pointer, message: `no department "${name}"; the departments are ${[...names].join(', ')}` });
    }
  };
  const domain = company.domain;
  const atDomain = (email: string, pointer: string): void => {
    if (domain && email.split('@')[1]?.toLowerCase() !== domain) {
      problems.push({ pointer, message: `"${email}" is not at the company's domain ${domain}` });
    }
  };
  const addresses = new Set<string>();
  const uniqueAddress = (email: string, pointer: string): void => {
    if (addresses.has(email.toLowerCase())) {
      problems.push({ pointer, message: `"${email}" is someone else's address` });
    }
    addresses.add(email.toLowerCase());
  };
  if (company.agent?.department !== undefined) {
    knownDepartment(company.agent.department, '/company/agent/department');
  }
  if (company.agent?.email !== undefined) {
    atDomain(company.agent.email, '/company/agent/email');
    uniqueAddress(company.agent.email, '/company/agent/email');
  }
  (company.people ?? []).forEach((p, index) => {
    knownDepartment(p.department, `/company/people/${index}/department`);
    if (p.email !== undefined) {
      atDomain(p.email, `/company/people/${index}/email`);
      uniqueAddress(p.email, `/company/people/${index}/email`);
    }
  });
  const channels = new Set<string>();
  (company.channels ?? []).forEach((c, index) => {
    if (channels.has(c.name)) {
      problems.push({ pointer: `/company/channels/${index}/name`, message: `channel "${c.name}" twice` });
    }
    channels.add(c.name);
    (c.members?.departments ?? []).forEach((name, d) =>
      knownDepartment(name, `/company/channels/${index}/members/departments/${d}`),
    );
  });
  return problems;
};
