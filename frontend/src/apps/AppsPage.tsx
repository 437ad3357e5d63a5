import { Button, Group, Stack, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useIsAdmin } from "../auth/useMe";
import { QueryView } from "../components/QueryView";
import { AppsTable } from "./AppsTable";
import { CreateAppDialog } from "./CreateAppDialog";
import { useApps } from "./useApps";

export function AppsPage() {
  const [result, reexecute] = useApps();
  const [creating, { open, close }] = useDisclosure(false);
  // Only administrators may create apps (the server refuses others).
  const admin = useIsAdmin();

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Apps</Title>
        {admin && <Button onClick={open}>Create app</Button>}
      </Group>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading apps"
        isEmpty={(data) => data.apps.length === 0}
        empty={
          admin
            ? "No apps yet. Create one, then start workers with its name and secret."
            : "You have no role on any app yet. An app’s owner or an administrator can give you one."
        }
      >
        {(data) => <AppsTable apps={data.apps} />}
      </QueryView>
      {admin && <CreateAppDialog opened={creating} onClose={close} />}
    </Stack>
  );
}
