import { useState } from "react";
import { Button, Group, List, Paper, Select, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog";
import type { JobRowFragment } from "../graphql/graphql";
import { runBulk, tagsOf, type BulkAction, type BulkOutcome } from "./bulk";
import { DeleteJobMutation, RunJobMutation, SetJobEnabledMutation } from "./operations";
import { t } from "../i18n";

interface BulkBarProps {
  /** The jobs of the page, to pick by tag from. */
  jobs: readonly JobRowFragment[];
  selected: readonly JobRowFragment[];
  onSelect: (ids: string[]) => void;
  /** After an action, with how each job ended (the list is read again). */
  onDone: () => void;
}

const doneKeys: Record<BulkAction, string> = {
  enable: "jobs.BulkBar.enabled",
  disable: "jobs.BulkBar.disabled",
  run: "jobs.BulkBar.ran",
  delete: "jobs.BulkBar.deleted",
};

/**
 * What to do with several jobs at once: pick them by worker tag, then
 * enable, disable, run or delete them (run and delete asked first). Each
 * job is one call; the summary says which failed and why.
 */
export function BulkBar({ jobs, selected, onSelect, onDone }: BulkBarProps) {
  const [, setEnabled] = useMutation(SetJobEnabledMutation);
  const [, runJob] = useMutation(RunJobMutation);
  const [, deleteJob] = useMutation(DeleteJobMutation);
  const [asking, setAsking] = useState<BulkAction | null>(null);
  const [busy, setBusy] = useState(false);
  const tags = tagsOf(jobs);
  const count = selected.length;

  async function act(action: BulkAction) {
    setBusy(true);
    const one = (id: string) => {
      switch (action) {
        case "enable":
          return setEnabled({ id, enabled: true });
        case "disable":
          return setEnabled({ id, enabled: false });
        case "run":
          return runJob({ id });
        case "delete":
          return deleteJob({ id });
      }
    };
    const outcomes = await runBulk(selected, one);
    setBusy(false);
    setAsking(null);
    summarize(action, outcomes);
    // Deleted jobs leave the list; others stay chosen, for the next action.
    if (action === "delete") onSelect(outcomes.filter((o) => o.error).map((o) => o.id));
    onDone();
  }

  return (
    <Paper withBorder p="xs" radius="md">
      <Group gap="sm" wrap="wrap">
        {tags.length > 0 && (
          <Select
            size="xs"
            w={200}
            aria-label={t("jobs.BulkBar.selectByTag")}
            placeholder={t("jobs.BulkBar.selectByTag")}
            data={tags}
            value={null}
            onChange={(tag) => {
              if (tag) onSelect(jobs.filter((j) => j.workerFilter.tags.includes(tag)).map((j) => j.id));
            }}
          />
        )}
        <Text size="sm" fw={500} data-testid="bulk-count">
          {t("jobs.BulkBar.selected", { count })}
        </Text>
        <Button size="xs" variant="default" disabled={count === 0 || busy} onClick={() => void act("enable")}>
          {t("jobs.BulkBar.enable")}
        </Button>
        <Button size="xs" variant="default" disabled={count === 0 || busy} onClick={() => void act("disable")}>
          {t("jobs.BulkBar.disable")}
        </Button>
        <Button size="xs" variant="light" disabled={count === 0 || busy} onClick={() => setAsking("run")}>
          {t("jobs.BulkBar.runNow")}
        </Button>
        <Button size="xs" variant="subtle" color="red" disabled={count === 0 || busy} onClick={() => setAsking("delete")}>
          {t("jobs.BulkBar.delete")}
        </Button>
        {count > 0 && (
          <Button size="xs" variant="subtle" onClick={() => onSelect([])}>
            {t("jobs.BulkBar.clear")}
          </Button>
        )}
      </Group>
      <ConfirmDialog
        opened={asking !== null}
        title={asking === "delete" ? t("jobs.BulkBar.deleteTitle", { count }) : t("jobs.BulkBar.runTitle", { count })}
        confirmLabel={asking === "delete" ? t("jobs.BulkBar.deleteConfirm", { count }) : t("jobs.BulkBar.runConfirm", { count })}
        danger={asking === "delete"}
        busy={busy}
        onConfirm={() => asking && void act(asking)}
        onClose={() => setAsking(null)}
      >
        <Text size="sm">{asking === "delete" ? t("jobs.BulkBar.deleteBody") : t("jobs.BulkBar.runBody")}</Text>
        <List size="sm" mt="xs" style={{ overflowWrap: "anywhere" }}>
          {selected.map((j) => (
            <List.Item key={j.id}>{j.name}</List.Item>
          ))}
        </List>
      </ConfirmDialog>
    </Paper>
  );
}

/** Says how a bulk action ended: how many were done, and each failure with its reason. */
function summarize(action: BulkAction, outcomes: BulkOutcome[]) {
  const failed = outcomes.filter((o) => o.error);
  const done = outcomes.length - failed.length;
  notifications.show({
    color: failed.length === 0 ? "teal" : "red",
    title: t(doneKeys[action], { done, total: outcomes.length }),
    message:
      failed.length === 0 ? undefined : (
        <List size="xs" data-testid="bulk-failures">
          {failed.map((f) => (
            <List.Item key={f.id}>{t("jobs.BulkBar.failedOne", { name: f.name, error: f.error })}</List.Item>
          ))}
        </List>
      ),
    autoClose: failed.length === 0 ? 4_000 : false,
  });
}
