import { Fieldset, NumberInput, Select, SimpleGrid, Stack, TagsInput } from "@mantine/core";
import { useWatch, type JobFormApi } from "./formApi";
import { dispatchStrategies, selectData } from "./labels";

/** Which workers may run the job's tasks, and how one is chosen. */
export function WorkerFilterFields({ form }: { form: JobFormApi }) {
  const strategy = useWatch(form, "dispatchStrategy", (v) => v.dispatchStrategy);
  return (
    <Fieldset legend="Worker filter">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TagsInput
            label="Designated workers"
            description="Worker hosts or ids allowed; blank: any. Enter after each."
            clearable
            key={form.key("workerFilter.designated")}
            {...form.getInputProps("workerFilter.designated")}
          />
          <TagsInput
            label="Required tags"
            description="Tags every chosen worker must have. Enter after each."
            clearable
            key={form.key("workerFilter.tags")}
            {...form.getInputProps("workerFilter.tags")}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <NumberInput
            clampBehavior="none"
            label="Min CPU cores"
            min={0}
            allowDecimal={false}
            key={form.key("workerFilter.minCpuCores")}
            {...form.getInputProps("workerFilter.minCpuCores")}
          />
          <NumberInput
            clampBehavior="none"
            label="Min free memory (MB)"
            min={0}
            allowDecimal={false}
            key={form.key("workerFilter.minMemoryMB")}
            {...form.getInputProps("workerFilter.minMemoryMB")}
          />
          <NumberInput
            clampBehavior="none"
            label="Min free disk (MB)"
            min={0}
            allowDecimal={false}
            key={form.key("workerFilter.minDiskMB")}
            {...form.getInputProps("workerFilter.minDiskMB")}
          />
          <NumberInput
            clampBehavior="none"
            label="Max workers"
            description="Per instance; 0: all."
            min={0}
            allowDecimal={false}
            key={form.key("workerFilter.maxWorkers")}
            {...form.getInputProps("workerFilter.maxWorkers")}
          />
        </SimpleGrid>
        <Select
          label="Dispatch strategy"
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
