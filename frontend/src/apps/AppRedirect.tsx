import { Anchor, Stack, Text, Title } from "@mantine/core";
import { Link, Navigate, useLocation } from "react-router";
import { ErrorState, LoadingState } from "../components/states";
import { appPath, useRememberedApp } from "./currentApp";
import { useApps } from "./useApps";
import { t } from "../i18n";

interface AppRedirectProps {
  /** The per-app screen's path, e.g. "jobs". */
  screen: string;
  label: string;
}

/**
 * A per-app screen's address without an app (/jobs): goes on to the app
 * chosen last, or the first one, keeping the query string.
 */
export function AppRedirect({ screen, label }: AppRedirectProps) {
  const [{ data, error }, reexecute] = useApps();
  const [remembered] = useRememberedApp();
  const { search } = useLocation();

  if (!data) {
    return error ? (
      <ErrorState error={error} onRetry={() => reexecute({ requestPolicy: "network-only" })} />
    ) : (
      <LoadingState label={t("apps.AppRedirect.loadingApps")} />
    );
  }
  const names = data.apps.map((a) => a.name);
  const app = names.includes(remembered) ? remembered : names[0];
  if (app === undefined) {
    return (
      <Stack>
        <Title order={2}>{label}</Title>
        <Text>{t("apps.AppRedirect.belongToAnApp", { label: label })}{" "}<Anchor component={Link} to="/apps">{t("apps.AppRedirect.createAnApp")}</Anchor>{" "}{t("apps.AppRedirect.first")}</Text>
      </Stack>
    );
  }
  return <Navigate to={appPath(app, screen) + search} replace />;
}
