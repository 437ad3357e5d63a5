import { Navigate, Outlet, useLocation } from "react-router";
import { useQuery } from "urql";
import { hasErrorCode } from "../api/errors";
import { ErrorState, LoadingState } from "../components/states";
import { loginPath } from "./loginPath";
import { MeQuery } from "./operations";
import { t } from "../i18n";

/** Renders its child routes for a logged-in user; sends anyone else to log in. */
export function RequireAuth() {
  const [{ data, error }, reexecute] = useQuery({ query: MeQuery });
  const location = useLocation();

  if (data?.me) return <Outlet />;
  // No user or no session. The client's UNAUTHENTICATED handler may be
  // navigating to /login already; doing it here too keeps this guard whole.
  if (data || hasErrorCode(error, "UNAUTHENTICATED")) {
    return <Navigate to={loginPath(location)} replace />;
  }
  if (error) {
    return <ErrorState error={error} onRetry={() => reexecute({ requestPolicy: "network-only" })} fullPage />;
  }
  return <LoadingState label={t("auth.RequireAuth.loadingJobwheel")} fullPage />;
}
