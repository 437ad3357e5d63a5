import { Navigate, type RouteObject } from "react-router";
import { AppRedirect } from "./apps/AppRedirect";
import { AppScope } from "./apps/AppScope";
import { LoginPage } from "./auth/LoginPage";
import { RequireAuth } from "./auth/RequireAuth";
import { GraphiQLPage } from "./graphiql/GraphiQLPage";
import { HomeRedirect } from "./layout/HomeRedirect";
import { NotFoundPage } from "./layout/NotFoundPage";
import { RouteError } from "./layout/RouteError";
import { Shell, type RouteHandle } from "./layout/Shell";
import { screens, type Screen } from "./screens";
import { t } from "./i18n";

const appScreens = screens.filter((s) => s.perApp);
const firstAppScreen = appScreens[0];

/** A per-app screen's routes: its list at the index, its pages below. */
function appScreenRoute({ path, label, Component, pages = [] }: Screen): RouteObject {
  return {
    path,
    children: [
      { index: true, Component, handle: { title: label } satisfies RouteHandle },
      ...pages.map(
        (page): RouteObject => ({
          path: page.path,
          Component: page.Component,
          handle: { title: page.title } satisfies RouteHandle,
        }),
      ),
    ],
  };
}

export const routes: RouteObject[] = [
  {
    ErrorBoundary: RouteError,
    children: [
      { path: "/login", Component: LoginPage },
      {
        Component: RequireAuth,
        children: [
          // Full page, without the console's frame: the explorer needs the room.
          { path: "/graphiql", Component: GraphiQLPage },
          {
            Component: Shell,
            children: [
              { index: true, Component: HomeRedirect },
              ...screens
                .filter((s) => !s.perApp)
                .map(
                  ({ path, label, Component }): RouteObject => ({
                    path,
                    Component,
                    handle: { title: label } satisfies RouteHandle,
                  }),
                ),
              {
                path: "apps/:app",
                Component: AppScope,
                children: [
                  ...(firstAppScreen ? [{ index: true, element: <Navigate to={firstAppScreen.path} replace /> }] : []),
                  ...appScreens.map(appScreenRoute),
                  { path: "*", Component: NotFoundPage, handle: { title: t("app.routes.notFound") } satisfies RouteHandle },
                ],
              },
              ...appScreens.map(
                ({ path, label }): RouteObject => ({
                  path,
                  element: <AppRedirect screen={path} label={label} />,
                  handle: { title: label } satisfies RouteHandle,
                }),
              ),
              { path: "*", Component: NotFoundPage, handle: { title: t("app.routes.notFound") } satisfies RouteHandle },
            ],
          },
        ],
      },
    ],
  },
];
