import { Navigate } from "react-router";
import { appPath } from "../apps/currentApp";
import { useApps } from "../apps/useApps";
import { ErrorState, LoadingState } from "../components/states";
import { screens } from "../screens";
import { t } from "../i18n";

/**
 * The console's home (/, where login leads): a user with exactly one app
 * has nothing to choose and lands on its dashboard; others get the list.
 */
export function HomeRedirect() {
  const [{ data, error }, reexecute] = useApps();
  if (!data) {
    return error ? (
      <ErrorState error={error} onRetry={() => reexecute({ requestPolicy: "network-only" })} />
    ) : (
      <LoadingState label={t("layout.HomeRedirect.loadingApps")} />
    );
  }
  const only = data.apps.length === 1 ? data.apps[0] : undefined;
  const firstAppScreen = screens.find((s) => s.perApp);
  if (only && firstAppScreen) return <Navigate to={appPath(only.name, firstAppScreen.path)} replace />;
  return <Navigate to={`/${screens[0].path}`} replace />;
}
