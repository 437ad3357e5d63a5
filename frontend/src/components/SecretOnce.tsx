import type { ReactNode } from "react";
import { Alert, Button, Code, CopyButton, Group, Stack, Text } from "@mantine/core";
import { t } from "../i18n";

interface SecretOnceProps {
  /** What the secret is and where it goes. */
  children: ReactNode;
  secret: string;
  /** The copy button's label, e.g. "Copy secret". */
  copyLabel?: string;
  onDone: () => void;
  /** Shown below the secret, e.g. a command that uses it. */
  usage?: ReactNode;
  "data-testid"?: string;
}

/**
 * A secret the server returns this one time only (an app secret, an API
 * token): shown with a copy button and a warning, until Done.
 */
export function SecretOnce({ children, secret, copyLabel = t("components.SecretOnce.copySecret"), onDone, usage, ...rest }: SecretOnceProps) {
  return (
    <Stack>
      <Text component="div">{children}</Text>
      <Code block data-testid={rest["data-testid"]} style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
        {secret}
      </Code>
      {usage}
      <Alert color="yellow" title={t("components.SecretOnce.copyItNow")} role="alert">{t("components.SecretOnce.itWillNotBe")}</Alert>
      <Group justify="flex-end">
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Button variant="light" color={copied ? "teal" : undefined} onClick={copy}>
              {copied ? t("components.SecretOnce.copied") : copyLabel}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone}>{t("components.SecretOnce.done")}</Button>
      </Group>
    </Stack>
  );
}
