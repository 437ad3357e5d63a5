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

/** A value that changed between two definitions, at its path (e.g. alarm.rules[0].threshold). */
export interface ChangedValue {
  field: string;
  /** undefined: absent on that side. */
  before: unknown;
  after: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Every value that differs between two definitions, with its value before
 * and after, at its path: objects and lists are followed down to what
 * changed in them, so a change of an alarm names the rule and the value.
 */
export function changedValues(before: Record<string, unknown>, after: Record<string, unknown>): ChangedValue[] {
  const out: ChangedValue[] = [];
  const walk = (path: string, a: unknown, b: unknown, depth: number) => {
    if (JSON.stringify(a ?? null) === JSON.stringify(b ?? null)) return;
    if (depth < 6 && isObject(a) && isObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const k of keys) walk(path ? `${path}.${k}` : k, a[k], b[k], depth + 1);
      return;
    }
    if (depth < 6 && Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      a.forEach((x, i) => walk(`${path}[${String(i)}]`, x, b[i], depth + 1));
      return;
    }
    out.push({ field: path, before: a, after: b });
  };
  walk("", before, after, 0);
  return out;
}
