import { useState } from "react";
import { Text, TextInput } from "@mantine/core";
import { useNavigate } from "react-router";
import { useMutation, type CombinedError } from "urql";
import { useRememberedApp } from "../apps/currentApp";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ActionCard } from "./ActionCard";
import { DeleteAppMutation } from "./operations";
import { t } from "../i18n";

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
  const [remembered, remember] = useRememberedApp();

  async function confirm() {
    const result = await remove({ app }, context);
    setError(result.error);
    if (result.data?.deleteApp) {
      setAsking(false);
      // The navbar's per-app links would otherwise lead to the deleted app.
      if (remembered === app) remember("");
      await navigate("/apps");
    }
  }

  return (
    <ActionCard
      id="delete-app"
      title={t("settings.DeleteApp.deleteApp")}
      description={t("settings.DeleteApp.deletesTheAppWith")}
      action={t("settings.DeleteApp.deleteApp")}
      onAction={() => {
        setError(undefined);
        setTyped("");
        setAsking(true);
      }}
    >
      <ConfirmDialog
        opened={asking}
        title={t("settings.DeleteApp.deleteTheApp")}
        confirmLabel={t("settings.DeleteApp.deleteApp")}
        danger
        busy={fetching}
        confirmDisabled={typed !== app}
        error={error}
        onConfirm={() => void confirm()}
        onClose={() => setAsking(false)}
      >
        <Text size="sm" mb="sm">{t("settings.DeleteApp.deleteApp")}{" "}<strong>{app}</strong>{" "}{t("settings.DeleteApp.andEverythingItHolds")}</Text>
        <TextInput
          label={t("settings.DeleteApp.typeTheAppS")}
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
        />
      </ConfirmDialog>
    </ActionCard>
  );
}
