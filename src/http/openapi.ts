/**
 * OpenAPI fragments for the route `detail`s. The request schemas are the valibot schemas the
 * routes validate with, converted here ({@link toOpenApiSchema}), so the docs cannot drift from
 * the validation; error responses point at the shared components declared in ./docs.ts.
 */
import type { OpenAPIV3 } from "openapi-types";
import type * as v from "valibot";

type Schema = OpenAPIV3.SchemaObject;
type AnySchema = v.GenericSchema | v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;

interface Node {
  readonly kind: string;
  readonly type: string;
  readonly wrapped?: Node;
  readonly item?: Node;
  readonly entries?: Record<string, Node>;
  readonly options?: readonly unknown[];
  readonly pipe?: readonly Node[];
  readonly requirement?: unknown;
  readonly description?: string;
  readonly examples?: readonly unknown[];
  readonly metadata?: Record<string, unknown>;
}

interface Converted {
  schema: Schema;
  optional: boolean;
  required: boolean;
}

function convert(node: Node): Converted {
  if (node.type === "optional" || node.type === "nullish" || node.type === "nullable") {
    const inner = convert(node.wrapped!);
    return {
      schema: node.type === "optional" ? inner.schema : { ...inner.schema, nullable: true },
      optional: node.type !== "nullable" || inner.optional,
      required: inner.required,
    };
  }
  let schema: Schema;
  switch (node.type) {
    case "object": {
      const properties: Record<string, Schema> = {};
      const required: string[] = [];
      for (const [name, entry] of Object.entries(node.entries ?? {})) {
        const child = convert(entry);
        properties[name] = child.schema;
        if (!child.optional || child.required) required.push(name);
      }
      schema = { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
      break;
    }
    case "string":
      schema = { type: "string" };
      break;
    case "number":
      schema = { type: "number" };
      break;
    case "boolean":
      schema = { type: "boolean" };
      break;
    case "picklist":
      schema = { type: "string", enum: [...(node.options ?? [])] };
      break;
    case "array":
      schema = { type: "array", items: node.item ? convert(node.item).schema : {} };
      break;
    default:
      schema = {};
  }
  let required = false;
  for (const action of node.pipe?.slice(1) ?? []) {
    if (action.type === "description") schema.description = action.description;
    else if (action.type === "examples") schema.example = action.examples?.[0];
    else if (action.type === "integer") schema.type = "integer";
    else if (action.type === "min_value") schema.minimum = action.requirement as number;
    else if (action.type === "max_value") schema.maximum = action.requirement as number;
    else if (action.type === "metadata") {
      const { required: isRequired, enum: values } = action.metadata ?? {};
      if (isRequired === true) required = true;
      if (Array.isArray(values)) schema.enum = [...values];
    }
  }
  return { schema, optional: false, required };
}

/** An OpenAPI 3.0 schema for a valibot schema (the subset Sawt's request schemas use). */
export function toOpenApiSchema(schema: AnySchema): Schema {
  return convert(schema as unknown as Node).schema;
}

/** A `$ref` to a shared component. */
export function ref(kind: "schemas" | "responses" | "headers" | "parameters", name: string): OpenAPIV3.ReferenceObject {
  return { $ref: `#/components/${kind}/${name}` };
}

/** The shared error response component for each status a route may answer. */
export const ERROR_RESPONSES: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  404: "NotFound",
  405: "MethodNotAllowed",
  413: "PayloadTooLarge",
  422: "ValidationFailed",
  429: "RateLimited",
  500: "InternalError",
  501: "NotImplemented",
  503: "Unavailable",
  504: "Timeout",
};

/** Headers on every response of an authenticated route. */
export const AUTHED_HEADERS: Record<string, OpenAPIV3.ReferenceObject> = {
  "X-Request-ID": ref("headers", "X-Request-ID"),
  "X-RateLimit-Limit": ref("headers", "X-RateLimit-Limit"),
  "X-RateLimit-Remaining": ref("headers", "X-RateLimit-Remaining"),
  "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset"),
};

/** What an operation says besides its errors. */
export interface OperationSpec {
  readonly summary: string;
  readonly description: string;
  readonly tags: string[];
  readonly requestBody?: OpenAPIV3.RequestBodyObject;
  readonly parameters?: OpenAPIV3.ParameterObject[];
  /** Success responses by status. */
  readonly success: Record<string, OpenAPIV3.ResponseObject>;
  /** Error statuses besides the 401/429/500 every authenticated route has. */
  readonly errors: readonly number[];
  readonly deprecated?: boolean;
  readonly operationId: string;
}

/** A complete operation for an API-key route: security, X-Request-ID parameter, error refs. */
export function authedOperation(spec: OperationSpec): OpenAPIV3.OperationObject {
  const statuses = [...new Set([...spec.errors, 401, 429, 500])].sort((a, b) => a - b);
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    ...(spec.deprecated ? { deprecated: true } : {}),
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    parameters: [ref("parameters", "X-Request-ID"), ...(spec.parameters ?? [])],
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses: {
      ...spec.success,
      ...Object.fromEntries(
        statuses.map((status) => [String(status), ref("responses", ERROR_RESPONSES[status] ?? "InternalError")]),
      ),
    },
  };
}
