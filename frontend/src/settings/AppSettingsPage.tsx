import type { ReactNode } from "react";
import { Badge, Card, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "urql";
import { useAppName } from "../apps/currentApp";
import { canManage } from "../apps/useAppRole";
import { useIsAdmin } from "../auth/useMe";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import type { AppSettingsQuery } from "../graphql/graphql";
import { AddMemberForm } from "./AddMemberForm";
import { DeleteApp } from "./DeleteApp";
import { MembersTable } from "./MembersTable";
import { AppSettingsQuery as AppSettings } from "./operations";
import { Retention } from "./Retention";
import { RotateSecret } from "./RotateSecret";
import { t } from "../i18n";

type App = AppSettingsQuery["apps"][number];

/** /apps/:app/settings: the app, its members and roles, its secret. */
export function AppSettingsPage() {
  const app = useAppName();
  const [result, reexecute] = useQuery({ query: AppSettings });

  return (
    <Stack>
      <div>
        <Title order={2}>{t("settings.AppSettingsPage.settings")}</Title>
        <Text c="dimmed" size="sm">{t("settings.AppSettingsPage.appWhoMayDo", { app: app })}</Text>
      </div>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("settings.AppSettingsPage.loadingTheAppS")}
        isEmpty={(data) => !data.apps.some((a) => a.name === app)}
        empty={<>{t("settings.AppSettingsPage.thereIsNoApp", { app: app })}</>}
      >
        {(data) => {
          const found = data.apps.find((a) => a.name === app);
          return found && <Settings app={found} />;
        }}
      </QueryView>
    </Stack>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text component="div" size="sm">
        {children}
      </Text>
    </div>
  );
}

function Settings({ app }: { app: App }) {
  const owner = canManage(app.myRole ?? null);
  const admin = useIsAdmin();
  return (
    <Stack gap="lg">
      <Card withBorder radius="md">
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          <Field label={t("settings.AppSettingsPage.name")}>{app.name}</Field>
          <Field label={t("settings.AppSettingsPage.description")}>{app.description || "—"}</Field>
          <Field label={t("settings.AppSettingsPage.created")}>
            <Timestamp value={app.createdAt} />
          </Field>
          <Field label={t("settings.AppSettingsPage.yourRole")}>{app.myRole ? <Badge variant="light">{app.myRole}</Badge> : "—"}</Field>
        </SimpleGrid>
      </Card>

      <Stack gap="xs" component="section" aria-labelledby="members-title">
        <Title order={3} size="h4" id="members-title">{t("settings.AppSettingsPage.members")}</Title>
        <Text size="sm" c="dimmed">
          {owner
            ? t("settings.AppSettingsPage.whoHasARole")
            : t("settings.AppSettingsPage.whoHasARole2", { value: app.myRole ?? t("common.none") })}
        </Text>
        <MembersTable app={app.name} members={app.members} editable={owner} />
        {owner && <AddMemberForm app={app.name} />}
      </Stack>

      <Retention app={app.name} days={app.retentionDays} editable={owner} />

      {owner && <RotateSecret app={app.name} />}
      {owner && admin && <DeleteApp app={app.name} />}
    </Stack>
  );
}
