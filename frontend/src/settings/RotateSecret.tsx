import { useState } from "react";
import { Modal } from "@mantine/core";
import { useMutation, type CombinedError } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { AgentCommand } from "../apps/AgentCommand";
import { SecretOnce } from "../components/SecretOnce";
import { ActionCard } from "./ActionCard";
import { RotateAppSecretMutation } from "./operations";

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
      title="App secret"
      description={
        <>
          Workers authenticate with the app secret (JOBWHEEL_APP_SECRET). Rotating it gives the app a new one; workers
          still using the old one are refused when they next connect.
        </>
      }
      action="Rotate secret"
      onAction={() => {
        setError(undefined);
        setAsking(true);
      }}
    >
      <ConfirmDialog
        opened={asking}
        title="Rotate the app secret"
        confirmLabel="Rotate secret"
        danger
        busy={fetching}
        error={error}
        onConfirm={() => void confirm()}
        onClose={() => setAsking(false)}
      >
        Give app <strong>{app}</strong> a new secret? Workers still using the current one are refused when they next
        connect, until they are restarted with the new one.
      </ConfirmDialog>
      <Modal
        opened={showing}
        onClose={() => setShowing(false)}
        // Forget the secret once the dialog is gone, not during its fade.
        onExitTransitionEnd={() => setSecret(null)}
        title="New app secret"
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
          >
            App <strong>{app}</strong> has a new secret. Restart its workers with it (JOBWHEEL_APP_SECRET):
          </SecretOnce>
        )}
      </Modal>
    </ActionCard>
  );
}
