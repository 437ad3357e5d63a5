import { Badge } from "@mantine/core";
import { t } from "../i18n";

/** Who keeps an object's definition (Job, Workflow: managedBy and managedSource). */
export interface Managed {
  managedBy?: string | null;
  managedSource?: string | null;
}

/** Says where a managed object's definition lives, and that a change made here does not last. */
export function managedNote({ managedBy, managedSource }: Managed): string | null {
  if (!managedBy) return null;
  return managedSource === "FILES"
    ? t("components.ManagedBadge.appliedFromTheFiles", { managedBy: managedBy })
    : t("components.ManagedBadge.declaredInTheCode", { managedBy: managedBy });
}

/** A badge for a job or workflow that a set of files or of code manages; nothing for one that none does. */
export function ManagedBadge(props: Managed) {
  const note = managedNote(props);
  if (!note) return null;
  const label = props.managedSource === t("components.ManagedBadge.files") ? t("components.ManagedBadge.managedByFiles", { managedBy: props.managedBy }) : t("components.ManagedBadge.managedByCode", { managedBy: props.managedBy });
  return (
    <Badge variant="light" color="violet" w="fit-content" title={note} style={{ textTransform: "none" }}>
      {label}
    </Badge>
  );
}
