import { Badge } from "@mantine/core";

/** Who keeps an object's definition (Job, Workflow: managedBy and managedSource). */
export interface Managed {
  managedBy?: string | null;
  managedSource?: string | null;
}

/** Says where a managed object's definition lives, and that a change made here does not last. */
export function managedNote({ managedBy, managedSource }: Managed): string | null {
  if (!managedBy) return null;
  return managedSource === "FILES"
    ? `Applied from the files of set ${managedBy} (jobwheel apply): the next apply of the set overwrites a change saved here.`
    : `Declared in the code of job set ${managedBy}: the next time one of its workers connects, it overwrites a change saved here.`;
}

/** A badge for a job or workflow that a set of files or of code manages; nothing for one that none does. */
export function ManagedBadge(props: Managed) {
  const note = managedNote(props);
  if (!note) return null;
  const label = props.managedSource === "FILES" ? `Managed by ${props.managedBy} (files)` : `Managed by code: ${props.managedBy}`;
  return (
    <Badge variant="light" color="violet" w="fit-content" title={note} style={{ textTransform: "none" }}>
      {label}
    </Badge>
  );
}
