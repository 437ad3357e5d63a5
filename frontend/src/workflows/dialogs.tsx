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
import { t } from "../i18n";

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
      notifications.show({ color: "teal", message: t("workflows.dialogs.deletedTheWorkflow"), title: <Truncated text={workflow.name} /> });
      onClose();
      onDeleted?.();
    }
  }
  return (
    <ConfirmDialog
      opened={workflow !== null}
      title={t("workflows.dialogs.deleteWorkflow")}
      confirmLabel={t("workflows.dialogs.deleteWorkflow")}
      danger
      busy={fetching}
      error={error}
      onConfirm={() => void confirm()}
      onClose={onClose}
    >{t("workflows.dialogs.deleteWorkflow")}{" "}<b>{workflow?.name}</b>{" "}{t("workflows.dialogs.withItsVersionsAnd")}</ConfirmDialog>
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
        title: (enabled ? t("workflows.dialogs.couldNotEnable", { name: workflow.name }) : t("workflows.dialogs.couldNotDisable", { name: workflow.name })),
        message: errorMessage(result.error),
      });
    }
  }
  return (
    <Switch
      checked={workflow.enabled}
      disabled={fetching}
      onChange={(e) => void toggle(e.currentTarget.checked)}
      aria-label={t("workflows.dialogs.enabled", { name: workflow.name })}
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
        title: t("workflows.dialogs.couldNotExport", { name: workflow.name }),
        message: result.error ? errorMessage(result.error) : t("workflows.dialogs.noAnswer"),
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
      setParseError(t("workflows.dialogs.mustBeAJson"));
      return;
    }
    setParseError(null);
    const result = await importWorkflow({ app, definition, replace }, context);
    if (result.data) {
      notifications.show({ color: "teal", message: t("workflows.dialogs.importedWorkflow", { name: result.data.importWorkflow.name }) });
      onClose();
      void navigate(appPath(app, "workflows", result.data.importWorkflow.id));
    }
  }

  return (
    <Modal opened={opened} onClose={onClose} title={t("workflows.dialogs.importAWorkflow")} size="lg">
      <Stack>
        <Text size="sm" c="dimmed">{t("workflows.dialogs.theJsonAWorkflow", { app: app })}</Text>
        <FileButton accept="application/json,.json" onChange={(f) => void f?.text().then(setText)}>
          {(props) => (
            <Button variant="default" size="xs" w="fit-content" {...props}>{t("workflows.dialogs.readAFile")}</Button>
          )}
        </FileButton>
        <Textarea
          label={t("workflows.dialogs.definition")}
          autosize
          minRows={6}
          maxRows={18}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          value={text}
          error={parseError}
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <Checkbox
          label={t("workflows.dialogs.replaceTheAppS")}
          checked={replace}
          onChange={(e) => setReplace(e.currentTarget.checked)}
        />
        {error && (
          <Alert color="red" title={t("workflows.dialogs.couldNotImport")} role="alert">
            <Text size="sm" style={{ whiteSpace: "pre-line" }}>
              {errorMessage(error)}
            </Text>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>{t("workflows.dialogs.cancel")}</Button>
          <Button onClick={() => void submit()} loading={fetching} disabled={text.trim() === ""}>{t("workflows.dialogs.import")}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
