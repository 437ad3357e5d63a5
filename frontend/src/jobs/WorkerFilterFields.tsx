import { Fieldset, NumberInput, Select, SimpleGrid, Stack, TagsInput } from "@mantine/core";
import { useWatch, type JobFormApi } from "./formApi";
import { dispatchStrategies, selectData } from "./labels";
import { t } from "../i18n";

/** Which workers may run the job's tasks, and how one is chosen. */
export function WorkerFilterFields({ form }: { form: JobFormApi }) {
  const strategy = useWatch(form, "dispatchStrategy", (v) => v.dispatchStrategy);
  return (
    <Fieldset legend={t("jobs.WorkerFilterFields.workerFilter")}>
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TagsInput
            label={t("jobs.WorkerFilterFields.designatedWorkers")}
            description={t("jobs.WorkerFilterFields.workerHostsOrIds")}
            clearable
            key={form.key("workerFilter.designated")}
            {...form.getInputProps("workerFilter.designated")}
          />
          <TagsInput
            label={t("jobs.WorkerFilterFields.requiredTags")}
            description={t("jobs.WorkerFilterFields.tagsEveryChosenWorker")}
            clearable
            key={form.key("workerFilter.tags")}
            {...form.getInputProps("workerFilter.tags")}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <NumberInput
            clampBehavior="none"
            label={t("jobs.WorkerFilterFields.minCpuCores")}
            min={0}
            allowDecimal={false}
            key={form.key("workerFilter.minCpuCores")}
            {...form.getInputProps("workerFilter.minCpuCores")}
          />
          <NumberInput
            clampBehavior="none"
            label={t("jobs.WorkerFilterFields.minFreeMemoryMb")}
            min={0}
            allowDecimal={false}
            key={form.key("workerFilter.minMemoryMB")}
            {...form.getInputProps("workerFilter.minMemoryMB")}
          />
          <NumberInput
            clampBehavior="none"
            label={t("jobs.WorkerFilterFields.minFreeDiskMb")}
            min={0}
            allowDecimal={false}
            key={form.key("workerFilter.minDiskMB")}
            {...form.getInputProps("workerFilter.minDiskMB")}
          />
          <NumberInput
            clampBehavior="none"
            label={t("jobs.WorkerFilterFields.maxWorkers")}
            description={t("jobs.WorkerFilterFields.perInstance0All")}
            min={0}
            allowDecimal={false}
            key={form.key("workerFilter.maxWorkers")}
            {...form.getInputProps("workerFilter.maxWorkers")}
          />
        </SimpleGrid>
        <Select
          label={t("jobs.WorkerFilterFields.dispatchStrategy")}
          data={selectData(dispatchStrategies)}
          allowDeselect={false}
          maw={360}
          description={dispatchStrategies.find((c) => c.value === strategy)?.description}
          key={form.key("dispatchStrategy")}
          {...form.getInputProps("dispatchStrategy")}
        />
      </Stack>
    </Fieldset>
  );
}
