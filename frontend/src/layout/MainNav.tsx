import { NavLink } from "@mantine/core";
import { Link, matchPath, useLocation, useMatch } from "react-router";
import { appPath, useRememberedApp } from "../apps/currentApp";
import { useIsAdmin } from "../auth/useMe";
import { screens, type Screen } from "../screens";

/** The path pattern a screen and its pages live under. */
function pattern(screen: Screen): string {
  return screen.perApp ? `/apps/:app/${screen.path}/*` : `/${screen.path}/*`;
}

/**
 * The navbar: one link per screen; per-app screens link to the app shown
 * (or chosen last). `onNavigate` closes it on small screens.
 */
export function MainNav({ onNavigate }: { onNavigate: () => void }) {
  const { pathname } = useLocation();
  const [remembered] = useRememberedApp();
  const admin = useIsAdmin();
  const app = useMatch("/apps/:app/*")?.params.app ?? remembered;
  // Per-app screens first: /apps/orders/jobs is Jobs, not Apps.
  const matched =
    screens.find((s) => s.perApp && matchPath(pattern(s), pathname)) ??
    screens.find((s) => !s.perApp && matchPath(pattern(s), pathname));
  // A screen outside the navbar lights the entry it is reached from.
  const active = matched?.navUnder ? screens.find((s) => s.path === matched.navUnder) : matched;

  return screens
    .filter((screen) => (admin || !screen.adminOnly) && !screen.navUnder)
    .map((screen) => {
      const { path, label, perApp } = screen;
      const to = perApp && app ? appPath(app, path) : `/${path}`;
      const isActive = active === screen;
      return (
        <NavLink
          key={path}
          component={Link}
          to={to}
          label={label}
          active={isActive}
          aria-current={isActive ? "page" : undefined}
          onClick={onNavigate}
        />
      );
    });
}
