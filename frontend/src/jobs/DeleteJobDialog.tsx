import { useMutation } from "urql";
import { notifications } from "@mantine/notifications";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Truncated } from "../components/Truncated";
import type { JobRowFragment } from "../graphql/graphql";
import { DeleteJobMutation } from "./operations";
import { t } from "../i18n";

// deleteJob returns a Boolean, which names no type for the document cache
// to refetch; this names the list's.
const context = { additionalTypenames: ["Job", "Instance"] };

interface DeleteJobDialogProps {
  /** The job to delete; null when closed. */
  job: Pick<JobRowFragment, "id" | "name"> | null;
  onClose: () => void;
  onDeleted?: () => void;
}

export function DeleteJobDialog({ job, onClose, onDeleted }: DeleteJobDialogProps) {
  const [{ fetching, error }, deleteJob] = useMutation(DeleteJobMutation);

  async function confirm() {
    if (!job) return;
    const result = await deleteJob({ id: job.id }, context);
    if (!result.error) {
      notifications.show({ color: "teal", message: t("jobs.DeleteJobDialog.deletedTheJob"), title: <Truncated text={job.name} /> });
      onClose();
      onDeleted?.();
    }
  }

  return (
    <ConfirmDialog
      opened={job !== null}
      title={t("jobs.DeleteJobDialog.deleteJob")}
      confirmLabel={t("jobs.DeleteJobDialog.deleteJob")}
      danger
      busy={fetching}
      error={error}
      onConfirm={() => void confirm()}
      onClose={onClose}
    >{t("jobs.DeleteJobDialog.deleteJob")}{" "}<Truncated
        text={job?.name ?? ""}
        fw={700}
        display="inline-block"
        style={{ verticalAlign: "bottom" }}
      />{" "}{t("jobs.DeleteJobDialog.andItsHistoryIts")}</ConfirmDialog>
  );
}
