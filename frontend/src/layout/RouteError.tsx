import { Alert, Button, Center, Code, Stack, Text } from "@mantine/core";
import { isRouteErrorResponse, useRouteError } from "react-router";
import { t } from "../i18n";

function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${String(error.status)} ${error.statusText}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Shown in place of a screen that failed to render, instead of a blank page. */
export function RouteError() {
  const error = useRouteError();
  return (
    <Center mih="100dvh" p="md">
      <Alert color="red" title={t("layout.RouteError.theConsoleHitAn")} role="alert" maw={560} w="100%">
        <Stack gap="sm">
          <Text size="sm">{t("layout.RouteError.thisPageCouldNot")}</Text>
          <Code block>{describe(error)}</Code>
          <Button variant="light" color="red" size="xs" w="fit-content" onClick={() => window.location.reload()}>{t("layout.RouteError.reload")}</Button>
        </Stack>
      </Alert>
    </Center>
  );
}
