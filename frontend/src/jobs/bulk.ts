import type { CombinedError } from "urql";
import { errorMessage } from "../api/errors";

/** What a bulk action does to each selected job. */
export type BulkAction = "enable" | "disable" | "run" | "delete";

/** One job's outcome of a bulk action. */
export interface BulkOutcome {
  id: string;
  name: string;
  /** Why it failed; null when done. */
  error: string | null;
}

/**
 * Runs `one` for each job in turn (the API has one mutation per job), and
 * says how each ended: a refusal of one job stops none of the others.
 */
export async function runBulk(
  jobs: readonly { id: string; name: string }[],
  one: (id: string) => Promise<{ error?: CombinedError | undefined }>,
): Promise<BulkOutcome[]> {
  const out: BulkOutcome[] = [];
  for (const job of jobs) {
    let error: string | null = null;
    try {
      const result = await one(job.id);
      if (result.error) error = errorMessage(result.error);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    out.push({ id: job.id, name: job.name, error });
  }
  return out;
}

/** The worker tags the jobs require, each once, sorted. */
export function tagsOf(jobs: readonly { workerFilter: { tags: readonly string[] } }[]): string[] {
  return [...new Set(jobs.flatMap((j) => j.workerFilter.tags))].sort();
}
