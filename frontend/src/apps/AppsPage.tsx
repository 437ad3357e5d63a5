import { Button, Group, Stack, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useIsAdmin } from "../auth/useMe";
import { QueryView } from "../components/QueryView";
import { AppsTable } from "./AppsTable";
import { CreateAppDialog } from "./CreateAppDialog";
import { useApps } from "./useApps";
import { t } from "../i18n";

export function AppsPage() {
  const [result, reexecute] = useApps();
  const [creating, { open, close }] = useDisclosure(false);
  // Only administrators may create apps (the server refuses others).
  const admin = useIsAdmin();

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("apps.AppsPage.apps")}</Title>
        {admin && <Button onClick={open}>{t("apps.AppsPage.createApp")}</Button>}
      </Group>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("apps.AppsPage.loadingApps")}
        isEmpty={(data) => data.apps.length === 0}
        empty={
          admin
            ? t("apps.AppsPage.noAppsYetCreate")
            : t("apps.AppsPage.youHaveNoRole")
        }
      >
        {(data) => <AppsTable apps={data.apps} />}
      </QueryView>
      {admin && <CreateAppDialog opened={creating} onClose={close} />}
    </Stack>
  );
}
