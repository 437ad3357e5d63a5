import { Anchor, Drawer, Group, Stack } from "@mantine/core";
import { Link } from "react-router";
import { appPath } from "../apps/currentApp";
import type { InstanceRowFragment } from "../graphql/graphql";
import { LogViewer } from "./LogViewer";
import { StatusBadge } from "./StatusBadge";
import { isUnfinished } from "./status";
import { useInstanceLogs } from "./useInstanceLogs";
import { t } from "../i18n";

/** An instance's log beside the list it was opened from, live while it runs. */
export function LogDrawer({ app, instance, onClose }: { app: string; instance: InstanceRowFragment | null; onClose: () => void }) {
  return (
    <Drawer
      opened={instance !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={instance ? t("instances.LogDrawer.title", { id: instance.id }) : ""}
    >
      {instance && <DrawerLog app={app} instance={instance} />}
    </Drawer>
  );
}

function DrawerLog({ app, instance }: { app: string; instance: InstanceRowFragment }) {
  const live = isUnfinished(instance.status);
  const logs = useInstanceLogs(instance.id, live);
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <StatusBadge status={instance.status} size="sm" />
        <Anchor component={Link} to={appPath(app, "instances", instance.id)} size="sm">
          {t("instances.LogDrawer.openInstance")}
        </Anchor>
      </Group>
      <LogViewer
        lines={logs.lines}
        live={live && !logs.complete}
        loaded={logs.loaded}
        error={logs.error}
        fileName={`instance-${instance.id}.log`}
      />
    </Stack>
  );
}
