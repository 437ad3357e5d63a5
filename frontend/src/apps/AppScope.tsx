import { useEffect } from "react";
import { Anchor, Stack, Text, Title } from "@mantine/core";
import { Link, Outlet } from "react-router";
import { ErrorState, LoadingState } from "../components/states";
import { useAppName, useRememberedApp } from "./currentApp";
import { useApps } from "./useApps";
import { t } from "../i18n";

/**
 * The frame of the per-app screens (/apps/:app/…): it checks that the app
 * exists and remembers it as the one to open next time.
 */
export function AppScope() {
  const app = useAppName();
  const [{ data, error }, reexecute] = useApps();
  const [remembered, remember] = useRememberedApp();
  const exists = data?.apps.some((a) => a.name === app) ?? false;

  useEffect(() => {
    if (exists && remembered !== app) remember(app);
  }, [exists, app, remembered, remember]);

  if (!data) {
    return error ? (
      <ErrorState error={error} onRetry={() => reexecute({ requestPolicy: "network-only" })} />
    ) : (
      <LoadingState label={t("apps.AppScope.loadingApps")} />
    );
  }
  if (!exists) {
    return (
      <Stack>
        <Title order={2}>{t("apps.AppScope.noApp", { app: app })}</Title>
        <Text>{t("apps.AppScope.thereIsNoApp")}{" "}<Anchor component={Link} to="/apps">{t("apps.AppScope.seeTheApps")}</Anchor>
          .
        </Text>
      </Stack>
    );
  }
  return <Outlet />;
}
