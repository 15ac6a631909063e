import type { Faker } from '@faker-js/faker';

import type { CompanyDeclaration, DeclaredChannel } from '@libs/stack-model';

import { englishFaker } from './mersenne-randomizer';
import { hashSeed } from './seeded-random';

/**
 * One company that every twin pack draws from, so that a person in Slack is the same person in mail and in the ERP:
 * same name, same address, same department and approval limit. The client's as its bundle declares it (`company:` in
 * `mirror.yaml`), the rest synthesized; deterministic from (seed, sizes, declaration).
 */
export interface CompanySizes {
  employees: number;
  suppliers: number;
  items: number;
}

export const defaultCompanySizes: CompanySizes = { employees: 200, suppliers: 50, items: 2000 };

export type EmployeeRole = 'agent' | 'requester' | 'buyer' | 'approver' | 'finance' | 'executive';

export interface Employee {
  /** `E0001` …; the agent is always `E0000`. */
  id: string;
  firstName: string;
  lastName: string;
  name: string;
  /** Lower-case `first.last`, the handle in chat and the local part of the mail address. */
  handle: string;
  email: string;
  title: string;
  department: string;
  costCentre: string;
  role: EmployeeRole;
  /** Largest purchase order this person may approve, in the company currency; 0 when they approve nothing. */
  approvalLimit: number;
  managerId?: string;
}

export interface CostCentre {
  code: string;
  name: string;
  department: string;
  /** Yearly budget in the company currency. */
  budget: number;
}

export interface SupplierContact {
  id: string;
  supplierId: string;
  name: string;
  email: string;
  title: string;
  phone: string;
}

export interface Supplier {
  id: string;
  name: string;
  /** Their own mail domain: mail to their contacts leaves the company. */
  domain: string;
  country: string;
  currency: string;
  category: string;
  paymentTermsDays: number;
  contacts: SupplierContact[];
}

export interface CatalogueItem {
  id: string;
  sku: string;
  name: string;
  category: string;
  unit: string;
  unitPrice: number;
  currency: string;
  supplierId: string;
}

/** A chat channel of the company, with who is in it. */
export interface CompanyChannel {
  name: string;
  purpose: string;
  isPrivate: boolean;
  /** Employee ids, in the company's order. */
  memberIds: string[];
}

export interface Company {
  name: string;
  domain: string;
  currency: string;
  seed: number;
  sizes: CompanySizes;
  /** What the bundle declared, so that any process can rebuild the same company from (seed, sizes, declaration). */
  declaration: CompanyDeclaration;
  /** The identity an agent under training acts as; also employees[0]. */
  agent: Employee;
  employees: Employee[];
  costCentres: CostCentre[];
  channels: CompanyChannel[];
  /** Orders up to this total are approved on submission; larger ones need someone whose limit covers them. */
  autoApprovalLimit: number;
  suppliers: Supplier[];
  items: CatalogueItem[];
}

/** A department as the synthesizer places staff in it: every department is a cost centre with its own budget. */
interface DepartmentPlan {
  name: string;
  code: string;
  share: number;
  budget: number;
  titles: string[];
  staffRole: Exclude<EmployeeRole, 'agent' | 'approver' | 'executive'>;
  staffApprovalLimit: number;
  head: { name?: string; title: string; approvalLimit: number };
}

/**
 * The functions of a generic company, for a bundle that declares no departments: what they are called, the share of
 * staff, their titles and what their staff do in scenarios. Their codes and budgets are drawn from the seed.
 */
const genericDepartments: {
  name: string;
  share: number;
  titles: string[];
  staffRole?: DepartmentPlan['staffRole'];
  headApprovalLimit?: number;
}[] = [
  {
    name: 'Procurement',
    share: 0.08,
    titles: ['Buyer', 'Category Manager'],
    staffRole: 'buyer',
    headApprovalLimit: 50_000,
  },
  { name: 'Finance', share: 0.08, titles: ['Accountant', 'Financial Analyst'], staffRole: 'finance' },
  { name: 'Engineering', share: 0.24, titles: ['Engineer', 'Senior Engineer', 'Design Engineer'] },
  { name: 'Operations', share: 0.24, titles: ['Operator', 'Shift Supervisor', 'Logistics Coordinator'] },
  { name: 'Sales', share: 0.12, titles: ['Account Executive', 'Sales Engineer'] },
  { name: 'Marketing', share: 0.06, titles: ['Marketing Specialist'] },
  { name: 'People', share: 0.06, titles: ['HR Partner', 'Recruiter'] },
  { name: 'IT', share: 0.08, titles: ['Systems Administrator', 'IT Analyst'] },
  { name: 'Facilities', share: 0.04, titles: ['Facilities Coordinator'] },
];

const defaultHeadApprovalLimit = 25_000;
const defaultBuyerApprovalLimit = 5_000;

const supplierCategories: { category: string; units: string[]; price: [number, number]; nouns: string[] }[] = [
  {
    category: 'Fasteners',
    units: ['box', 'each'],
    price: [2, 90],
    nouns: ['Hex Bolt', 'Lock Nut', 'Washer', 'Rivet', 'Anchor'],
  },
  {
    category: 'Raw materials',
    units: ['kg', 'sheet', 'm'],
    price: [5, 400],
    nouns: ['Steel Sheet', 'Aluminium Bar', 'Copper Wire', 'Polymer Pellets'],
  },
  {
    category: 'Electronics',
    units: ['each', 'reel'],
    price: [1, 600],
    nouns: ['Sensor', 'Relay', 'Controller Board', 'Connector', 'Power Supply'],
  },
  {
    category: 'Office supplies',
    units: ['pack', 'each'],
    price: [1, 120],
    nouns: ['Printer Paper', 'Toner Cartridge', 'Notebook', 'Desk Organiser'],
  },
  {
    category: 'IT hardware',
    units: ['each'],
    price: [40, 3200],
    nouns: ['Laptop', 'Monitor', 'Docking Station', 'Network Switch', 'Headset'],
  },
  {
    category: 'Safety equipment',
    units: ['pair', 'each', 'box'],
    price: [3, 250],
    nouns: ['Safety Gloves', 'Hard Hat', 'Safety Glasses', 'Hi-Vis Vest', 'Ear Defenders'],
  },
  {
    category: 'Logistics',
    units: ['pallet', 'each'],
    price: [15, 900],
    nouns: ['Pallet Wrap', 'Shipping Crate', 'Strapping Kit', 'Label Roll'],
  },
];

const countries: { code: string; currency: string; tld: string }[] = [
  { code: 'GB', currency: 'GBP', tld: 'co.uk' },
  { code: 'DE', currency: 'EUR', tld: 'de' },
  { code: 'US', currency: 'USD', tld: 'com' },
  { code: 'NL', currency: 'EUR', tld: 'nl' },
  { code: 'SE', currency: 'SEK', tld: 'se' },
  { code: 'PL', currency: 'PLN', tld: 'pl' },
];

const slug = (text: string): string =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** A company's name reads like one; its domain is the name's first words under `.example`. */
const generatedIdentity = (seed: number, faker: Faker): { name: string; domain: string } => {
  faker.seed(hashSeed(seed, 'company'));
  const name = faker.company.name();
  return { name, domain: `${slug(name).split('-').slice(0, 2).join('-')}.example` };
};

const departmentPlans = (seed: number, declared: CompanyDeclaration, faker: Faker): DepartmentPlan[] => {
  if (declared.departments) {
    const given = declared.departments.reduce((sum, d) => sum + (d.share ?? 0), 0);
    const unshared = declared.departments.filter((d) => d.share === undefined).length;
    return declared.departments.map((d, index) => {
      const share = d.share ?? (unshared > 0 ? Math.max(0, 1 - given) / unshared : 0);
      faker.seed(hashSeed(seed, 'department', index));
      return {
        name: d.name,
        code: d.cost_centre,
        share,
        budget: d.budget ?? faker.number.int({ min: 4, max: 30 }) * 50_000,
        titles: d.titles ?? [`${d.name} Specialist`],
        staffRole: d.staff_role,
        staffApprovalLimit: d.staff_approval_limit ?? (d.staff_role === 'buyer' ? defaultBuyerApprovalLimit : 0),
        head: {
          ...(d.head?.name ? { name: d.head.name } : {}),
          title: d.head?.title ?? `Head of ${d.name}`,
          approvalLimit: d.head?.approval_limit ?? defaultHeadApprovalLimit,
        },
      };
    });
  }
  faker.seed(hashSeed(seed, 'cost-centres'));
  const prefix = faker.string.alpha({ length: 2, casing: 'upper' });
  return genericDepartments.map((d, index) => {
    faker.seed(hashSeed(seed, 'department', index));
    const staffRole = d.staffRole ?? 'requester';
    return {
      name: d.name,
      code: `${prefix}-${pad(index + 1, 2)}`,
      share: d.share,
      budget: faker.number.int({ min: 4, max: 30 }) * 50_000,
      titles: d.titles,
      staffRole,
      staffApprovalLimit: staffRole === 'buyer' ? defaultBuyerApprovalLimit : 0,
      head: { title: `Head of ${d.name}`, approvalLimit: d.headApprovalLimit ?? defaultHeadApprovalLimit },
    };
  });
};

const splitName = (name: string): { firstName: string; lastName: string } => {
  const [firstName, ...rest] = name.trim().split(/\s+/);
  return { firstName, lastName: rest.join(' ') };
};

/** Who is in a declared channel: people of its departments or with its roles; everyone when it names neither. */
const channelMembers = (channel: DeclaredChannel, employees: Employee[]): string[] => {
  const departments = new Set(channel.members?.departments ?? []);
  const roles = new Set<string>(channel.members?.roles ?? []);
  const everyone = departments.size === 0 && roles.size === 0;
  return employees.filter((e) => everyone || departments.has(e.department) || roles.has(e.role)).map((e) => e.id);
};

const channelSlug = (department: string): string => slug(department) || 'team';

/**
 * The workspace's channels: #general and #random, the bundle's own, a private one of the heads (which the agent is
 * not in), and one per department; a declared channel of the same name wins.
 */
const channelsOf = (declared: CompanyDeclaration, employees: Employee[], costCentres: CostCentre[], name: string) => {
  const everyone = employees.map((e) => e.id);
  const own = (declared.channels ?? []).map((c): CompanyChannel => ({
    name: c.name,
    purpose: c.purpose,
    isPrivate: c.private,
    memberIds: channelMembers(c, employees),
  }));
  const generated: CompanyChannel[] = [
    { name: 'general', isPrivate: false, purpose: `Company-wide announcements for ${name}`, memberIds: everyone },
    { name: 'random', isPrivate: false, purpose: 'Anything that is not work', memberIds: everyone },
    {
      name: 'leadership',
      isPrivate: true,
      purpose: 'Heads of department',
      memberIds: employees.filter((e) => e.role === 'approver' || e.role === 'executive').map((e) => e.id),
    },
    ...costCentres.map((centre) => ({
      name: channelSlug(centre.department),
      isPrivate: false,
      purpose: `${centre.department} team (${centre.code})`,
      memberIds: employees.filter((e) => e.department === centre.department).map((e) => e.id),
    })),
  ];
  const declaredNames = new Set(own.map((c) => c.name));
  const taken = new Set<string>();
  const unique = (c: CompanyChannel): boolean => !taken.has(c.name) && Boolean(taken.add(c.name));
  return [
    ...generated.slice(0, 2).filter((c) => !declaredNames.has(c.name)),
    ...own,
    ...generated.slice(2).filter((c) => !declaredNames.has(c.name)),
  ].filter(unique);
};

/** A round amount a company would let anyone spend without asking: drawn from the seed when the bundle gives none. */
const generatedAutoApprovalLimit = (seed: number, faker: Faker): number => {
  faker.seed(hashSeed(seed, 'auto-approval'));
  return faker.helpers.arrayElement([250, 500, 2_500, 5_000]);
};

/**
 * Builds the company. Each part draws from its own seeded Faker stream, so growing one size leaves the others, and
 * a person the bundle names takes the place a generated one would have had.
 */
export const synthesizeCompany = (
  seed: number,
  sizes: Partial<CompanySizes> = {},
  declaration: CompanyDeclaration = {},
): Company => {
  const size: CompanySizes = { ...defaultCompanySizes, ...sizes };
  // The world's twins and the episode's personas each need the company of the same seed, often at the same moment:
  // it is built once (a few hundred people, each from a freshly seeded stream: tens of milliseconds) and shared.
  const key = JSON.stringify([seed, size, declaration]);
  const known = recentCompanies.get(key);
  if (known) {
    recentCompanies.delete(key);
    recentCompanies.set(key, known);
    return known;
  }
  const company = buildCompany(seed, size, declaration);
  recentCompanies.set(key, company);
  for (const oldest of recentCompanies.keys()) {
    if (recentCompanies.size <= recentCompanyCount) {
      break;
    }
    recentCompanies.delete(oldest);
  }
  return company;
};

/** Companies built lately, least recently used first: as many as a process has episodes starting at once, and more. */
const recentCompanies = new Map<string, Company>();
const recentCompanyCount = 64;

const buildCompany = (seed: number, size: CompanySizes, declaration: CompanyDeclaration): Company => {
  const faker = englishFaker();
  const generated = generatedIdentity(seed, faker);
  const companyName = declaration.name ?? generated.name;
  const domain = declaration.domain ?? generated.domain;
  const currency = declaration.currency ?? 'EUR';
  const departments = departmentPlans(seed, declaration, faker);
  const codeOf = new Map(departments.map((d) => [d.name, d.code]));

  const costCentres: CostCentre[] = departments.map((d) => ({
    code: d.code,
    name: d.name,
    department: d.name,
    budget: d.budget,
  }));

  const employees: Employee[] = [];
  const handles = new Set<string>();
  const uniqueHandle = (firstName: string, lastName: string): string => {
    const base = [slug(firstName), slug(lastName)].filter(Boolean).join('.').replace(/-/g, '') || 'person';
    let handle = base;
    for (let n = 2; handles.has(handle); n++) {
      handle = `${base}${n}`;
    }
    handles.add(handle);
    return handle;
  };
  const person = (index: number): { firstName: string; lastName: string; handle: string } => {
    faker.seed(hashSeed(seed, 'employee', index));
    for (let attempt = 0; ; attempt++) {
      const firstName = faker.person.firstName();
      const lastName = faker.person.lastName();
      const handle = `${slug(firstName)}.${slug(lastName)}${attempt > 2 ? attempt : ''}`.replace(/-/g, '');
      if (!handles.has(handle)) {
        handles.add(handle);
        return { firstName, lastName, handle };
      }
    }
  };
  const addEmployee = (
    fields: Omit<Employee, 'id' | 'firstName' | 'lastName' | 'name' | 'handle' | 'email'>,
    named: { name?: string; email?: string } = {},
  ) => {
    const index = employees.length;
    const identity = named.name !== undefined ? { ...splitName(named.name), handle: '' } : person(index);
    if (named.email !== undefined) {
      identity.handle = named.email.split('@')[0].toLowerCase();
      handles.add(identity.handle);
    } else if (named.name !== undefined) {
      identity.handle = uniqueHandle(identity.firstName, identity.lastName);
    }
    const employee: Employee = {
      id: `E${pad(index, 4)}`,
      firstName: identity.firstName,
      lastName: identity.lastName,
      name: named.name ?? `${identity.firstName} ${identity.lastName}`,
      handle: identity.handle,
      email: named.email?.toLowerCase() ?? `${identity.handle}@${domain}`,
      ...fields,
    };
    employees.push(employee);
    return employee;
  };

  // The agent first, with a fixed identity, so scenarios can name it.
  const agentDepartment =
    declaration.agent?.department ?? (departments.find((d) => d.staffRole === 'buyer') ?? departments[0]).name;
  const agentName = declaration.agent?.name ?? `${agentDepartment} Assistant`;
  const agentNames = splitName(agentName);
  const agentHandle =
    declaration.agent?.email?.split('@')[0].toLowerCase() ?? uniqueHandle(agentNames.firstName, agentNames.lastName);
  handles.add(agentHandle);
  employees.push({
    id: 'E0000',
    firstName: agentNames.firstName,
    lastName: agentNames.lastName,
    name: agentName,
    handle: agentHandle,
    email: declaration.agent?.email?.toLowerCase() ?? `${agentHandle}@${domain}`,
    title: declaration.agent?.title ?? `${agentName} (AI)`,
    department: agentDepartment,
    costCentre: codeOf.get(agentDepartment) as string,
    role: 'agent',
    approvalLimit: 0,
  });

  // The people the bundle names, then, when it names no executive, a chief executive and a chief financial officer.
  const financeDepartment = departments.find((d) => d.staffRole === 'finance');
  const declaredPeople = declaration.people ?? [];
  const executivesToAdd = declaredPeople.some((p) => p.role === 'executive')
    ? []
    : [
        { title: 'Chief Executive Officer', department: departments[0].name, approvalLimit: 1_000_000 },
        ...(financeDepartment
          ? [{ title: 'Chief Financial Officer', department: financeDepartment.name, approvalLimit: 250_000 }]
          : []),
      ];
  for (const p of declaredPeople) {
    addEmployee(
      {
        title: p.title,
        department: p.department,
        costCentre: codeOf.get(p.department) as string,
        role: p.role,
        approvalLimit: p.approval_limit,
      },
      p,
    );
  }
  for (const e of executivesToAdd) {
    addEmployee({ ...e, costCentre: codeOf.get(e.department) as string, role: 'executive' });
  }
  // Executives answer to the first executive; a head to an executive of its own department, else the first.
  const executives = employees.filter((e) => e.role === 'executive');
  const chief = executives[0];
  for (const e of executives.slice(1)) {
    e.managerId = chief.id;
  }
  const heads = new Map<string, Employee>();
  for (const department of departments) {
    const over = executives.find((e) => e.department === department.name && e !== chief) ?? chief;
    heads.set(
      department.name,
      addEmployee(
        {
          title: department.head.title,
          department: department.name,
          costCentre: department.code,
          role: 'approver',
          approvalLimit: department.head.approvalLimit,
          ...(over ? { managerId: over.id } : {}),
        },
        department.head.name ? { name: department.head.name } : {},
      ),
    );
  }
  const remaining = Math.max(0, size.employees - employees.length);
  let placed = 0;
  departments.forEach((department, d) => {
    const count =
      d === departments.length - 1
        ? remaining - placed
        : Math.min(remaining - placed, Math.round(remaining * department.share));
    for (let n = 0; n < count; n++) {
      const head = heads.get(department.name) as Employee;
      addEmployee({
        title: department.titles[n % department.titles.length],
        department: department.name,
        costCentre: department.code,
        role: department.staffRole,
        approvalLimit: department.staffApprovalLimit,
        managerId: head.id,
      });
    }
    placed += count;
  });
  // Never more people than asked for, even when the fixed roles alone exceed a tiny size.
  employees.splice(Math.max(size.employees, 1));
  const kept = new Set(employees.map((e) => e.id));
  for (const employee of employees) {
    if (employee.managerId !== undefined && !kept.has(employee.managerId)) {
      delete employee.managerId;
    }
  }

  const suppliers: Supplier[] = [];
  const supplierDomains = new Set<string>([domain]);
  for (let index = 0; index < size.suppliers; index++) {
    faker.seed(hashSeed(seed, 'supplier', index));
    const category = supplierCategories[index % supplierCategories.length];
    const country = countries[faker.number.int({ min: 0, max: countries.length - 1 })];
    let name = `${faker.company.name()} ${faker.helpers.arrayElement(['Ltd', 'GmbH', 'Inc', 'BV', 'AB', 'Sp. z o.o.'])}`;
    let supplierDomain = `${slug(name.split(' ')[0])}-${slug(category.category).split('-')[0]}.${country.tld}`;
    if (supplierDomains.has(supplierDomain)) {
      name = `${name} ${index}`;
      supplierDomain = `${slug(name.split(' ')[0])}${index}.${country.tld}`;
    }
    supplierDomains.add(supplierDomain);
    const id = `S${pad(index + 1, 3)}`;
    const contacts: SupplierContact[] = Array.from({ length: 2 + (index % 2) }, (_, c) => {
      const firstName = faker.person.firstName();
      const lastName = faker.person.lastName();
      return {
        id: `${id}-C${c + 1}`,
        supplierId: id,
        name: `${firstName} ${lastName}`,
        email: `${`${slug(firstName)}.${slug(lastName)}`.replace(/-/g, '')}@${supplierDomain}`,
        title: ['Account Manager', 'Sales Director', 'Customer Service Lead'][c % 3],
        phone: faker.phone.number({ style: 'international' }),
      };
    });
    suppliers.push({
      id,
      name,
      domain: supplierDomain,
      country: country.code,
      currency: country.currency,
      category: category.category,
      paymentTermsDays: faker.helpers.arrayElement([30, 45, 60, 90]),
      contacts,
    });
  }

  const items: CatalogueItem[] = [];
  for (let index = 0; index < size.items && suppliers.length > 0; index++) {
    faker.seed(hashSeed(seed, 'item', index));
    const supplier = suppliers[index % suppliers.length];
    const category = supplierCategories.find((c) => c.category === supplier.category) ?? supplierCategories[0];
    const noun = category.nouns[index % category.nouns.length];
    items.push({
      id: `I${pad(index + 1, 5)}`,
      sku: `${slug(category.category).slice(0, 3).toUpperCase()}-${pad(index + 1, 5)}`,
      name: `${faker.commerce.productAdjective()} ${noun}`,
      category: category.category,
      unit: category.units[index % category.units.length],
      unitPrice: Number(faker.number.float({ min: category.price[0], max: category.price[1] }).toFixed(2)),
      currency,
      supplierId: supplier.id,
    });
  }

  return {
    name: companyName,
    domain,
    currency,
    seed,
    sizes: size,
    declaration,
    agent: employees[0],
    employees,
    costCentres,
    channels: channelsOf(declaration, employees, costCentres, companyName),
    autoApprovalLimit: declaration.auto_approval_limit ?? generatedAutoApprovalLimit(seed, faker),
    suppliers,
    items,
  };
};
