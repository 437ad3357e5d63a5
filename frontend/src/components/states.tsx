import type { ReactNode } from "react";
import { Alert, Button, Center, Group, Loader, Text } from "@mantine/core";
import type { CombinedError } from "urql";
import { errorMessage } from "../api/errors";
import { t } from "../i18n";

interface PlacementProps {
  /** Centre in the whole window, for when there is no shell around it. */
  fullPage?: boolean;
}

function Placement({ fullPage, children }: PlacementProps & { children: ReactNode }) {
  return (
    <Center mih={fullPage ? "100dvh" : undefined} py="xl" px="md">
      {children}
    </Center>
  );
}

export function LoadingState({ label, fullPage }: PlacementProps & { label: string }) {
  return (
    <Placement fullPage={fullPage}>
      <Group gap="sm" role="status">
        <Loader size="sm" />
        <Text c="dimmed">{label}…</Text>
      </Group>
    </Placement>
  );
}

export function EmptyState({ children }: { children: ReactNode }) {
  return (
    <Placement>
      <Text c="dimmed" ta="center">
        {children}
      </Text>
    </Placement>
  );
}

interface ErrorStateProps extends PlacementProps {
  error: CombinedError;
  onRetry: () => void;
}

export function ErrorState({ error, onRetry, fullPage }: ErrorStateProps) {
  return (
    <Placement fullPage={fullPage}>
      <Alert color="red" title={t("components.states.somethingWentWrong")} role="alert" maw={560} w="100%">
        <Text size="sm" style={{ whiteSpace: "pre-line" }}>
          {errorMessage(error)}
        </Text>
        <Button variant="light" color="red" size="xs" mt="sm" onClick={onRetry}>{t("components.states.tryAgain")}</Button>
      </Alert>
    </Placement>
  );
}
