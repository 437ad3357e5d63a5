import { Checkbox, Fieldset, Group, NumberInput, SimpleGrid, Stack, TagsInput } from "@mantine/core";
import type { JobFormApi } from "./formApi";

/** Whom to tell when the job fails or times out. */
export function AlarmFields({ form }: { form: JobFormApi }) {
  return (
    <Fieldset legend="Alarm">
      <Stack gap="sm">
        <Group>
          <Checkbox
            label="When an instance fails"
            key={form.key("alarm.onFailure")}
            {...form.getInputProps("alarm.onFailure", { type: "checkbox" })}
          />
          <Checkbox
            label="When an instance times out"
            key={form.key("alarm.onTimeout")}
            {...form.getInputProps("alarm.onTimeout", { type: "checkbox" })}
          />
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TagsInput
            label="Webhooks"
            description="http(s) URLs to POST the alarm to. Enter after each."
            clearable
            key={form.key("alarm.webhooks")}
            {...form.getInputProps("alarm.webhooks")}
          />
          <TagsInput
            label="Emails"
            description="Addresses to mail the alarm to. Enter after each."
            clearable
            key={form.key("alarm.emails")}
            {...form.getInputProps("alarm.emails")}
          />
        </SimpleGrid>
        <NumberInput
          clampBehavior="none"
          label="Quiet period (seconds)"
          description="No further alarm for this job this long after one."
          min={0}
          allowDecimal={false}
          maw={240}
          key={form.key("alarm.silenceSec")}
          {...form.getInputProps("alarm.silenceSec")}
        />
      </Stack>
    </Fieldset>
  );
}
