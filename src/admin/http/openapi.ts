/**
 * The OpenAPI description of an admin operation: an admin key in the key schemes, 401 without a
 * valid key, 403 with a key that is not an admin key, 500; admin routes are not rate limited.
 */
import type { OpenAPIV3 } from "openapi-types";
import { ERROR_RESPONSES, ref } from "../../http/openapi.ts";

/** An admin operation's document (tag `Admin`). */
export function adminOperation(
  operationId: string,
  summary: string,
  description: string,
  errors: readonly number[],
  parameters: OpenAPIV3.ParameterObject[] = [],
  requestBody?: OpenAPIV3.RequestBodyObject,
  success = "200",
): OpenAPIV3.OperationObject {
  const statuses = [...new Set([...errors, 401, 403, 500])].sort((a, b) => a - b);
  return {
    operationId,
    summary,
    description: `${description} Needs an admin key (\`sawt keys create --admin\`); not rate limited.`,
    tags: ["Admin"],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    parameters: [ref("parameters", "X-Request-ID"), ...parameters],
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [success]: { description: "Done.", headers: { "X-Request-ID": ref("headers", "X-Request-ID") } },
      ...Object.fromEntries(
        statuses.map((status) => [String(status), ref("responses", ERROR_RESPONSES[status] ?? "InternalError")]),
      ),
    },
  };
}
