import { Kbd, Modal, Table } from "@mantine/core";
import { useDisclosure, useWindowEvent } from "@mantine/hooks";

/** The console's keyboard shortcuts, as the "?" dialog lists them. */
export const shortcuts = [
  { keys: ["/"], does: "Go to the search field of the screen (jobs, a log)" },
  { keys: ["?"], does: "Show these shortcuts" },
  { keys: ["Esc"], does: "Close a dialog or menu; leave a field" },
] as const;

/** Whether a key press is typing into something, where a shortcut must not fire. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  );
}

/**
 * Listens for the console's shortcuts anywhere but in a field: "/" focuses
 * the screen's search field, "?" lists the shortcuts.
 */
export function Shortcuts() {
  const [opened, { open, close }] = useDisclosure(false);
  useWindowEvent("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "/") {
      const search = document.querySelector<HTMLInputElement>('main input[type="search"]');
      if (!search) return;
      event.preventDefault();
      search.focus();
      search.select();
    } else if (event.key === "?") {
      event.preventDefault();
      open();
    }
  });
  return (
    <Modal opened={opened} onClose={close} title="Keyboard shortcuts">
      <Table verticalSpacing="xs" aria-label="Keyboard shortcuts">
        <Table.Tbody>
          {shortcuts.map((s) => (
            <Table.Tr key={s.keys.join("+")}>
              <Table.Th scope="row" w={80} fw={400}>
                {s.keys.map((k) => (
                  <Kbd key={k}>{k}</Kbd>
                ))}
              </Table.Th>
              <Table.Td>{s.does}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Modal>
  );
}
