/**
 * The JSON body of a refused call in the spec's three shapes (standard, auth/rate, validation),
 * for every front door that answers in JSON: REST responses and WebSocket error frames today.
 * gRPC maps the same {@link AppError} to a status instead (src/grpc/errors.ts).
 */
import { type AppError, Detail } from "../errors/taxonomy.ts";

/** The JSON body of an error. */
export function errorBody(error: AppError): Record<string, unknown> {
  switch (error.shape) {
    case "auth":
      return { error: error.errorField, detail: error.detail };
    case "validation":
      return {
        error: "validation_error",
        detail: Detail.validationFailed,
        errors: error.fields.map((f) => ({ field: f.field, message: f.message })),
      };
    case "standard":
      return {
        error: error.errorField,
        detail: error.detail,
        code: error.kind === "internal" ? "INTERNAL_ERROR" : `HTTP_${error.status}`,
      };
  }
}
