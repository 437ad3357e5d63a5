import { Fieldset, Stack, Switch, TextInput, Textarea } from "@mantine/core";
import type { JobFormApi } from "./formApi";

export function BasicsFields({ form }: { form: JobFormApi }) {
  return (
    <Fieldset legend="Basics">
      <Stack gap="sm">
        <TextInput
          label="Name"
          description="Unique in the app; at most 128 characters."
          required
          maxLength={128}
          autoComplete="off"
          spellCheck={false}
          key={form.key("name")}
          {...form.getInputProps("name")}
        />
        <Textarea
          label="Description"
          autosize
          minRows={2}
          maxRows={6}
          key={form.key("description")}
          {...form.getInputProps("description")}
        />
        <Switch
          label="Enabled"
          description="A disabled job does not fire on its schedule; it can still be run by hand."
          key={form.key("enabled")}
          {...form.getInputProps("enabled", { type: "checkbox" })}
        />
      </Stack>
    </Fieldset>
  );
}
