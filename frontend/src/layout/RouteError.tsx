import { Alert, Button, Center, Code, Stack, Text } from "@mantine/core";
import { isRouteErrorResponse, useRouteError } from "react-router";

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
      <Alert color="red" title="The console hit an error" role="alert" maw={560} w="100%">
        <Stack gap="sm">
          <Text size="sm">This page could not be shown. Reloading usually helps; if not, the browser console has details.</Text>
          <Code block>{describe(error)}</Code>
          <Button variant="light" color="red" size="xs" w="fit-content" onClick={() => window.location.reload()}>
            Reload
          </Button>
        </Stack>
      </Alert>
    </Center>
  );
}
