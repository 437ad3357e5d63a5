/** One line of a diff: kept in both, only in the old text, or only in the new. */
export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

/**
 * A line diff of two texts (longest common subsequence), old lines first
 * where both sides change. Texts beyond 2,000 lines each are compared as
 * wholly replaced, to bound the work.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  if (a.length > 2000 || b.length > 2000) {
    return [...a.map((text) => ({ kind: "removed" as const, text })), ...b.map((text) => ({ kind: "added" as const, text }))];
  }
  // lcs[i * w + j]: the common subsequence length of a[i:] and b[j:].
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  const at = (i: number, j: number) => lcs[i * w + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] ?? "";
    const y = b[j] ?? "";
    if (x === y) {
      out.push({ kind: "same", text: x });
      i++;
      j++;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      out.push({ kind: "removed", text: x });
      i++;
    } else {
      out.push({ kind: "added", text: y });
      j++;
    }
  }
  for (; i < a.length; i++) out.push({ kind: "removed", text: a[i] ?? "" });
  for (; j < b.length; j++) out.push({ kind: "added", text: b[j] ?? "" });
  return out;
}

/** The top-level fields whose values differ between two definitions. */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null)).sort();
}
