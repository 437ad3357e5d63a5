import { Anchor, AppShell, Burger, Group } from "@mantine/core";
import { useDisclosure, useDocumentTitle } from "@mantine/hooks";
import { Link, Outlet, useMatches } from "react-router";
import { AppPicker } from "../apps/AppPicker";
import { MainNav } from "./MainNav";
import { Shortcuts } from "./Shortcuts";
import { LanguageSwitch } from "./LanguageSwitch";
import { UserMenu } from "./UserMenu";
import { t } from "../i18n";

/** What a screen's route carries in its `handle`. */
export interface RouteHandle {
  title: string;
}

function usePageTitle(): string {
  const matches = useMatches();
  const last = matches.at(-1);
  const handle = last?.handle as RouteHandle | undefined;
  const app = last?.params["app"];
  if (!handle) return "jobwheel";
  return app ? t("layout.Shell.jobwheel", { title: handle.title, app: app }) : t("layout.Shell.jobwheel2", { title: handle.title });
}

/** The frame around every screen: header with the user menu, navbar, content. */
export function Shell() {
  const [navOpened, { toggle, close }] = useDisclosure(false);
  useDocumentTitle(usePageTitle());

  return (
    <AppShell
      header={{ height: 56 }}
      // Below md (992 px) the navbar folds away behind the burger, so an
      // 800 px window gives its whole width to the screen.
      navbar={{ width: 220, breakpoint: "md", collapsed: { mobile: !navOpened } }}
      padding={{ base: "sm", md: "lg" }}
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="lg" wrap="nowrap">
            <Burger
              opened={navOpened}
              onClick={toggle}
              hiddenFrom="md"
              size="sm"
              aria-label={navOpened ? t("layout.Shell.closeNavigation") : t("layout.Shell.openNavigation")}
            />
            <Anchor component={Link} to="/" fw={700} size="lg" c="var(--mantine-color-text)" underline="never">{t("layout.Shell.jobwheel3")}</Anchor>
            <AppPicker />
          </Group>
          <Group gap="sm" wrap="nowrap">
            <LanguageSwitch />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label={t("layout.Shell.main")}>
        <MainNav onNavigate={close} />
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
      <Shortcuts />
    </AppShell>
  );
}
