import { Button, Code, CopyButton, Stack, Tabs, Text } from "@mantine/core";
import { t } from "../i18n";

/** A value as one shell word: as it is when that is safe, else in single quotes. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_.,:/@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** What an agent of `app` needs to connect to the server the console is served from. */
function agentEnv(app: string, secret: string, server: string): [string, string][] {
  return [
    ["JOBWHEEL_SERVERS", server],
    ["JOBWHEEL_APP", app],
    ["JOBWHEEL_APP_SECRET", secret],
  ];
}

/** The command that starts the agent binary (bin/jobwheel-agent after `make build`). */
export function binaryCommand(app: string, secret: string, server: string): string {
  const env = agentEnv(app, secret, server).map(([k, v]) => `${k}=${shellWord(v)}`);
  return t("apps.AgentCommand.binJobwheelAgent", { join: env.join(" \\\n") });
}

/**
 * The command that starts the agent's image (docker build --target agent
 * -t jobwheel-agent .). A server on this machine's loopback is reached from
 * the container through the host's network.
 */
export function dockerCommand(app: string, secret: string, server: string): string {
  const host = new URL(server).hostname;
  const loopback = host === "localhost" || host === "127.0.0.1" || host === "[::1]";
  const env = agentEnv(app, secret, server).map(([k, v]) => t("apps.AgentCommand.e", { k: k, shellWord: shellWord(v) }));
  return [`docker run -d --name jobwheel-agent-${app}${loopback ? " --network host" : ""}`, ...env, "  jobwheel-agent"].join(
    " \\\n",
  );
}

function Command({ command, label }: { command: string; label: string }) {
  return (
    <Stack gap={6}>
      <Code block data-testid={label} style={{ whiteSpace: "pre-wrap", wordBreak: "break-all" }}>
        {command}
      </Code>
      <CopyButton value={command}>
        {({ copied, copy }) => (
          <Button variant="default" size="xs" w="fit-content" onClick={copy} color={copied ? "teal" : undefined}>
            {copied ? t("apps.AgentCommand.copied") : t("apps.AgentCommand.copyThe", { label: label })}
          </Button>
        )}
      </CopyButton>
    </Stack>
  );
}

/**
 * How to start an agent for the app, ready to paste: the binary or the
 * Docker image, with this server's URL, the app and its secret filled in.
 */
export function AgentCommand({ app, secret }: { app: string; secret: string }) {
  const server = window.location.origin;
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>{t("apps.AgentCommand.startAnAgentThat")}</Text>
      <Tabs defaultValue="binary" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="binary">{t("apps.AgentCommand.agentBinary")}</Tabs.Tab>
          <Tabs.Tab value="docker">{t("apps.AgentCommand.docker")}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="binary" pt="xs">
          <Command label={t("apps.AgentCommand.agentCommand")} command={binaryCommand(app, secret, server)} />
        </Tabs.Panel>
        <Tabs.Panel value="docker" pt="xs">
          <Command label={t("apps.AgentCommand.dockerCommand")} command={dockerCommand(app, secret, server)} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
