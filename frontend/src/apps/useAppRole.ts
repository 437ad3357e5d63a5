import { useParams } from "react-router";
import type { AppRole } from "../graphql/graphql";
import { useApps } from "./useApps";
import { t } from "../i18n";

/**
 * The caller's role on the app of the current per-app screen (App.myRole),
 * or null while it is unknown or the caller has none. AppScope has loaded
 * the apps before any per-app screen renders, so this reads the cache.
 */
export function useAppRole(): AppRole | null {
  const { app } = useParams();
  const [{ data }] = useApps();
  return data?.apps.find((a) => a.name === app)?.myRole ?? null;
}

/** Whether a role may create, change, run and stop jobs (OWNER or EDITOR). */
export function canEdit(role: AppRole | null): boolean {
  return role === "OWNER" || role === "EDITOR";
}

/** Whether a role may manage the app's members and secret (OWNER). */
export function canManage(role: AppRole | null): boolean {
  return role === "OWNER";
}

/**
 * Whether the caller may change things on this app. The UI hides what a
 * VIEWER may not do; the server still decides, and its FORBIDDEN shows.
 */
export function useCanEdit(): boolean {
  return canEdit(useAppRole());
}

/** The roles, highest first, with what each may do (as the schema says). */
export const appRoles: readonly { value: AppRole; label: string; description: string }[] = [
  { value: "OWNER", label: "OWNER", description: t("apps.useAppRole.everythingAnEditorMay") },
  { value: "EDITOR", label: "EDITOR", description: t("apps.useAppRole.createChangeRunAnd") },
  { value: "VIEWER", label: "VIEWER", description: t("apps.useAppRole.readOnly") },
];
