/**
 * OpenAPI fragments for the route `detail`s. The request schemas are the valibot schemas the
 * routes validate with, converted here ({@link toOpenApiSchema}), so the docs cannot drift from
 * the validation; error responses point at the shared components declared in ./docs.ts.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { OpenAPIV3 } from "openapi-types";
import type * as v from "valibot";

type Schema = OpenAPIV3.SchemaObject;
type Json = Record<string, unknown>;

const isJson = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * JSON Schema's spellings made OpenAPI 3.0's, in place: `examples` becomes `example` (3.0 has no
 * `examples` in a schema), and a property marked `v.metadata({ required: true })` — a field that
 * is nullish for the validator but which a request must carry — joins its object's `required`.
 */
function toOpenApi(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(toOpenApi);
  if (!isJson(node)) return;
  if (Array.isArray(node.examples)) {
    node.example = node.examples[0];
    delete node.examples;
  }
  if (isJson(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    for (const [name, property] of Object.entries(node.properties)) {
      if (isJson(property) && property.required === true) {
        required.add(name);
        delete property.required;
      }
    }
    if (required.size > 0) node.required = [...required];
    else delete node.required;
  }
  for (const value of Object.values(node)) toOpenApi(value);
}

/**
 * An OpenAPI 3.0 schema for a valibot schema, by the valibot team's converter: types, bounds,
 * enums (`v.picklist`, or `v.metadata({ enum })` where a field is checked later), descriptions and
 * examples. What JSON Schema cannot say (transforms, custom checks) is left out, not refused.
 */
export function toOpenApiSchema(schema: v.GenericSchema): Schema {
  const converted = toJsonSchema(schema, { target: "openapi-3.0", errorMode: "ignore" }) as Json;
  delete converted.$schema;
  toOpenApi(converted);
  return converted as Schema;
}

/** A `$ref` to a shared component. */
export function ref(kind: "schemas" | "responses" | "headers" | "parameters", name: string): OpenAPIV3.ReferenceObject {
  return { $ref: `#/components/${kind}/${name}` };
}

/** The shared error response component for each status a route may answer. */
export const ERROR_RESPONSES: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
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
