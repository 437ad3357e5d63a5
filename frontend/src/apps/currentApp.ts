import { useParams } from "react-router";
import { useLocalStorage } from "@mantine/hooks";

/** Where the last app chosen is kept, so the console opens on it next time. */
const storageKey = "jobwheel.app";

/**
 * The app last chosen in this browser ("" if none yet) and a setter that
 * remembers another; every user of the hook sees the change.
 */
export function useRememberedApp(): [string, (name: string) => void] {
  const [app, setApp] = useLocalStorage({ key: storageKey, defaultValue: "", getInitialValueInEffect: false });
  return [app, setApp];
}

/** The app of a per-app screen: the `:app` segment of /apps/:app/…. */
export function useAppName(): string {
  const { app } = useParams();
  if (!app) throw new Error("useAppName is for screens under /apps/:app");
  return app;
}

/** A per-app screen's path, e.g. appPath("orders", "jobs", "new"). */
export function appPath(app: string, ...rest: (string | number)[]): string {
  return ["", "apps", encodeURIComponent(app), ...rest.map((s) => String(s))].join("/");
}
