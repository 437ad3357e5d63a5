import { Fieldset, Radio, Stack } from "@mantine/core";
import type { JobFormApi } from "./formApi";
import { misfirePolicies } from "./labels";

export function MisfireFields({ form }: { form: JobFormApi }) {
  return (
    <Fieldset legend="Misfire policy">
      <Radio.Group
        label="After downtime or a fail-over"
        description="What happens to fires missed while no server could run them."
        key={form.key("misfirePolicy")}
        {...form.getInputProps("misfirePolicy")}
      >
        <Stack gap="xs" mt="xs">
          {misfirePolicies.map((p) => (
            <Radio key={p.value} value={p.value} label={p.label} description={p.description} />
          ))}
        </Stack>
      </Radio.Group>
    </Fieldset>
  );
}
