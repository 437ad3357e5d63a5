import { lazy, Suspense, useState } from "react";
import { Anchor, Box, Center, Group, Loader, PasswordInput, Text } from "@mantine/core";
import { useDebouncedValue, useDocumentTitle } from "@mantine/hooks";
import { Link } from "react-router";
import { t } from "../i18n";

const GraphiQLView = lazy(() => import("./GraphiQLView"));

const headerHeight = 56;

/**
 * /graphiql: the GraphQL explorer, built with the console and served by
 * the server, so it needs no internet. It runs as the logged-in user, or
 * with an API token pasted in (to try what a token may do).
 */
export function GraphiQLPage() {
  useDocumentTitle("GraphQL explorer · jobwheel");
  const [typed, setTyped] = useState("");
  const [token] = useDebouncedValue(typed.trim(), 500);
  return (
    <Box h="100dvh" style={{ display: "flex", flexDirection: "column" }}>
      <Group
        component="header"
        h={headerHeight}
        px="md"
        gap="lg"
        wrap="nowrap"
        justify="space-between"
        style={{ borderBottom: "1px solid var(--mantine-color-default-border)", flexShrink: 0 }}
      >
        <Group gap="md" wrap="nowrap">
          <Anchor component={Link} to="/" size="sm">{t("graphiql.GraphiQLPage.console")}</Anchor>
          <Text fw={700}>{t("graphiql.GraphiQLPage.graphqlExplorer")}</Text>
        </Group>
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" c="dimmed" visibleFrom="md">
            {token ? t("graphiql.GraphiQLPage.runsWithThisToken") : t("graphiql.GraphiQLPage.runsAsYouYour")}
          </Text>
          <PasswordInput
            aria-label={t("graphiql.GraphiQLPage.apiToken")}
            placeholder={t("graphiql.GraphiQLPage.apiTokenOptional")}
            size="xs"
            w={260}
            autoComplete="off"
            value={typed}
            onChange={(e) => setTyped(e.currentTarget.value)}
          />
        </Group>
      </Group>
      <Box style={{ flex: 1, minHeight: 0 }} data-testid="graphiql">
        <Suspense
          fallback={
            <Center h="100%">
              <Loader size="sm" aria-label={t("graphiql.GraphiQLPage.loadingTheExplorer")} />
            </Center>
          }
        >
          <GraphiQLView token={token} />
        </Suspense>
      </Box>
    </Box>
  );
}
