import { Group, Select, Text } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { useMatch, useNavigate } from "react-router";
import { appPath, useRememberedApp } from "./currentApp";
import { useApps } from "./useApps";
import { t } from "../i18n";

/**
 * The header's app choice. On a per-app screen it shows that screen's app,
 * and choosing another opens the same screen (its list) for that app;
 * elsewhere it opens the chosen app's dashboard.
 */
export function AppPicker() {
  const id = useId();
  const [{ data }] = useApps();
  const [remembered, remember] = useRememberedApp();
  const match = useMatch("/apps/:app/:screen/*");
  const navigate = useNavigate();
  const names = data?.apps.map((a) => a.name) ?? [];
  if (names.length === 0) return null;

  const current = match?.params.app ?? (names.includes(remembered) ? remembered : null);

  function choose(name: string) {
    if (!name || name === match?.params.app) return;
    remember(name);
    void navigate(appPath(name, match?.params.screen ?? "dashboard"));
  }

  return (
    <Group gap={6} wrap="nowrap">
      <Text component="label" htmlFor={id} size="sm" c="dimmed" fw={500}>{t("apps.AppPicker.app")}</Text>
      <Select
        id={id}
        data={names}
        value={current}
        // Every choice, even of the app shown (from Apps, the app chosen
        // last shows, and choosing it opens it).
        onOptionSubmit={choose}
        placeholder={t("apps.AppPicker.chooseAnApp")}
        searchable
        allowDeselect={false}
        nothingFoundMessage={t("apps.AppPicker.noSuchApp")}
        size="sm"
        w={200}
        comboboxProps={{ withinPortal: true }}
      />
    </Group>
  );
}
