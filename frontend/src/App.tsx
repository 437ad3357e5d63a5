import { MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { createBrowserRouter } from "react-router";
import { RouterProvider } from "react-router/dom";
import { ApiProvider } from "./api/ApiProvider";
import { createApi } from "./api/client";
import { loginPath } from "./auth/loginPath";
import { routes } from "./routes";
import { theme } from "./theme";

const router = createBrowserRouter(routes);

// Any operation refused for want of a session sends the user to log in, and
// back here afterwards.
function redirectToLogin() {
  const { location } = router.state;
  if (location.pathname !== "/login") void router.navigate(loginPath(location), { replace: true });
}

const makeApi = () => createApi({ onUnauthenticated: redirectToLogin });

export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <Notifications />
      <ApiProvider create={makeApi}>
        <RouterProvider router={router} />
      </ApiProvider>
    </MantineProvider>
  );
}
