import { useState } from "react";
import { Button, Card, Group, Text, TextInput, Title } from "@mantine/core";
import { useNavigate } from "react-router";
import { useMutation, type CombinedError } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { DeleteAppMutation } from "./operations";

/** The apps list is re-read after a deletion. */
const context = { additionalTypenames: ["App"] };

/**
 * Deletes the app (administrators) once its name is typed: it takes every
 * job, instance and log with it. The server refuses while workers are
 * connected, and the dialog says which.
 */
export function DeleteApp({ app }: { app: string }) {
  const [{ fetching }, remove] = useMutation(DeleteAppMutation);
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<CombinedError | undefined>(undefined);
  const navigate = useNavigate();

  async function confirm() {
    const result = await remove({ app }, context);
    setError(result.error);
    if (result.data?.deleteApp) {
      setAsking(false);
      await navigate("/apps");
    }
  }

  return (
    <Card withBorder radius="md" component="section" aria-labelledby="delete-app-title">
      <Group justify="space-between" align="center" wrap="nowrap">
        <div>
          <Title order={3} size="h4" id="delete-app-title">
            Delete app
          </Title>
          <Text size="sm" c="dimmed">
            Deletes the app with all its jobs, instances, logs and members, and the API tokens scoped to it. Stop its
            workers first.
          </Text>
        </div>
        <Button
          color="red"
          variant="light"
          style={{ flexShrink: 0 }}
          onClick={() => {
            setError(undefined);
            setTyped("");
            setAsking(true);
          }}
        >
          Delete app
        </Button>
      </Group>
      <ConfirmDialog
        opened={asking}
        title="Delete the app"
        confirmLabel="Delete app"
        danger
        busy={fetching}
        confirmDisabled={typed !== app}
        error={error}
        onConfirm={() => void confirm()}
        onClose={() => setAsking(false)}
      >
        <Text size="sm" mb="sm">
          Delete app <strong>{app}</strong> and everything it holds? This cannot be undone.
        </Text>
        <TextInput
          label="Type the app's name to confirm"
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
        />
      </ConfirmDialog>
    </Card>
  );
}
