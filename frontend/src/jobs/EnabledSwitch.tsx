import { Switch } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { errorMessage } from "../api/errors";
import type { JobRowFragment } from "../graphql/graphql";
import { SetJobEnabledMutation } from "./operations";
import { t } from "../i18n";

interface EnabledSwitchProps {
  job: Pick<JobRowFragment, "id" | "name" | "enabled">;
  /** Say "Enabled" or "Disabled" beside it (where no column header does). */
  label?: boolean;
}

/** Turns a job's schedule on or off (setJobEnabled). */
export function EnabledSwitch({ job, label = false }: EnabledSwitchProps) {
  const [{ fetching }, setEnabled] = useMutation(SetJobEnabledMutation);

  async function toggle(enabled: boolean) {
    const result = await setEnabled({ id: job.id, enabled });
    if (result.error) {
      notifications.show({
        color: "red",
        title: (enabled ? t("jobs.EnabledSwitch.couldNotEnable", { name: job.name }) : t("jobs.EnabledSwitch.couldNotDisable", { name: job.name })),
        message: errorMessage(result.error),
      });
    }
  }

  return (
    <Switch
      checked={job.enabled}
      disabled={fetching}
      onChange={(e) => void toggle(e.currentTarget.checked)}
      aria-label={t("jobs.EnabledSwitch.enabled", { name: job.name })}
      label={label ? (job.enabled ? t("jobs.EnabledSwitch.enabled2") : t("jobs.EnabledSwitch.disabled")) : undefined}
      style={{ flexShrink: 0 }}
    />
  );
}
