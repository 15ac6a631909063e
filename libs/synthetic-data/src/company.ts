import { base, en, Faker } from '@faker-js/faker';

import { hashSeed } from './seeded-random';

/**
 * One synthetic company that every twin pack draws from, so that a person in Slack is the same person in mail and in
 * the ERP: same name, same address, same department and approval limit. Deterministic from (seed, sizes).
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

export interface Company {
  name: string;
  domain: string;
  currency: string;
  seed: number;
  sizes: CompanySizes;
  /** The identity an agent under training acts as (a procurement assistant); also employees[0]. */
  agent: Employee;
  employees: Employee[];
  costCentres: CostCentre[];
  suppliers: Supplier[];
  items: CatalogueItem[];
}

/** Departments with the share of staff in each; every department is a cost centre with its own budget. */
const departments: { name: string; code: string; share: number; budget: number; titles: string[] }[] = [
  { name: 'Procurement', code: 'CC-100', share: 0.08, budget: 400_000, titles: ['Buyer', 'Category Manager'] },
  { name: 'Finance', code: 'CC-200', share: 0.08, budget: 300_000, titles: ['Accountant', 'Financial Analyst'] },
  {
    name: 'Engineering',
    code: 'CC-300',
    share: 0.24,
    budget: 1_200_000,
    titles: ['Engineer', 'Senior Engineer', 'Design Engineer'],
  },
  {
    name: 'Operations',
    code: 'CC-400',
    share: 0.24,
    budget: 1_500_000,
    titles: ['Plant Operator', 'Shift Supervisor', 'Logistics Coordinator'],
  },
  { name: 'Sales', code: 'CC-500', share: 0.12, budget: 600_000, titles: ['Account Executive', 'Sales Engineer'] },
  { name: 'Marketing', code: 'CC-600', share: 0.06, budget: 450_000, titles: ['Marketing Specialist'] },
  { name: 'People', code: 'CC-700', share: 0.06, budget: 250_000, titles: ['HR Partner', 'Recruiter'] },
  { name: 'IT', code: 'CC-800', share: 0.08, budget: 700_000, titles: ['Systems Administrator', 'IT Analyst'] },
  { name: 'Facilities', code: 'CC-900', share: 0.04, budget: 350_000, titles: ['Facilities Coordinator'] },
];

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

export interface CompanyOptions {
  name?: string;
  domain?: string;
  currency?: string;
}

/** Builds the company. Each part draws from its own seeded Faker stream, so growing one size leaves the others. */
export const synthesizeCompany = (
  seed: number,
  sizes: Partial<CompanySizes> = {},
  options: CompanyOptions = {},
): Company => {
  const size: CompanySizes = { ...defaultCompanySizes, ...sizes };
  const domain = options.domain ?? 'acme.example';
  const currency = options.currency ?? 'EUR';
  const faker = new Faker({ locale: [en, base] });

  const costCentres: CostCentre[] = departments.map((d) => ({
    code: d.code,
    name: `${d.name}`,
    department: d.name,
    budget: d.budget,
  }));

  const employees: Employee[] = [];
  const handles = new Set<string>();
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
  const addEmployee = (fields: Omit<Employee, 'id' | 'firstName' | 'lastName' | 'name' | 'handle' | 'email'>) => {
    const index = employees.length;
    const { firstName, lastName, handle } = person(index);
    const employee: Employee = {
      id: `E${pad(index, 4)}`,
      firstName,
      lastName,
      name: `${firstName} ${lastName}`,
      handle,
      email: `${handle}@${domain}`,
      ...fields,
    };
    employees.push(employee);
    return employee;
  };

  // The agent first, with a fixed identity, so scenarios can name it.
  employees.push({
    id: 'E0000',
    firstName: 'Procurement',
    lastName: 'Assistant',
    name: 'Procurement Assistant',
    handle: 'procurement.assistant',
    email: `procurement.assistant@${domain}`,
    title: 'Procurement Assistant (AI)',
    department: 'Procurement',
    costCentre: 'CC-100',
    role: 'agent',
    approvalLimit: 0,
  });
  handles.add('procurement.assistant');
  const ceo = addEmployee({
    title: 'Chief Executive Officer',
    department: 'People',
    costCentre: 'CC-700',
    role: 'executive',
    approvalLimit: 1_000_000,
  });
  const cfo = addEmployee({
    title: 'Chief Financial Officer',
    department: 'Finance',
    costCentre: 'CC-200',
    role: 'executive',
    approvalLimit: 250_000,
    managerId: ceo.id,
  });
  const heads = new Map<string, Employee>();
  for (const department of departments) {
    heads.set(
      department.name,
      addEmployee({
        title: `Head of ${department.name}`,
        department: department.name,
        costCentre: department.code,
        role: 'approver',
        approvalLimit: department.name === 'Procurement' ? 50_000 : 25_000,
        managerId: department.name === 'Finance' ? cfo.id : ceo.id,
      }),
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
      const title = department.titles[n % department.titles.length];
      const role: EmployeeRole =
        department.name === 'Procurement' ? 'buyer' : department.name === 'Finance' ? 'finance' : 'requester';
      addEmployee({
        title,
        department: department.name,
        costCentre: department.code,
        role,
        approvalLimit: role === 'buyer' ? 5_000 : 0,
        managerId: head.id,
      });
    }
    placed += count;
  });
  // Never more people than asked for, even when the fixed roles alone exceed a tiny size.
  employees.splice(Math.max(size.employees, 1));
  if (!employees.some((e) => e.id === ceo.id)) {
    for (const employee of employees) {
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
    name: options.name ?? 'Acme Manufacturing',
    domain,
    currency,
    seed,
    sizes: size,
    agent: employees[0],
    employees,
    costCentres,
    suppliers,
    items,
  };
};
