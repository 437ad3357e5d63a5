import { Button, Group, MultiSelect, Select } from "@mantine/core";
import { DateTimePicker } from "@mantine/dates";
import dayjs from "dayjs";
import type { InstanceStatus } from "../graphql/graphql";
import { hasFilters, noFilters, type InstanceFilters } from "./filters";
import { instanceStatuses } from "./status";
import { t } from "../i18n";

interface JobChoice {
  id: string;
  name: string;
}

interface InstanceFilterBarProps {
  filters: InstanceFilters;
  onChange: (filters: InstanceFilters) => void;
  jobs: JobChoice[];
}

const pickerFormat = "YYYY-MM-DD HH:mm:ss";

/** An instant as the date pickers hold it: wall-clock time here. */
function toLocal(instant: string | null): string | null {
  return instant ? dayjs(instant).format(pickerFormat) : null;
}

function fromLocal(wall: string | null): string | null {
  return wall ? dayjs(wall).toISOString() : null;
}

/** The instances list's filters: job, statuses, and when they were triggered (in this browser's time). */
export function InstanceFilterBar({ filters, onChange, jobs }: InstanceFilterBarProps) {
  const jobData = jobs.map((j) => ({ value: j.id, label: j.name }));
  // A job in the URL that is not among those loaded still shows.
  if (filters.jobId && !jobs.some((j) => j.id === filters.jobId)) {
    jobData.unshift({ value: filters.jobId, label: t("instances.InstanceFilterBar.job", { jobId: filters.jobId }) });
  }
  return (
    <Group align="flex-end" gap="sm">
      <Select
        label={t("instances.InstanceFilterBar.job2")}
        placeholder={t("instances.InstanceFilterBar.allJobs")}
        data={jobData}
        value={filters.jobId}
        onChange={(jobId) => onChange({ ...filters, jobId })}
        searchable
        clearable
        nothingFoundMessage={t("instances.InstanceFilterBar.noSuchJob")}
        w={200}
      />
      <MultiSelect
        label={t("instances.InstanceFilterBar.status")}
        placeholder={filters.statuses.length === 0 ? t("instances.InstanceFilterBar.anyStatus") : undefined}
        data={instanceStatuses}
        value={filters.statuses}
        onChange={(statuses) => onChange({ ...filters, statuses: statuses as InstanceStatus[] })}
        clearable
        w={260}
      />
      <DateTimePicker
        label={t("instances.InstanceFilterBar.triggeredFrom")}
        placeholder={t("instances.InstanceFilterBar.anyTime")}
        value={toLocal(filters.from)}
        onChange={(v) => onChange({ ...filters, from: fromLocal(v) })}
        clearable
        withSeconds
        valueFormat={pickerFormat}
        w={190}
      />
      <DateTimePicker
        label={t("instances.InstanceFilterBar.triggeredBefore")}
        placeholder={t("instances.InstanceFilterBar.anyTime")}
        value={toLocal(filters.to)}
        onChange={(v) => onChange({ ...filters, to: fromLocal(v) })}
        clearable
        withSeconds
        valueFormat={pickerFormat}
        w={190}
      />
      {hasFilters(filters) && (
        <Button variant="subtle" onClick={() => onChange(noFilters)}>{t("instances.InstanceFilterBar.clearFilters")}</Button>
      )}
    </Group>
  );
}
