import { useState, type SubmitEvent } from "react";
import { Alert, Button, Group, Stack, TextInput, Textarea } from "@mantine/core";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import type { CreateAppMutation } from "../graphql/graphql";
import { CreateAppMutation as CreateApp } from "./operations";
import { t } from "../i18n";

export type CreatedApp = CreateAppMutation["createApp"];

interface CreateAppFormProps {
  onCreated: (created: CreatedApp) => void;
  onCancel: () => void;
}

/** The form's fields, named as the server names them in BAD_INPUT errors. */
const fields = ["name", "description"] as const;
type Values = Record<(typeof fields)[number], string>;

const empty: Values = { name: "", description: "" };

export function CreateAppForm({ onCreated, onCancel }: CreateAppFormProps) {
  const [{ fetching, error }, createApp] = useMutation(CreateApp);
  const [values, setValues] = useState(empty);
  // What was last sent: a field's error shows until the field is changed.
  const [sent, setSent] = useState(empty);

  const errors = fieldErrors(error);
  const fieldError = (field: keyof Values) => (values[field] === sent[field] ? errors[field] : undefined);
  // An error that names none of the form's fields is shown above them.
  const general = error && !fields.some((f) => f in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    setSent(values);
    const result = await createApp({ name: values.name.trim(), description: values.description.trim() || null });
    if (result.data) onCreated(result.data.createApp);
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack>
        {general && (
          <Alert color="red" title={t("apps.CreateAppForm.couldNotCreateThe")} role="alert">
            {general}
          </Alert>
        )}
        <TextInput
          label={t("apps.CreateAppForm.name")}
          description={t("apps.CreateAppForm.workersNameItIn")}
          required
          data-autofocus
          maxLength={64}
          autoComplete="off"
          spellCheck={false}
          value={values.name}
          onChange={(e) => setValues({ ...values, name: e.currentTarget.value })}
          error={fieldError("name")}
        />
        <Textarea
          label={t("apps.CreateAppForm.description")}
          autosize
          minRows={2}
          maxRows={6}
          value={values.description}
          onChange={(e) => setValues({ ...values, description: e.currentTarget.value })}
          error={fieldError("description")}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>{t("apps.CreateAppForm.cancel")}</Button>
          <Button type="submit" loading={fetching}>{t("apps.CreateAppForm.createApp")}</Button>
        </Group>
      </Stack>
    </form>
  );
}
