import { Fieldset, NumberInput, Radio, SimpleGrid, Stack } from "@mantine/core";
import { useWatch, type JobFormApi } from "./formApi";
import { overlapPolicies } from "./labels";
import { PoolField } from "./PoolField";
import { t } from "../i18n";

/** What a fire over max instances does, how many fires a queue holds, the job's dispatch priority, and its pool. */
export function OverlapFields({ form, app }: { form: JobFormApi; app: string }) {
  // Max queued matters to QUEUE alone; it shows only then.
  const queue = useWatch(form, "overlapPolicy", (v) => v.overlapPolicy === "QUEUE");
  return (
    <Fieldset legend={t("jobs.OverlapFields.overlapPriorityAndPool")}>
      <Stack gap="md">
        <Radio.Group
          label={t("jobs.OverlapFields.overlapPolicy")}
          description={t("jobs.OverlapFields.whatAFireDoes")}
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
              label={t("jobs.OverlapFields.maxQueued")}
              description={t("jobs.OverlapFields.firesThatMayWait")}
              min={1}
              allowDecimal={false}
              key={form.key("maxQueued")}
              {...form.getInputProps("maxQueued")}
            />
          )}
          <NumberInput
            clampBehavior="none"
            label={t("jobs.OverlapFields.priority")}
            description={t("jobs.OverlapFields.higherGoesFirstWhen")}
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
