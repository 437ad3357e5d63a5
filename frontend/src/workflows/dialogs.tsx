import { useState } from "react";
import { Alert, Button, Checkbox, FileButton, Group, Modal, Stack, Switch, Text, Textarea } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useNavigate } from "react-router";
import { useClient, useMutation } from "urql";
import { errorMessage } from "../api/errors";
import { appPath } from "../apps/currentApp";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Truncated } from "../components/Truncated";
import type { WorkflowRowFragment } from "../graphql/graphql";
import {
  DeleteWorkflowMutation,
  ExportWorkflowQuery,
  ImportWorkflowMutation,
  SetWorkflowEnabledMutation,
} from "./operations";

// Mutations that return a Boolean or another type name none for the document cache to refetch.
const context = { additionalTypenames: ["Workflow", "WorkflowInstance"] };

export function DeleteWorkflowDialog({
  workflow,
  onClose,
  onDeleted,
}: {
  workflow: Pick<WorkflowRowFragment, "id" | "name"> | null;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const [{ fetching, error }, remove] = useMutation(DeleteWorkflowMutation);
  async function confirm() {
    if (!workflow) return;
    const result = await remove({ id: workflow.id }, context);
    if (!result.error) {
      notifications.show({ color: "teal", message: "Deleted the workflow.", title: <Truncated text={workflow.name} /> });
      onClose();
      onDeleted?.();
    }
  }
  return (
    <ConfirmDialog
      opened={workflow !== null}
      title="Delete workflow"
      confirmLabel="Delete workflow"
      danger
      busy={fetching}
      error={error}
      onConfirm={() => void confirm()}
      onClose={onClose}
    >
      Delete workflow <b>{workflow?.name}</b> with its versions and runs? Runs still running must be stopped first.
      This cannot be undone.
    </ConfirmDialog>
  );
}

/** Turns a workflow's schedule on or off (setWorkflowEnabled). */
export function WorkflowEnabledSwitch({ workflow }: { workflow: Pick<WorkflowRowFragment, "id" | "name" | "enabled"> }) {
  const [{ fetching }, setEnabled] = useMutation(SetWorkflowEnabledMutation);
  async function toggle(enabled: boolean) {
    const result = await setEnabled({ id: workflow.id, enabled });
    if (result.error) {
      notifications.show({
        color: "red",
        title: `Could not ${enabled ? "enable" : "disable"} ${workflow.name}`,
        message: errorMessage(result.error),
      });
    }
  }
  return (
    <Switch
      checked={workflow.enabled}
      disabled={fetching}
      onChange={(e) => void toggle(e.currentTarget.checked)}
      aria-label={`${workflow.name} enabled`}
    />
  );
}

/** Saves a file in the browser. */
function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

/** Exports a workflow (exportWorkflow) as a .json file. */
export function useExportWorkflow() {
  const client = useClient();
  return async (workflow: Pick<WorkflowRowFragment, "id" | "name">) => {
    const result = await client.query(ExportWorkflowQuery, { id: workflow.id }, { requestPolicy: "network-only" }).toPromise();
    if (result.error || !result.data) {
      notifications.show({
        color: "red",
        title: `Could not export ${workflow.name}`,
        message: result.error ? errorMessage(result.error) : "No answer.",
      });
      return;
    }
    const safe = workflow.name.replace(/[^A-Za-z0-9._-]+/g, "-");
    download(`workflow-${safe}.json`, JSON.stringify(result.data.exportWorkflow, null, 2) + "\n");
  };
}

/** Imports a workflow from exportWorkflow's JSON (pasted or from a file). */
export function ImportWorkflowDialog({ app, opened, onClose }: { app: string; opened: boolean; onClose: () => void }) {
  const [text, setText] = useState("");
  const [replace, setReplace] = useState(false);
  const [parseError, setParseError] = useState<string | null>(null);
  const [{ fetching, error }, importWorkflow] = useMutation(ImportWorkflowMutation);
  const navigate = useNavigate();

  async function submit() {
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (e) {
      setParseError(`Not JSON: ${(e as Error).message}`);
      return;
    }
    if (typeof definition !== "object" || definition === null || Array.isArray(definition)) {
      setParseError("Must be a JSON object, as Export writes it.");
      return;
    }
    setParseError(null);
    const result = await importWorkflow({ app, definition, replace }, context);
    if (result.data) {
      notifications.show({ color: "teal", message: `Imported workflow ${result.data.importWorkflow.name}.` });
      onClose();
      void navigate(appPath(app, "workflows", result.data.importWorkflow.id));
    }
  }

  return (
    <Modal opened={opened} onClose={onClose} title="Import a workflow" size="lg">
      <Stack>
        <Text size="sm" c="dimmed">
          The JSON a workflow’s Export wrote. Its jobs and nested workflows are found in app {app} by name.
        </Text>
        <FileButton accept="application/json,.json" onChange={(f) => void f?.text().then(setText)}>
          {(props) => (
            <Button variant="default" size="xs" w="fit-content" {...props}>
              Read a file…
            </Button>
          )}
        </FileButton>
        <Textarea
          label="Definition"
          autosize
          minRows={6}
          maxRows={18}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          value={text}
          error={parseError}
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <Checkbox
          label="Replace the app’s workflow of the same name (as its next version)"
          checked={replace}
          onChange={(e) => setReplace(e.currentTarget.checked)}
        />
        {error && (
          <Alert color="red" title="Could not import" role="alert">
            <Text size="sm" style={{ whiteSpace: "pre-line" }}>
              {errorMessage(error)}
            </Text>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void submit()} loading={fetching} disabled={text.trim() === ""}>
            Import
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
