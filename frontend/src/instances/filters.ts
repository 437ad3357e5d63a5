import type { InstanceStatus } from "../graphql/graphql";
import { isInstanceStatus } from "./status";

/** What the instances list is narrowed to; kept in the URL's query string. */
export interface InstanceFilters {
  jobId: string | null;
  statuses: InstanceStatus[];
  /** RFC 3339 instants: triggered in [from, to). */
  from: string | null;
  to: string | null;
}

export const noFilters: InstanceFilters = { jobId: null, statuses: [], from: null, to: null };

function instant(value: string | null): string | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/**
 * The filters a URL names (?job=3&status=FAILED&status=STOPPED&from=…&to=…;
 * "status=FAILED,STOPPED" too); unknown values are ignored.
 */
export function readFilters(params: URLSearchParams): InstanceFilters {
  const statuses = params
    .getAll("status")
    .flatMap((s) => s.split(","))
    .map((s) => s.trim().toUpperCase())
    .filter(isInstanceStatus);
  return {
    jobId: params.get("job") || null,
    statuses: [...new Set(statuses)],
    from: instant(params.get("from")),
    to: instant(params.get("to")),
  };
}

/** The query string for some filters, leaving out those not set. */
export function filterParams(f: InstanceFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (f.jobId) params.set("job", f.jobId);
  for (const s of f.statuses) params.append("status", s);
  if (f.from) params.set("from", f.from);
  if (f.to) params.set("to", f.to);
  return params;
}

export function hasFilters(f: InstanceFilters): boolean {
  return f.jobId !== null || f.statuses.length > 0 || f.from !== null || f.to !== null;
}
