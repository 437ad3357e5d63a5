import { Fieldset, Stack, Switch, TextInput, Textarea } from "@mantine/core";
import type { JobFormApi } from "./formApi";
import { t } from "../i18n";

export function BasicsFields({ form }: { form: JobFormApi }) {
  return (
    <Fieldset legend={t("jobs.BasicsFields.basics")}>
      <Stack gap="sm">
        <TextInput
          label={t("jobs.BasicsFields.name")}
          description={t("jobs.BasicsFields.uniqueInTheApp")}
          required
          maxLength={128}
          autoComplete="off"
          spellCheck={false}
          key={form.key("name")}
          {...form.getInputProps("name")}
        />
        <Textarea
          label={t("jobs.BasicsFields.description")}
          autosize
          minRows={2}
          maxRows={6}
          key={form.key("description")}
          {...form.getInputProps("description")}
        />
        <Switch
          label={t("jobs.BasicsFields.enabled")}
          description={t("jobs.BasicsFields.aDisabledJobDoes")}
          key={form.key("enabled")}
          {...form.getInputProps("enabled", { type: "checkbox" })}
        />
      </Stack>
    </Fieldset>
  );
}
