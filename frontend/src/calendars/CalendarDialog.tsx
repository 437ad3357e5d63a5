import { useState, type SubmitEvent } from "react";
import { Alert, Button, Group, Modal, Stack, Text, TextInput, Textarea } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { useOpenings } from "../components/useOpenings";
import type { CalendarFieldsFragment } from "../graphql/graphql";
import { formatDates, parseDates } from "./dates";
import { CreateCalendarMutation, UpdateCalendarMutation } from "./operations";
import { t } from "../i18n";

/** What the dialog shows: a new calendar, or one to edit (or, read-only, to look at). */
export type CalendarDialogTarget = { kind: "new" } | { kind: "edit"; calendar: CalendarFieldsFragment };

interface CalendarDialogProps {
  app: string;
  /** null: closed. */
  target: CalendarDialogTarget | null;
  /** Shows the calendar without a way to change it (a VIEWER). */
  readOnly: boolean;
  onClose: () => void;
}

/** Creates a calendar, or edits one (its name, description and dates). */
/** Two example dates, one a line. */
const datesPlaceholder = ["2026-12-25", "2026-12-26"].join("\n");

export function CalendarDialog({ app, target, readOnly, onClose }: CalendarDialogProps) {
  const openings = useOpenings(target !== null);
  const calendar = target?.kind === "edit" ? target.calendar : null;
  const title = !target ? "" : calendar ? (readOnly ? t("calendars.CalendarDialog.calendar", { name: calendar.name }) : t("calendars.CalendarDialog.edit", { name: calendar.name })) : t("calendars.CalendarDialog.newCalendar");
  return (
    <Modal opened={target !== null} onClose={onClose} title={title} size="lg">
      {target && (
        <CalendarForm key={openings} app={app} calendar={calendar} readOnly={readOnly} onDone={onClose} />
      )}
    </Modal>
  );
}

const fields = ["name", "description", "dates"] as const;

interface CalendarFormProps {
  app: string;
  calendar: CalendarFieldsFragment | null;
  readOnly: boolean;
  onDone: () => void;
}

function CalendarForm({ app, calendar, readOnly, onDone }: CalendarFormProps) {
  const [created, create] = useMutation(CreateCalendarMutation);
  const [updated, update] = useMutation(UpdateCalendarMutation);
  const { fetching, error } = calendar ? updated : created;
  const [name, setName] = useState(calendar?.name ?? "");
  const [description, setDescription] = useState(calendar?.description ?? "");
  const [text, setText] = useState(formatDates(calendar?.dates ?? []));
  const [submitted, setSubmitted] = useState(false);
  const { dates, bad } = parseDates(text);

  const errors = fieldErrors(error);
  const general = error && !fields.some((f) => f in errors) ? errorMessage(error) : undefined;
  const datesError = submitted && bad.length > 0 ? t("calendars.CalendarDialog.notADateSuch", { join: bad.join(", ") }) : errors[t("calendars.CalendarDialog.dates")];

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitted(true);
    if (bad.length > 0) return;
    const input = { app, name: name.trim(), description, dates };
    const result = calendar ? await update({ id: calendar.id, input }) : await create({ input });
    if (result.error) return;
    notifications.show({ color: "teal", message: (calendar ? t("calendars.CalendarDialog.savedCalendar", { name: input.name }) : t("calendars.CalendarDialog.createdCalendar", { name: input.name })) });
    onDone();
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      {/* A VIEWER sees the calendar with every input off. */}
      <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack>
          {general && (
            <Alert color="red" title={(calendar ? t("calendars.CalendarDialog.couldNotSave") : t("calendars.CalendarDialog.couldNotCreate"))} role="alert">
              <Text size="sm" style={{ whiteSpace: "pre-line" }}>
                {general}
              </Text>
            </Alert>
          )}
          <TextInput
            label={t("calendars.CalendarDialog.name")}
            description={t("calendars.CalendarDialog.uniqueInTheApp")}
            required
            data-autofocus
            maxLength={128}
            autoComplete="off"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={errors["name"]}
          />
          <TextInput
            label={t("calendars.CalendarDialog.description")}
            placeholder={t("calendars.CalendarDialog.eGPublicHolidays")}
            maxLength={2000}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={errors["description"]}
          />
          <Textarea
            label={t("calendars.CalendarDialog.excludedDates")}
            description={t("calendars.CalendarDialog.yyyyMmDdOne", { count: dates.length })}
            placeholder={datesPlaceholder}
            autosize
            minRows={6}
            maxRows={16}
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            error={datesError}
          />
        </Stack>
      </fieldset>
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onDone}>
          {readOnly ? t("calendars.CalendarDialog.close") : t("calendars.CalendarDialog.cancel")}
        </Button>
        {!readOnly && (
          <Button type="submit" loading={fetching}>
            {calendar ? t("calendars.CalendarDialog.saveCalendar") : t("calendars.CalendarDialog.createCalendar")}
          </Button>
        )}
      </Group>
    </form>
  );
}
