/**
 * The normalized description of a client's stack: what every later stage (world synthesis, twins, scenarios,
 * graders) reads. Plain JSON so it can be hashed, stored as jsonb and diffed.
 */
import type { CompanyDeclaration } from './company-section';
import type { PolicySet } from './policy-schema';
import type { SampleProfile } from './sample-profile';
import type { ServiceBehaviours } from './service-behaviours';
import type { Scenario } from './scenario-schema';

export const stackModelFormat = 1;

export type SourceDialect = 'openapi-3.0' | 'openapi-3.1' | 'swagger-2.0';
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
export const httpMethods: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface StackWarning {
  /** `file:line#pointer`, the same place an editor jumps to. */
  location: string;
  file: string;
  line?: number;
  pointer: string;
  message: string;
}

export interface ParameterModel {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** JSON pointer into the service document. */
  schemaPointer?: string;
  /** How the value is written on the wire (OpenAPI `style`/`explode`; Swagger 2's `tsv` kept as `x-collectionFormat`). */
  style?: string;
  explode?: boolean;
  collectionFormat?: string;
  /** Read to recognise what a parameter does (a cursor "after this object ID", a filter that also takes `all`). */
  description?: string;
}

export interface BodyModel {
  required: boolean;
  /** Media type → JSON pointer of its schema in the service document. */
  content: Record<string, string | null>;
}

export interface ResponseModel {
  status: string;
  content: Record<string, string | null>;
  /** Names of the headers the response declares (e.g. `Location`). */
  headers?: string[];
}

export interface OperationModel {
  id: string;
  /** True when the spec named no operationId and one was derived from method and path. */
  derivedId: boolean;
  method: HttpMethod;
  path: string;
  summary?: string;
  tags: string[];
  parameters: ParameterModel[];
  requestBody?: BodyModel;
  responses: ResponseModel[];
  /** Alternatives of required security scheme names; [] means anonymous. */
  security: string[][];
  callbacks: string[];
  deprecated: boolean;
  pointer: string;
}

export type ResourceRole = 'list' | 'create' | 'get' | 'replace' | 'update' | 'delete';

export type PaginationStyle = 'offset' | 'page' | 'cursor' | 'link-header' | 'none';

export interface PaginationModel {
  style: PaginationStyle;
  /** The query parameters that drive it, by role (e.g. `{ limit: 'per_page', page: 'page' }`). */
  parameters: Record<string, string>;
  /** The cursor is the id of a record (`starting_after=<id>`, "an object ID that defines your place in the list"). */
  byRecordId?: boolean;
  /** Pages are also linked by an RFC 8288 `Link` header (declared as a response header or named in descriptions). */
  linkHeader?: boolean;
}

export interface ResourceModel {
  name: string;
  collectionPath: string;
  itemPath?: string;
  /** The path parameter that names one record. */
  idParameter?: string;
  parent?: string;
  operations: Partial<Record<ResourceRole, string>>;
  /** Further operations that play a role already taken (a POST to the item beside its PATCH), by operation id. */
  alternatives?: Record<string, ResourceRole>;
  pagination: PaginationModel;
  /** Schema pointer of one record, from the item or create response. */
  schemaPointer?: string;
  entity?: string;
}

export interface SecuritySchemeModel {
  name: string;
  type: string;
  scheme?: string;
  in?: string;
  parameterName?: string;
}

export interface ErrorShapeModel {
  status: string;
  contentType: string;
  schemaPointer: string | null;
  operations: number;
}

export interface WebhookModel {
  name: string;
  method: HttpMethod;
  pointer: string;
}

export interface ServiceModel {
  name: string;
  title: string;
  apiVersion: string;
  dialect: SourceDialect;
  sourceFile: string;
  servers: string[];
  operations: OperationModel[];
  resources: ResourceModel[];
  webhooks: WebhookModel[];
  securitySchemes: SecuritySchemeModel[];
  errorShapes: ErrorShapeModel[];
  /** The whole spec as one self-contained OpenAPI 3.x document (Swagger 2.0 is converted). */
  document: Record<string, unknown>;
  /** The built-in twin pack this service is (`slack`, `email` …): its behaviour and seed come with Mirror. */
  pack?: string;
  /**
   * The data schemas' tables (entity names) this service serves PostgREST-style, when it is a data service
   * (`schema:` in mirror.yaml): its rows are the world's, its operations the twin engine's.
   */
  tables?: string[];
  /** What the bundle's `mirror.yaml` declares this service does beyond CRUD (state machines, side effects, derived fields). */
  behaviours?: ServiceBehaviours;
}

export interface FieldModel {
  name: string;
  type: string;
  format?: string;
  required: boolean;
  nullable: boolean;
  /** The only values a `CHECK (col IN (…))` allows. */
  enum?: (string | number)[];
  /** The column's `DEFAULT`: a literal as its value, anything else (`now()`, `nextval(…)`) as SQL text. */
  default?: { value: string | number | boolean | null } | { expression: string };
}

export interface EntityModel {
  name: string;
  source: { file: string; kind: 'json-schema' | 'sql' };
  primaryKey: string[];
  /** Column sets whose values must be unique besides the primary key (UNIQUE constraints, unique indexes). */
  uniqueKeys?: string[][];
  fields: FieldModel[];
  /** `service.resource` names this entity backs. */
  resources: string[];
}

export interface RelationModel {
  from: { entity: string; fields: string[] };
  to: { entity: string; fields: string[] };
  /** Declared (foreign key, $ref) or inferred from a field name such as `supplier_id`. */
  origin: 'declared' | 'inferred';
}

export interface StackModel {
  format: typeof stackModelFormat;
  name: string;
  services: ServiceModel[];
  entities: EntityModel[];
  relations: RelationModel[];
  /** Value distributions fitted from the bundle's samples, secrets and personal data redacted. */
  samples: SampleProfile[];
  /** The bundle's scenarios, checked against the stack, with the file each came from. */
  scenarios: ScenarioModel[];
  /** The bundle's policy sets: the rules graders apply. */
  policies?: PolicyModel[];
  /** The client's company as `mirror.yaml` declares it; absent, the packs' company is generated from the seed. */
  company?: CompanyDeclaration;
  warnings: StackWarning[];
}

export interface PolicyModel {
  file: string;
  policy: PolicySet;
}

export interface ScenarioModel {
  file: string;
  scenario: Scenario;
}
