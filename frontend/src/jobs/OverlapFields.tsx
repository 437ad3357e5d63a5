import { Fieldset, NumberInput, Radio, SimpleGrid, Stack } from "@mantine/core";
import { useWatch, type JobFormApi } from "./formApi";
import { overlapPolicies } from "./labels";
import { PoolField } from "./PoolField";

/** What a fire over max instances does, how many fires a queue holds, the job's dispatch priority, and its pool. */
export function OverlapFields({ form, app }: { form: JobFormApi; app: string }) {
  // Max queued matters to QUEUE alone; it shows only then.
  const queue = useWatch(form, "overlapPolicy", (v) => v.overlapPolicy === "QUEUE");
  return (
    <Fieldset legend="Overlap, priority and pool">
      <Stack gap="md">
        <Radio.Group
          label="Overlap policy"
          description="What a fire does while max instances are running."
          key={form.key("overlapPolicy")}
          {...form.getInputProps("overlapPolicy")}
        >
          <Stack gap="xs" mt="xs">
            {overlapPolicies.map((p) => (
              <Radio key={p.value} value={p.value} label={p.label} description={p.description} />
            ))}
          </Stack>
        </Radio.Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {queue && (
            <NumberInput
              clampBehavior="none"
              label="Max queued"
              description="Fires that may wait; one more is canceled (QUEUE_FULL)."
              min={1}
              allowDecimal={false}
              key={form.key("maxQueued")}
              {...form.getInputProps("maxQueued")}
            />
          )}
          <NumberInput
            clampBehavior="none"
            label="Priority"
            description="Higher goes first when workers are short of slots (-1000 to 1000)."
            allowDecimal={false}
            key={form.key("priority")}
            {...form.getInputProps("priority")}
          />
        </SimpleGrid>
        <PoolField form={form} app={app} />
      </Stack>
    </Fieldset>
  );
}
