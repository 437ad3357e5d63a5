import { useState } from "react";
import { Modal } from "@mantine/core";
import { useMutation, type CombinedError } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { AgentCommand } from "../apps/AgentCommand";
import { SecretOnce } from "../components/SecretOnce";
import { ActionCard } from "./ActionCard";
import { RotateAppSecretMutation } from "./operations";
import { t } from "../i18n";

/** Gives the app a new secret after asking, then shows it this once. */
export function RotateSecret({ app }: { app: string }) {
  const [{ fetching }, rotate] = useMutation(RotateAppSecretMutation);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<CombinedError | undefined>(undefined);
  const [secret, setSecret] = useState<string | null>(null);
  const [showing, setShowing] = useState(false);

  async function confirm() {
    const result = await rotate({ app });
    setError(result.error);
    if (result.data) {
      setAsking(false);
      setSecret(result.data.rotateAppSecret.secret);
      setShowing(true);
    }
  }

  return (
    <ActionCard
      id="secret"
      title={t("settings.RotateSecret.appSecret")}
      description={
        <>{t("settings.RotateSecret.workersAuthenticateWithThe")}</>
      }
      action={t("settings.RotateSecret.rotateSecret")}
      onAction={() => {
        setError(undefined);
        setAsking(true);
      }}
    >
      <ConfirmDialog
        opened={asking}
        title={t("settings.RotateSecret.rotateTheAppSecret")}
        confirmLabel={t("settings.RotateSecret.rotateSecret")}
        danger
        busy={fetching}
        error={error}
        onConfirm={() => void confirm()}
        onClose={() => setAsking(false)}
      >{t("settings.RotateSecret.giveApp")}{" "}<strong>{app}</strong>{" "}{t("settings.RotateSecret.aNewSecretWorkers")}</ConfirmDialog>
      <Modal
        opened={showing}
        onClose={() => setShowing(false)}
        // Forget the secret once the dialog is gone, not during its fade.
        onExitTransitionEnd={() => setSecret(null)}
        title={t("settings.RotateSecret.newAppSecret")}
        size="lg"
        // Only Done or the close button dismisses it, so a stray key press does not lose it.
        closeOnClickOutside={false}
        closeOnEscape={false}
      >
        {secret !== null && (
          <SecretOnce
            secret={secret}
            onDone={() => setShowing(false)}
            data-testid="app-secret"
            usage={<AgentCommand app={app} secret={secret} />}
          >{t("settings.RotateSecret.app")}{" "}<strong>{app}</strong>{" "}{t("settings.RotateSecret.hasANewSecret")}</SecretOnce>
        )}
      </Modal>
    </ActionCard>
  );
}
