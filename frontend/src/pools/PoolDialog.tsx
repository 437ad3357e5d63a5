import { useState, type SubmitEvent } from "react";
import { Alert, Button, Group, Modal, NumberInput, Stack, Text, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { useOpenings } from "../components/useOpenings";
import type { PoolFieldsFragment } from "../graphql/graphql";
import { CreatePoolMutation, UpdatePoolMutation } from "./operations";
import { poolText as text } from "./strings";

/** What the dialog shows: a new pool, or one to edit (or, read-only, to look at). */
export type PoolDialogTarget = { kind: "new" } | { kind: "edit"; pool: PoolFieldsFragment };

interface PoolDialogProps {
  app: string;
  /** null: closed. */
  target: PoolDialogTarget | null;
  /** Shows the pool without a way to change it (a VIEWER). */
  readOnly: boolean;
  onClose: () => void;
  onSaved: () => void;
}

/** Creates a pool, or changes one's slots and description. */
export function PoolDialog({ app, target, readOnly, onClose, onSaved }: PoolDialogProps) {
  const openings = useOpenings(target !== null);
  const pool = target?.kind === "edit" ? target.pool : null;
  const title = !target ? "" : pool ? (readOnly ? text.showTitle(pool.name) : text.editTitle(pool.name)) : text.newTitle;
  return (
    <Modal opened={target !== null} onClose={onClose} title={title}>
      {target && (
        <PoolForm
          key={openings}
          app={app}
          pool={pool}
          readOnly={readOnly}
          onDone={(saved) => {
            if (saved) onSaved();
            onClose();
          }}
        />
      )}
    </Modal>
  );
}

const fields = ["name", "description", "slots"] as const;

interface PoolFormProps {
  app: string;
  pool: PoolFieldsFragment | null;
  readOnly: boolean;
  onDone: (saved: boolean) => void;
}

function PoolForm({ app, pool, readOnly, onDone }: PoolFormProps) {
  const [created, create] = useMutation(CreatePoolMutation);
  const [updated, update] = useMutation(UpdatePoolMutation);
  const { fetching, error } = pool ? updated : created;
  const [name, setName] = useState(pool?.name ?? "");
  const [description, setDescription] = useState(pool?.description ?? "");
  const [slots, setSlots] = useState<number | string>(pool?.slots ?? 1);

  const errors = fieldErrors(error);
  const general = error && !fields.some((f) => f in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = { app, name: name.trim(), description, slots: typeof slots === "number" ? slots : Number(slots) };
    const result = pool ? await update({ id: pool.id, input }) : await create({ input });
    if (result.error) return;
    notifications.show({ color: "teal", message: text.saved(pool !== null, input.name) });
    onDone(true);
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack>
          {general && (
            <Alert color="red" title={text.couldNot(pool !== null)} role="alert">
              <Text size="sm" style={{ whiteSpace: "pre-line" }}>
                {general}
              </Text>
            </Alert>
          )}
          <TextInput
            label={text.name}
            description={text.nameHelp}
            required
            data-autofocus
            maxLength={128}
            autoComplete="off"
            readOnly={pool !== null}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={errors["name"]}
          />
          <TextInput
            label={text.descriptionLabel}
            placeholder={text.descriptionPlaceholder}
            maxLength={2000}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={errors["description"]}
          />
          <NumberInput
            clampBehavior="none"
            label={text.slots}
            description={text.slotsHelp}
            required
            min={1}
            max={10000}
            allowDecimal={false}
            value={slots}
            onChange={setSlots}
            error={errors["slots"]}
          />
        </Stack>
      </fieldset>
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={() => onDone(false)}>
          {readOnly ? text.close : text.cancel}
        </Button>
        {!readOnly && (
          <Button type="submit" loading={fetching}>
            {pool ? text.save : text.create}
          </Button>
        )}
      </Group>
    </form>
  );
}
