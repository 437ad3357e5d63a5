import { Anchor, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { screens } from "../screens";
import { t } from "../i18n";

export function NotFoundPage() {
  const home = screens[0];
  return (
    <Stack>
      <Title order={2}>{t("layout.NotFoundPage.pageNotFound")}</Title>
      <Text>{t("layout.NotFoundPage.nothingLivesAtThis")}{" "}<Anchor component={Link} to={`/${home.path}`}>{t("layout.NotFoundPage.goTo", { label: home.label })}</Anchor>
        .
      </Text>
    </Stack>
  );
}
