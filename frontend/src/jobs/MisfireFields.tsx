import { Fieldset, Radio, Stack } from "@mantine/core";
import type { JobFormApi } from "./formApi";
import { misfirePolicies } from "./labels";
import { t } from "../i18n";

export function MisfireFields({ form }: { form: JobFormApi }) {
  return (
    <Fieldset legend={t("jobs.MisfireFields.misfirePolicy")}>
      <Radio.Group
        label={t("jobs.MisfireFields.afterDowntimeOrA")}
        description={t("jobs.MisfireFields.whatHappensToFires")}
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
