/**
 * The HTTP edge of the error taxonomy: renders an {@link AppError} in the spec's three body shapes
 * (standard, auth/rate, validation) with its headers. Nothing else builds an error response.
 */
import { AppError, Detail } from "../errors/taxonomy.ts";

/** The JSON body of an error response. */
export function errorBody(error: AppError): Record<string, unknown> {
  switch (error.shape) {
    case "auth":
      return { error: error.errorField, detail: error.detail };
    case "validation":
      return { error: "validation_error", detail: Detail.validationFailed, errors: error.fields.map((f) => ({ field: f.field, message: f.message })) };
    case "standard":
      return { error: error.errorField, detail: error.detail, code: error.kind === "internal" ? "INTERNAL_ERROR" : `HTTP_${error.status}` };
  }
}

/** Headers an error response carries besides Content-Type. */
export function errorHeaders(error: AppError): Record<string, string> {
  const headers: Record<string, string> = { ...error.headers };
  if (error.status === 401) headers["www-authenticate"] = "Bearer";
  if (error.status === 429) headers["retry-after"] = String(error.retryAfter ?? 60);
  else if (error.retryAfter !== undefined) headers["retry-after"] = String(error.retryAfter);
  return headers;
}
