import { useState } from "react";
import { notifications } from "@mantine/notifications";
import { useMutation, type AnyVariables, type CombinedError, type DocumentInput } from "urql";

/**
 * A mutation on one item that a ConfirmDialog asks about first (delete,
 * revoke): `ask(item)` opens the dialog, `dialog` is what the dialog needs
 * (opened, busy, the last attempt's error, confirm and close). A success
 * says `done(item)` and calls `then` (e.g. a refetch: a mutation that
 * answers a Boolean tells the cache nothing).
 */
export function useConfirmed<T, Data, Variables extends AnyVariables>(
  mutation: DocumentInput<Data, Variables>,
  variables: (item: T) => Variables,
  done: (item: T) => string,
  then?: () => void,
) {
  const [{ fetching }, run] = useMutation(mutation);
  const [item, setItem] = useState<T | null>(null);
  const [error, setError] = useState<CombinedError | undefined>(undefined);

  async function confirm() {
    if (item === null) return;
    const result = await run(variables(item));
    setError(result.error);
    if (!result.error) {
      notifications.show({ color: "teal", message: done(item) });
      then?.();
      setItem(null);
    }
  }

  return {
    /** The item the dialog asks about; null while it is closed. */
    item,
    ask: (next: T) => {
      setError(undefined);
      setItem(next);
    },
    dialog: {
      opened: item !== null,
      busy: fetching,
      error,
      onConfirm: () => void confirm(),
      onClose: () => setItem(null),
    },
  };
}
