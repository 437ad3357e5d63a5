import type { CombinedError } from "urql";
import { t } from "../i18n";

/**
 * The values of extensions.code the server sends (docs/design.md §9.4); a
 * subscription may also end with SLOW_CONSUMER or UNAVAILABLE.
 */
export type ErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "BAD_INPUT"
  | "NOT_FOUND"
  | "CONFLICT"
  | "INTERNAL"
  | "SLOW_CONSUMER"
  | "UNAVAILABLE";

export function hasErrorCode(error: CombinedError | undefined, code: ErrorCode): boolean {
  return error?.graphQLErrors.some((e) => e.extensions["code"] === code) ?? false;
}

/**
 * A BAD_INPUT message without the "field: " the server starts it with:
 * shown at its field, the field's name would only be said twice.
 */
export function reasonOf(message: string, field: string): string {
  const prefix = `${field}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/**
 * The reasons of BAD_INPUT errors by the input field they name
 * (extensions.field), for showing next to that field: every form words
 * them the same way.
 */
export function fieldErrors(error: CombinedError | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of error?.graphQLErrors ?? []) {
    const field = e.extensions["field"];
    if (e.extensions["code"] === "BAD_INPUT" && typeof field === "string" && !(field in out)) {
      out[field] = reasonOf(e.message, field);
    }
  }
  return out;
}

/** What to tell a person about an error. */
export function errorMessage(error: CombinedError): string {
  if (error.networkError) {
    return t("api.errors.theServerCouldNot");
  }
  const messages = error.graphQLErrors.map((e) => e.message);
  return messages.length > 0 ? messages.join("\n") : error.message;
}
