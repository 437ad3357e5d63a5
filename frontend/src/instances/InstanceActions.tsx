import { useState } from "react";
import { Button, Group, type MantineSize } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, type CombinedError } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog";
import type { InstanceFieldsFragment } from "../graphql/graphql";
import { RetryInstanceMutation, StopInstanceMutation } from "./operations";
import { isRetryable, isUnfinished } from "./status";
import { t } from "../i18n";

/** Stop (while unfinished) and Retry (once FAILED, STOPPED or CANCELED), each asked first. */
export function InstanceActions({
  instance,
  size,
}: {
  instance: Pick<InstanceFieldsFragment, "id" | "status" | "attempt">;
  /** Smaller buttons, in a list's row. */
  size?: MantineSize;
}) {
  const [asking, setAsking] = useState<"stop" | "retry" | null>(null);
  // This asking's failure only, not an earlier one's.
  const [error, setError] = useState<CombinedError | undefined>(undefined);
  const [stopState, stop] = useMutation(StopInstanceMutation);
  const [retryState, retry] = useMutation(RetryInstanceMutation);

  async function confirm() {
    const result = asking === "stop" ? await stop({ id: instance.id }) : await retry({ id: instance.id });
    setError(result.error);
    if (!result.error) {
      notifications.show({
        color: "teal",
        message: asking === "stop" ? t("instances.InstanceActions.stoppedInstance", { id: instance.id }) : t("instances.InstanceActions.instanceRunsAgain", { id: instance.id }),
      });
      setAsking(null);
    }
  }

  function ask(what: "stop" | "retry") {
    setError(undefined);
    setAsking(what);
  }

  const busy = asking === "stop" ? stopState.fetching : retryState.fetching;
  return (
    <Group gap={size ? 4 : "sm"} wrap="nowrap">
      {isUnfinished(instance.status) && (
        <Button color="red" variant="light" size={size} onClick={() => ask("stop")} aria-label={size ? t("instances.InstanceActions.stopNumbered", { id: instance.id }) : undefined}>{t("instances.InstanceActions.stop")}</Button>
      )}
      {isRetryable(instance.status) && (
        <Button size={size} variant={size ? "light" : "filled"} onClick={() => ask("retry")} aria-label={size ? t("instances.InstanceActions.retryNumbered", { id: instance.id }) : undefined}>{t("instances.InstanceActions.retry")}</Button>
      )}
      <ConfirmDialog
        opened={asking !== null}
        title={asking === "stop" ? t("instances.InstanceActions.stopInstance") : t("instances.InstanceActions.retryInstance")}
        confirmLabel={asking === "stop" ? t("instances.InstanceActions.stopInstance") : t("instances.InstanceActions.retryInstance")}
        danger={asking === "stop"}
        busy={busy}
        error={error}
        onConfirm={() => void confirm()}
        onClose={() => setAsking(null)}
      >
        {asking === "stop" ? (
          <>{t("instances.InstanceActions.stopInstanceItsTasks", { id: instance.id })}</>
        ) : (
          <>{t("instances.InstanceActions.runInstanceAgainAs", { id: instance.id, value: instance.attempt + 1 })}</>
        )}
      </ConfirmDialog>
    </Group>
  );
}
