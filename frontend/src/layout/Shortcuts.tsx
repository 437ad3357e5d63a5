import { Kbd, Modal, Table } from "@mantine/core";
import { useDisclosure, useWindowEvent } from "@mantine/hooks";
import { t } from "../i18n";

/** The console's keyboard shortcuts, as the "?" dialog lists them. */
export const shortcuts = [
  { keys: ["/"], does: t("layout.Shortcuts.goToTheSearch") },
  { keys: ["?"], does: t("layout.Shortcuts.showTheseShortcuts") },
  { keys: [t("layout.Shortcuts.esc")], does: t("layout.Shortcuts.closeADialogOr") },
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
    <Modal opened={opened} onClose={close} title={t("layout.Shortcuts.keyboardShortcuts")}>
      <Table verticalSpacing="xs" aria-label={t("layout.Shortcuts.keyboardShortcuts")}>
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
